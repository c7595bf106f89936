/**
 * Okapi BM25 as pure functions of their inputs (no index, no I/O), so the
 * SQLite store can hand over candidates plus df/N/avgdl and the engine
 * re-scores them exactly, and the in-memory index computes the same numbers.
 *
 *   score(d, q) = Σ_t w_q(t) · idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·|d|/avgdl))
 *   idf(t)      = ln(1 + (N − df + 0.5) / (df + 0.5))        (Lucene's form: never negative)
 *
 * w_q(t) is the number of times t occurs in the query (Lucene's bag-of-words
 * query sums one clause per occurrence). Defaults k1 = 0.9, b = 0.4: the
 * Anserini/Pyserini BEIR baselines.
 */
import { MnemosError } from '../domain/errors.ts';
import type { CorpusStats, KeywordHit } from '../ports/store.ts';

export interface Bm25Params {
  k1: number;
  b: number;
}

export const DEFAULT_BM25: Readonly<Bm25Params> = Object.freeze({ k1: 0.9, b: 0.4 });

/** Term counts: a Map (in-memory index) or a plain record (what the store port returns). */
export type Counts = ReadonlyMap<string, number> | Readonly<Record<string, number>>;

export function countOf(counts: Counts, term: string): number {
  if (counts instanceof Map) return counts.get(term) ?? 0;
  const value = (counts as Readonly<Record<string, number>>)[term];
  return typeof value === 'number' && Object.hasOwn(counts, term) ? value : 0;
}

function entriesOf(counts: Counts): Iterable<[string, number]> {
  return counts instanceof Map ? counts.entries() : Object.entries(counts as Readonly<Record<string, number>>);
}

export function assertBm25Params(params: Bm25Params): void {
  if (!(params.k1 >= 0) || !Number.isFinite(params.k1)) {
    throw new MnemosError('validation_failed', `BM25 k1 must be a finite number >= 0, got ${params.k1}`, { field: 'k1' });
  }
  if (!(params.b >= 0 && params.b <= 1)) {
    throw new MnemosError('validation_failed', `BM25 b must be within [0, 1], got ${params.b}`, { field: 'b' });
  }
}

/** Inverse document frequency; 0 for a term no document has (it cannot match anyway). */
export function bm25Idf(df: number, documents: number): number {
  if (df <= 0 || documents <= 0) return 0;
  const n = Math.max(documents, df);
  return Math.log(1 + (n - df + 0.5) / (df + 0.5));
}

/** The saturating term-frequency part, normalised by document length. */
export function bm25TermWeight(tf: number, docLen: number, averageLength: number, params: Bm25Params = DEFAULT_BM25): number {
  if (tf <= 0) return 0;
  const lengthRatio = averageLength > 0 ? docLen / averageLength : 1;
  return (tf * (params.k1 + 1)) / (tf + params.k1 * (1 - params.b + params.b * lengthRatio));
}

/**
 * BM25 of one document for one query.
 * @param termFreqs  frequency in this document of each query term (absent = 0)
 * @param docLen     the document's length in analyzed terms
 * @param df         document frequency of each query term
 * @param N          number of documents
 * @param avgdl      average document length in analyzed terms
 * @param queryWeights how often each term occurs in the query (default 1 each); when
 *                   given, its keys are the query terms, otherwise the keys of termFreqs are
 */
export function bm25Score(
  termFreqs: Counts,
  docLen: number,
  df: Counts,
  N: number,
  avgdl: number,
  params: Bm25Params = DEFAULT_BM25,
  queryWeights?: Counts,
): number {
  let score = 0;
  const terms = queryWeights ? entriesOf(queryWeights) : [...entriesOf(termFreqs)].map(([t]) => [t, 1] as [string, number]);
  for (const [term, weight] of terms) {
    const tf = countOf(termFreqs, term);
    if (tf <= 0 || weight <= 0) continue;
    score += weight * bm25Idf(countOf(df, term), N) * bm25TermWeight(tf, docLen, avgdl, params);
  }
  return score;
}

/** Counts occurrences: a document's term frequencies, or a query's term weights. */
export function termFrequencies(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  return counts;
}

export interface Bm25Candidate {
  id: string;
  /** The candidate's analyzed terms (from `analyze`). */
  terms: readonly string[];
}

/**
 * Exact BM25 over candidates the store found (FTS5 or any other source): the
 * engine's re-scoring step. Best first; equal scores keep candidate order.
 * Candidates matching no query term are dropped.
 */
export function scoreCandidates(
  queryTerms: readonly string[],
  candidates: Iterable<Bm25Candidate>,
  stats: CorpusStats,
  df: Counts,
  params: Bm25Params = DEFAULT_BM25,
): KeywordHit[] {
  assertBm25Params(params);
  const weights = termFrequencies(queryTerms);
  const scored: Array<KeywordHit & { order: number }> = [];
  let order = 0;
  for (const c of candidates) {
    const tf = termFrequencies(c.terms);
    const score = bm25Score(tf, c.terms.length, df, stats.documents, stats.averageLength, params, weights);
    if (score > 0) scored.push({ id: c.id, score, order: order++ });
  }
  scored.sort((a, b) => b.score - a.score || a.order - b.order);
  return scored.map(({ id, score }) => ({ id, score }));
}
