/**
 * Term co-occurrence statistics for the built-in embedder's learned part.
 *
 * Two terms co-occur when they are in the same text (weight 1) or in texts
 * next to each other in a sequence (weight `adjacentWeight`), e.g. one turn
 * and the reply to it. The second kind is what teaches the model that
 * "instruments" goes with "clarinet": the question and its answer are two
 * memories. The counts become positive PMI with context-distribution
 * smoothing (Levy, Goldberg & Dagan 2015), the matrix the SVD factorises.
 */
import type { SparseMatrix } from './linear-algebra.ts';
import { sparseFromRows } from './linear-algebra.ts';

export interface CooccurrenceOptions {
  /** Weight of a pair across neighbouring texts of a sequence (same text = 1). */
  adjacentWeight: number;
  /** Context distribution smoothing exponent (0.75 in word2vec; 1 = plain PMI). */
  contextSmoothing: number;
}

export interface Vocabulary {
  terms: string[];
  index: Map<string, number>;
  /** Number of texts each term occurs in. */
  df: number[];
  /** Number of texts seen. */
  texts: number;
}

/**
 * The `maxTerms` terms with the highest document frequency (ties by term, so
 * the result does not depend on input order beyond the counts).
 */
export function buildVocabulary(sequences: ReadonlyArray<ReadonlyArray<readonly string[]>>, maxTerms: number): Vocabulary {
  const counts = new Map<string, number>();
  let texts = 0;
  for (const seq of sequences) {
    for (const terms of seq) {
      texts++;
      for (const t of new Set(terms)) counts.set(t, (counts.get(t) ?? 0) + 1);
    }
  }
  const ranked = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, maxTerms);
  ranked.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  const terms = ranked.map(([t]) => t);
  return { terms, index: new Map(terms.map((t, i) => [t, i])), df: ranked.map(([, c]) => c), texts };
}

function termIds(terms: readonly string[], vocab: Vocabulary): number[] {
  const ids = new Set<number>();
  for (const t of terms) {
    const i = vocab.index.get(t);
    if (i !== undefined) ids.add(i);
  }
  return [...ids];
}

/** Symmetric weighted co-occurrence counts, one sparse row per term. */
export function countCooccurrences(sequences: ReadonlyArray<ReadonlyArray<readonly string[]>>, vocab: Vocabulary, adjacentWeight: number): Map<number, number>[] {
  const rows = Array.from({ length: vocab.terms.length }, () => new Map<number, number>());
  const add = (a: number, b: number, w: number): void => {
    if (a === b) return;
    rows[a]!.set(b, (rows[a]!.get(b) ?? 0) + w);
    rows[b]!.set(a, (rows[b]!.get(a) ?? 0) + w);
  };
  for (const seq of sequences) {
    let previous: number[] = [];
    for (const terms of seq) {
      const ids = termIds(terms, vocab);
      for (let x = 0; x < ids.length; x++) for (let y = x + 1; y < ids.length; y++) add(ids[x]!, ids[y]!, 1);
      if (adjacentWeight > 0) for (const a of previous) for (const b of ids) add(a, b, adjacentWeight);
      previous = ids;
    }
  }
  return rows;
}

/** Positive PMI with smoothed context probabilities: max(0, ln(p(w,c) / (p(w)·p_α(c)))). */
export function ppmiMatrix(rows: ReadonlyArray<ReadonlyMap<number, number>>, contextSmoothing: number): SparseMatrix {
  const rowSum = rows.map((r) => {
    let s = 0;
    for (const v of r.values()) s += v;
    return s;
  });
  const total = rowSum.reduce((s, v) => s + v, 0);
  const context = rowSum.map((s) => Math.pow(s, contextSmoothing));
  const contextTotal = context.reduce((s, v) => s + v, 0);
  const out = rows.map((r, i) => {
    const m = new Map<number, number>();
    if (total === 0) return m;
    for (const [j, c] of r) {
      const pmi = Math.log((c * contextTotal) / (rowSum[i]! * context[j]!));
      if (pmi > 0) m.set(j, pmi);
    }
    return m;
  });
  return sparseFromRows(out, rows.length);
}
