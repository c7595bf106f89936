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

/**
 * An entity's name keys, worked out once: resolving a mention compares it
 * with every entity of its scope, and normalising each alias and splitting
 * each name key anew for every mention cost 25 ms a mention among 20,000
 * entities (graph indexing and re-indexing of a large store spent nearly all
 * their time there). Entities are mutable records (an alias is pushed, a
 * fuller name replaces the display name), so an entry is checked against
 * the aliases array and the name key it was made from before it is used.
 */
interface EntityKeys {
  aliases: readonly string[];
  aliasCount: number;
  aliasNorms: readonly string[];
  norm: string;
  tokens: readonly string[];
}

/** Where an entity keeps its keys: a symbol, not enumerable, so copies, spreads and JSON never carry it. */
const KEYS = Symbol('entity name keys');

function keysOf(c: ResolvableEntity): EntityKeys {
  const held = c as ResolvableEntity & { [KEYS]?: EntityKeys };
  let k = held[KEYS];
  if (!k) {
    k = { aliases: c.aliases, aliasCount: c.aliases.length, aliasNorms: c.aliases.map(normalizeName), norm: c.norm, tokens: c.norm.split(' ') };
    Object.defineProperty(c, KEYS, { value: k, enumerable: false, writable: true, configurable: true });
    return k;
  }
  if (k.aliases !== c.aliases || k.aliasCount !== c.aliases.length) {
    k.aliases = c.aliases;
    k.aliasCount = c.aliases.length;
    k.aliasNorms = c.aliases.map(normalizeName);
  }
  if (k.norm !== c.norm) {
    k.norm = c.norm;
    k.tokens = c.norm.split(' ');
  }
  return k;
}

export function resolveMention(mention: { name: string; type: EntityKind | string }, candidates: readonly ResolvableEntity[]): Resolution {
  const pool = candidates.filter((c) => compatibleKinds(c.type, mention.type));
  const norm = normalizeName(mention.name);
  if (!norm) return { kind: 'new' };
  const exact = pick(idsWhere(pool, (c) => c.name === mention.name), 'exact');
  if (exact) return exact;
  const normalized = pick(idsWhere(pool, (c) => c.norm === norm), 'normalized');
  if (normalized) return normalized;
  const alias = pick(idsWhere(pool, (c) => keysOf(c).aliasNorms.includes(norm)), 'alias');
  if (alias) return alias;
  if (!PERSONISH.has(mention.type)) return { kind: 'new' };

  const tokens = norm.split(' ');
  if (tokens.length === 1) {
    const t = tokens[0]!;
    const bySurname = pick(idsWhere(pool, (c) => { const k = keysOf(c).tokens; return k.length > 1 && k[k.length - 1] === t; }), 'surname');
    if (bySurname) return bySurname;
    const byFirst = pick(idsWhere(pool, (c) => { const k = keysOf(c).tokens; return k.length > 1 && k[0] === t; }), 'first_name');
    if (byFirst) return byFirst;
    return { kind: 'new' };
  }
  // "John Smith" after "Dr. Smith": a full name whose surname is exactly one known single-name person.
  const last = tokens[tokens.length - 1]!;
  const shortForm = pick(idsWhere(pool, (c) => { const k = keysOf(c).tokens; return k.length === 1 && k[0] === last; }), 'surname');
  if (shortForm) return shortForm;
  // One token differs by one edit, and it is long enough that this is a typo, not another name (Joan/John).
  const similar = idsWhere(pool, (c) => { const k = keysOf(c).tokens; return k.length === tokens.length && oneTokenTypo(k, tokens); });
  return pick(similar, 'similar') ?? { kind: 'new' };
}

/** The ids of the entities that pass, in order: one loop, no array per step. */
function idsWhere(pool: readonly ResolvableEntity[], pass: (c: ResolvableEntity) => boolean): string[] {
  const ids: string[] = [];
  for (const c of pool) if (pass(c)) ids.push(c.id);
  return ids;
}

/**
 * Exactly one token differs, by one edit, and both spellings are long enough
 * for that to be a typo. A loop with no arrays made: it runs for every entity
 * with as many tokens as the mention.
 */
function oneTokenTypo(known: readonly string[], tokens: readonly string[]): boolean {
  let differing = 0;
  for (let i = 0; i < known.length; i++) {
    const w = known[i]!;
    const t = tokens[i]!;
    if (w === t) continue;
    if (++differing > 1) return false;
    if (!(w.length >= 6 && t.length >= 6 && editDistance(w, t, 1) <= 1)) return false;
  }
  return differing === 1;
}
