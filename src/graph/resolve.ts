import type { EntityKind } from './extraction.ts';
import { normalizeName } from '../domain/name-keys.ts';
import { editDistance } from './names.ts';

/**
 * Entity resolution: exact name, normalised name, alias, then similarity
 * (a lone surname or first name that points at exactly one known person, or
 * a one-letter typo in a long name token). Ambiguity is never guessed: a
 * first name shared by two known people links to neither.
 *
 * `resolveMention` is the rule written as a plain scan of the candidates, the
 * reference: graph indexing resolves through entity-index.ts, which looks the
 * same steps up by key (a scan per mention made indexing 10,000 memories with
 * 20,000 entities take minutes) and must answer exactly as this does, down to
 * the order of an ambiguous answer's ids (the candidates' order).
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

/** Kinds the similarity steps (surname, first name, typo) apply to. */
export function isPersonish(type: string): boolean {
  return PERSONISH.has(type);
}

/** Kinds that may be the same entity: any name-like kind with any other; handles, dates and titles only with their own. */
export function compatibleKinds(a: string, b: string): boolean {
  return a === b || (PERSONISH.has(a) && PERSONISH.has(b));
}

function unique(ids: string[]): string[] {
  return [...new Set(ids)];
}

export function pick(ids: string[], how: Extract<Resolution, { kind: 'match' }>['how']): Resolution | null {
  const u = unique(ids);
  if (u.length === 1) return { kind: 'match', id: u[0]!, how };
  if (u.length > 1) return { kind: 'ambiguous', ids: u };
  return null;
}

export function resolveMention(mention: { name: string; type: EntityKind | string }, candidates: readonly ResolvableEntity[]): Resolution {
  const pool = candidates.filter((c) => compatibleKinds(c.type, mention.type));
  const norm = normalizeName(mention.name);
  if (!norm) return { kind: 'new' };
  const exact = pick(idsWhere(pool, (c) => c.name === mention.name), 'exact');
  if (exact) return exact;
  const normalized = pick(idsWhere(pool, (c) => c.norm === norm), 'normalized');
  if (normalized) return normalized;
  const alias = pick(idsWhere(pool, (c) => c.aliases.some((a) => normalizeName(a) === norm)), 'alias');
  if (alias) return alias;
  if (!isPersonish(mention.type)) return { kind: 'new' };

  const tokens = norm.split(' ');
  if (tokens.length === 1) {
    const t = tokens[0]!;
    const bySurname = pick(idsWhere(pool, (c) => { const k = c.norm.split(' '); return k.length > 1 && k[k.length - 1] === t; }), 'surname');
    if (bySurname) return bySurname;
    const byFirst = pick(idsWhere(pool, (c) => { const k = c.norm.split(' '); return k.length > 1 && k[0] === t; }), 'first_name');
    if (byFirst) return byFirst;
    return { kind: 'new' };
  }
  // "John Smith" after "Dr. Smith": a full name whose surname is exactly one known single-name person.
  const last = tokens[tokens.length - 1]!;
  const shortForm = pick(idsWhere(pool, (c) => c.norm === last && !hasFullName(c)), 'surname');
  if (shortForm) return shortForm;
  // One token differs by one edit, and it is long enough that this is a typo, not another name (Joan/John).
  const similar = idsWhere(pool, (c) => { const k = c.norm.split(' '); return k.length === tokens.length && oneTokenTypo(k, tokens); });
  return pick(similar, 'similar') ?? { kind: 'new' };
}

/**
 * Whether an entity already goes by a name of more than one word, as "Dr. Smith" does once "John Smith" joined
 * it: it is no longer a single-name person, and a full name with another first name ("Mary Smith") is not it.
 * The short form joined every Smith of a text into the first one.
 */
export function hasFullName(c: Pick<ResolvableEntity, 'name' | 'aliases'>): boolean {
  return normalizeName(c.name).includes(' ') || c.aliases.some((a) => normalizeName(a).includes(' '));
}

/** The ids of the entities that pass, in order. */
function idsWhere(pool: readonly ResolvableEntity[], pass: (c: ResolvableEntity) => boolean): string[] {
  const ids: string[] = [];
  for (const c of pool) if (pass(c)) ids.push(c.id);
  return ids;
}

/** The shortest name token a one-edit difference is taken as a typo in (Joan/John are two names). */
export const TYPO_MIN_LENGTH = 6;

/**
 * Exactly one token differs, by one edit, and both spellings are long enough
 * for that to be a typo (entity-index.ts keys only tokens that long for this step).
 */
export function oneTokenTypo(known: readonly string[], tokens: readonly string[]): boolean {
  let differing = 0;
  for (let i = 0; i < known.length; i++) {
    const w = known[i]!;
    const t = tokens[i]!;
    if (w === t) continue;
    if (++differing > 1) return false;
    if (!(w.length >= TYPO_MIN_LENGTH && t.length >= TYPO_MIN_LENGTH && editDistance(w, t, 1) <= 1)) return false;
  }
  return differing === 1;
}
