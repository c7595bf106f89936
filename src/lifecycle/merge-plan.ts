import { OWNER_MARKED_LABEL, scopeKey, type Memory } from '../domain/memory.ts';
import { factTerms, similarPairs, shingles, type SimilarityItem } from './similarity.ts';

/** Chunks carrying this label were marked by the owner and are never rewritten or merged. */
export { OWNER_MARKED_LABEL };

/** Two memories are only ever merged when their scopes (scopeKey) are equal, so a merge can never move text to a reader who could not see it before (or hide it from one who could). */
export { scopeKey };

/**
 * Episodes (transcript turns, the cycle's events) are records of what
 * happened, each at its own time and place: "haha" said in two sessions, or
 * by the user and then the assistant, are two events, never duplicates.
 */
export function mergeable(m: Memory): boolean {
  return (
    m.supersededAt === null &&
    !m.readOnly &&
    m.type !== 'skill' &&
    m.type !== 'episode' &&
    (m.lifecycle === 'generated' || m.lifecycle === 'activated' || m.lifecycle === 'consolidated') &&
    !m.labels.includes(OWNER_MARKED_LABEL)
  );
}

export interface PlannedMerge {
  survivorId: string;
  loserId: string;
  similarity: number;
  method: 'cosine' | 'jaccard';
}

/** The stronger memory survives: higher strength, then more use, then the older one. */
function stronger(a: Memory, b: Memory): Memory {
  if (a.importance !== b.importance) return a.importance > b.importance ? a : b;
  if (a.accessCount !== b.accessCount) return a.accessCount > b.accessCount ? a : b;
  return a.id < b.id ? a : b;
}

/**
 * The survivor keeps its own text and the loser is archived, so only texts
 * that say the same words in the same order (whatever their case,
 * punctuation or spacing) are merged. Each text having a word the other
 * lacks ("contacted by email" / "by phone", "succeeded" / "failed") is two
 * facts however similar it scores; so is one text adding a word ("Dana is
 * the former team lead" / "Dana is the team lead", "the backup is disabled"
 * / "is on"), and so are the same words in another order ("from staging to
 * production" / "from production to staging"): the newer one, often the
 * current truth, vanished from search.
 */
function sameWords(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((w, i) => w === b[i]);
}

/** A survivor with a TTL would take a memory that has none, or a later one, with it when it expires. */
export function outlives(survivor: Pick<Memory, 'expiresAt'>, loser: Pick<Memory, 'expiresAt'>): boolean {
  if (survivor.expiresAt === null) return true;
  return loser.expiresAt !== null && Date.parse(survivor.expiresAt) >= Date.parse(loser.expiresAt);
}

/**
 * Whether the survivor's valid time covers the loser's. Archiving the loser
 * must not hide a fact at a time it held: a text valid in January 2020 and
 * the same text valid since last month are two facts, and an as-of search
 * for today must still find the second.
 */
export function coversValidTime(survivor: Pick<Memory, 'validFrom' | 'validTo'>, loser: Pick<Memory, 'validFrom' | 'validTo'>): boolean {
  if (Date.parse(survivor.validFrom) > Date.parse(loser.validFrom)) return false;
  if (survivor.validTo === null) return true;
  return loser.validTo !== null && Date.parse(loser.validTo) <= Date.parse(survivor.validTo);
}

/** What reverseMerge records on both memories of a pair the owner took apart. */
export interface KeptApart {
  lineageId: string;
  /** Content hashes of both texts at the reversal: a changed text makes it a new pair. */
  hash: string;
  ownHash: string;
  at: string;
}

/** True when the owner reversed a merge of these two and neither text changed since. */
export function keptApart(a: Memory, b: Memory): boolean {
  const apart = (x: Memory, y: Memory) => {
    const list = x.metadata.keptApartFrom;
    return Array.isArray(list) && (list as Partial<KeptApart>[]).some((k) => k.lineageId === y.lineageId && k.hash === y.contentHash && k.ownHash === x.contentHash);
  };
  return apart(a, b) || apart(b, a);
}

/**
 * Pairs to merge, most similar first. A memory is merged at most once per
 * run (as survivor or loser), so each merge is one small reversible step.
 * A pair is skipped when the two texts do not say the same words, when
 * the survivor's valid time does not cover the other's or its TTL ends
 * first, or when the owner took the two apart (reverseMerge).
 */
export function planMerges(
  memories: readonly Memory[],
  analyze: (text: string) => string[],
  opts: { textThreshold: number; vectorThreshold: number; vectors?: Map<string, ArrayLike<number>> },
): PlannedMerge[] {
  const byId = new Map<string, Memory>();
  const items: SimilarityItem[] = [];
  const wordsOf = new Map<string, readonly string[]>();
  for (const m of memories) {
    if (!mergeable(m)) continue;
    byId.set(m.id, m);
    const v = opts.vectors?.get(m.id);
    const terms = analyze(m.text);
    wordsOf.set(m.id, terms);
    // Only texts with the same numbers, dates and negations are ever compared (vectors blur them too).
    items.push({ id: m.id, group: `${scopeKey(m)}\u0000${m.type}\u0000${factTerms(terms).join(' ')}`, shingles: shingles(terms), ...(v ? { vector: v } : {}) });
  }
  const used = new Set<string>();
  const out: PlannedMerge[] = [];
  for (const pair of similarPairs(items, opts.textThreshold, opts.vectorThreshold)) {
    if (used.has(pair.a) || used.has(pair.b)) continue;
    const a = byId.get(pair.a)!;
    const b = byId.get(pair.b)!;
    if (scopeKey(a) !== scopeKey(b)) continue; // defence in depth: groups already separate scopes
    if (keptApart(a, b)) continue;
    if (!sameWords(wordsOf.get(a.id)!, wordsOf.get(b.id)!)) continue;
    const survivor = stronger(a, b);
    const loser = survivor === a ? b : a;
    if (!coversValidTime(survivor, loser) || !outlives(survivor, loser)) continue;
    used.add(a.id);
    used.add(b.id);
    out.push({ survivorId: survivor.id, loserId: loser.id, similarity: Math.round(pair.similarity * 1e4) / 1e4, method: pair.method });
  }
  return out;
}
