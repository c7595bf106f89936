/** What an extractor finds in one text; rule-based and LLM extractors return the same shape. */
export type EntityKind = 'person' | 'name' | 'handle' | 'title' | 'date' | 'place' | 'org' | 'other';

export interface Mention {
  /** Surface form as written. */
  name: string;
  type: EntityKind;
  /**
   * Another mention of the same text that names the same entity: a gloss,
   * "Bangkok (กรุงเทพ)". The indexer files this spelling under that entity
   * (evidence, so an alias) instead of resolving it on its own.
   */
  sameAs?: string;
}

export interface ExtractedRelation {
  subject: string;
  predicate: string;
  object: string;
}

export interface Extraction {
  mentions: Mention[];
  relations: ExtractedRelation[];
}

/**
 * Predicates where one subject holds one object at a time: a new object
 * closes the old relation (bi-temporal: valid-to and superseded-by) instead
 * of deleting it.
 */
export const FUNCTIONAL_PREDICATES = new Set(['works_at', 'lives_in', 'married_to', 'role', 'located_in', 'manager_of_is']);

export function isFunctional(predicate: string): boolean {
  return FUNCTIONAL_PREDICATES.has(predicate);
}

export type Extractor = (text: string, known: ReadonlySet<string>) => Promise<Extraction>;

/**
 * Longest name (and predicate) the graph keeps, in characters. A capitalised
 * "word" thousands of letters long (a pasted key, a sequence) matched the
 * name rule, and PostgreSQL cannot index a value of more than 2,704 bytes:
 * graph indexing, and with it every consolidation run, failed on that one
 * memory forever there (SQLite took it). No name is this long; at 4 bytes a
 * character it stays far under the limit.
 */
export const MAX_NAME_CHARS = 200;

const fits = (s: string) => s.length <= MAX_NAME_CHARS;

/** `ex` without the mentions and relations whose names or predicate are too long to be names (MAX_NAME_CHARS). */
export function withinNameLimits(ex: Extraction): Extraction {
  return {
    mentions: ex.mentions.filter((m) => fits(m.name)),
    relations: ex.relations.filter((r) => fits(r.subject) && fits(r.object) && fits(r.predicate)),
  };
}
