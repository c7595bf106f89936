import type { EntityKind } from './extraction.ts';
import { normalizeName } from '../domain/name-keys.ts';
import { editDistance } from './names.ts';

/**
 * Entity resolution: exact name, normalised name, alias, then similarity
 * (a lone surname or first name that points at exactly one known person, or
 * a one-letter typo in a long name token). Ambiguity is never guessed: a
 * first name shared by two known people links to neither.
 */
export interface ResolvableEntity {
  id: string;
  name: string;
  norm: string;
  type: string;
  aliases: readonly string[];
  mentions: number;
}

export type Resolution =
  | { kind: 'match'; id: string; how: 'exact' | 'normalized' | 'alias' | 'surname' | 'first_name' | 'similar' }
  | { kind: 'ambiguous'; ids: string[] }
  | { kind: 'new' };

const PERSONISH = new Set(['person', 'name', 'org', 'place', 'other']);

/** Kinds that may be the same entity: any name-like kind with any other; handles, dates and titles only with their own. */
export function compatibleKinds(a: string, b: string): boolean {
  return a === b || (PERSONISH.has(a) && PERSONISH.has(b));
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

function pick(ids: string[], how: Extract<Resolution, { kind: 'match' }>['how']): Resolution | null {
  const u = unique(ids);
  if (u.length === 1) return { kind: 'match', id: u[0]!, how };
  if (u.length > 1) return { kind: 'ambiguous', ids: u };
  return null;
}

export function resolveMention(mention: { name: string; type: EntityKind | string }, candidates: readonly ResolvableEntity[]): Resolution {
  const pool = candidates.filter((c) => compatibleKinds(c.type, mention.type));
  const norm = normalizeName(mention.name);
  if (!norm) return { kind: 'new' };
  const exact = pick(pool.filter((c) => c.name === mention.name).map((c) => c.id), 'exact');
  if (exact) return exact;
  const normalized = pick(pool.filter((c) => c.norm === norm).map((c) => c.id), 'normalized');
  if (normalized) return normalized;
  const alias = pick(pool.filter((c) => c.aliases.some((a) => normalizeName(a) === norm)).map((c) => c.id), 'alias');
  if (alias) return alias;
  if (!PERSONISH.has(mention.type)) return { kind: 'new' };

  const tokens = norm.split(' ');
  const multi = pool.map((c) => ({ c, t: c.norm.split(' ') }));
  if (tokens.length === 1) {
    const t = tokens[0]!;
    const bySurname = pick(multi.filter((x) => x.t.length > 1 && x.t[x.t.length - 1] === t).map((x) => x.c.id), 'surname');
    if (bySurname) return bySurname;
    const byFirst = pick(multi.filter((x) => x.t.length > 1 && x.t[0] === t).map((x) => x.c.id), 'first_name');
    if (byFirst) return byFirst;
    return { kind: 'new' };
  }
  // "John Smith" after "Dr. Smith": a full name whose surname is exactly one known single-name person.
  const last = tokens[tokens.length - 1]!;
  const shortForm = pick(multi.filter((x) => x.t.length === 1 && x.t[0] === last).map((x) => x.c.id), 'surname');
  if (shortForm) return shortForm;
  // One token differs by one edit, and it is long enough that this is a typo, not another name (Joan/John).
  const similar = multi.filter(
    (x) =>
      x.t.length === tokens.length &&
      x.t.filter((w, i) => w !== tokens[i]).length === 1 &&
      x.t.every((w, i) => w === tokens[i] || (w.length >= 6 && tokens[i]!.length >= 6 && editDistance(w, tokens[i]!, 1) <= 1)),
  );
  return pick(similar.map((x) => x.c.id), 'similar') ?? { kind: 'new' };
}
