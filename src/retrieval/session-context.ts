/**
 * Conversational context. A turn such as "Super good, rich and creamy!" only
 * makes sense after "What did you think of the ice cream?", so a memory's
 * neighbours in its session (the turn before it, the turn after it) lend it
 * part of their relevance. Two pure forms of the same idea:
 *
 * - `smoothScores`: a list's scores plus a share of the neighbours' scores,
 *   s'(i) = s(i) + wPrev·s(prev(i)) + wNext·s(next(i)); computed at query
 *   time from the scores alone, so forgetting a memory leaves no trace in
 *   its neighbours.
 * - `contextualVector`: the unit vector of e(i) + wPrev·e(prev) + wNext·e(next)
 *   for unit vectors e; a short turn is dominated by its context, a long one
 *   keeps its own meaning. Whoever stores these must re-derive a memory's
 *   neighbours' vectors when the memory is forgotten.
 *
 * Defaults (0.5 for the turn before, 0.2 for the turn after) were measured on
 * LoCoMo; see docs/RETRIEVAL.md.
 */
import { l2Normalize } from '../embedding/vectors.ts';

export interface Neighbours {
  previous?: string | undefined;
  next?: string | undefined;
}

export interface ContextWeights {
  previous: number;
  next: number;
}

export const DEFAULT_CONTEXT_WEIGHTS: Readonly<ContextWeights> = Object.freeze({ previous: 0.5, next: 0.2 });

/** Scores after lending each memory a share of its neighbours' scores; only positive results are kept. */
export function smoothScores(
  scores: ReadonlyMap<string, number>,
  ids: Iterable<string>,
  neighbours: (id: string) => Neighbours,
  weights: ContextWeights = DEFAULT_CONTEXT_WEIGHTS,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const id of ids) {
    const n = neighbours(id);
    const s =
      (scores.get(id) ?? 0) +
      (n.previous !== undefined ? weights.previous * (scores.get(n.previous) ?? 0) : 0) +
      (n.next !== undefined ? weights.next * (scores.get(n.next) ?? 0) : 0);
    if (s > 0) out.set(id, s);
  }
  return out;
}

/** The unit vector of own + wPrev·previous + wNext·next (missing neighbours count as zero). */
export function contextualVector(
  own: Float32Array,
  previous: Float32Array | undefined,
  next: Float32Array | undefined,
  weights: ContextWeights = DEFAULT_CONTEXT_WEIGHTS,
): Float32Array {
  const out = new Float64Array(own.length);
  for (let i = 0; i < own.length; i++) {
    out[i] = own[i]! + (previous ? weights.previous * previous[i]! : 0) + (next ? weights.next * next[i]! : 0);
  }
  return new Float32Array(l2Normalize(out)); // the typed-array copy, not .from(): that walks an iterator
}

/** Scores sorted best first, ties by id. */
export function rankScores(scores: ReadonlyMap<string, number>, limit: number): string[] {
  return [...scores].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)).slice(0, limit).map(([id]) => id);
}
