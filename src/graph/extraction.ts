/** What an extractor finds in one text; rule-based and LLM extractors return the same shape. */
export type EntityKind = 'person' | 'name' | 'handle' | 'title' | 'date' | 'place' | 'org' | 'other';

export interface Mention {
  /** Surface form as written. */
  name: string;
  type: EntityKind;
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
