import { OWNER_MARKED_LABEL, type Memory } from '../domain/memory.ts';
import { similarPairs, shingles, type SimilarityItem } from './similarity.ts';

/** Chunks carrying this label were marked by the owner and are never rewritten or merged. */
export { OWNER_MARKED_LABEL };

/**
 * The scope a memory lives in. Two memories are only ever merged when every
 * part is equal, so a merge can never move text to a reader who could not
 * see it before (or hide it from one who could).
 */
export function scopeKey(m: Pick<Memory, 'namespace' | 'ownerId' | 'agentId' | 'visibility'>): string {
  return [m.namespace, m.ownerId, m.agentId ?? '', m.visibility].join('\u0000');
}

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
 * Pairs to merge, most similar first. A memory is merged at most once per
 * run (as survivor or loser), so each merge is one small reversible step.
 */
export function planMerges(
  memories: readonly Memory[],
  analyze: (text: string) => string[],
  opts: { textThreshold: number; vectorThreshold: number; vectors?: Map<string, ArrayLike<number>> },
): PlannedMerge[] {
  const byId = new Map<string, Memory>();
  const items: SimilarityItem[] = [];
  for (const m of memories) {
    if (!mergeable(m)) continue;
    byId.set(m.id, m);
    const v = opts.vectors?.get(m.id);
    items.push({ id: m.id, group: `${scopeKey(m)}\u0000${m.type}`, shingles: shingles(analyze(m.text)), ...(v ? { vector: v } : {}) });
  }
  const used = new Set<string>();
  const out: PlannedMerge[] = [];
  for (const pair of similarPairs(items, opts.textThreshold, opts.vectorThreshold)) {
    if (used.has(pair.a) || used.has(pair.b)) continue;
    const a = byId.get(pair.a)!;
    const b = byId.get(pair.b)!;
    if (scopeKey(a) !== scopeKey(b)) continue; // defence in depth: groups already separate scopes
    const survivor = stronger(a, b);
    const loser = survivor === a ? b : a;
    used.add(a.id);
    used.add(b.id);
    out.push({ survivorId: survivor.id, loserId: loser.id, similarity: Math.round(pair.similarity * 1e4) / 1e4, method: pair.method });
  }
  return out;
}
