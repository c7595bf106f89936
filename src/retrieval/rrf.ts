/**
 * Reciprocal Rank Fusion (Cormack, Clarke & Büttcher 2009):
 *
 *   score(d) = Σ_lists w_l / (k + rank_l(d)),  ranks 1-based, k = 60 by default.
 *
 * Each result keeps its rank in every list so `explain` can show them.
 * Priors (importance, recency, emotion) never outrank fusion: they only order
 * results whose fused scores are a near tie, i.e. within `tieEpsilon`
 * (default 1e-9) of the first result of their tie group. With k = 60 two
 * different rank patterns differ by at least ~1/(k+r)² ≈ 1e-6 for ranks
 * below 1,000, so 1e-9 only groups exact ties (rank 3 in one list vs rank 3 in
 * another) and floating-point noise. Within a group: higher prior first, then
 * the better best rank, then the earlier list, then id, so output is
 * deterministic.
 */
import { MnemosError } from '../domain/errors.ts';

export interface RankedList {
  /** List name for explain: 'keyword', 'vector', 'time', 'graph', ... */
  name: string;
  /** Ids best first; a repeated id keeps its first (best) rank. */
  ids: readonly string[];
  /** List weight w_l. Default 1. */
  weight?: number;
}

export interface FusedResult {
  id: string;
  score: number;
  /** 1-based rank in each list that contains the id. */
  ranks: Record<string, number>;
}

export interface RrfOptions {
  k?: number;
  tieEpsilon?: number;
  /** Prior used only inside near ties; higher first. */
  tieBreaker?: (id: string) => number;
}

export const DEFAULT_RRF_K = 60;
export const DEFAULT_TIE_EPSILON = 1e-9;

export function rrf(lists: readonly RankedList[], options: RrfOptions = {}): FusedResult[] {
  const k = options.k ?? DEFAULT_RRF_K;
  const epsilon = options.tieEpsilon ?? DEFAULT_TIE_EPSILON;
  if (!(k >= 0) || !Number.isFinite(k)) throw new MnemosError('validation_failed', `RRF k must be a finite number >= 0, got ${k}`, { field: 'k' });
  const names = new Set<string>();
  const byId = new Map<string, FusedResult & { best: number; bestList: number }>();
  lists.forEach((list, li) => {
    if (names.has(list.name)) throw new MnemosError('validation_failed', `RRF list name "${list.name}" is used twice`, { field: 'lists' });
    names.add(list.name);
    const weight = list.weight ?? 1;
    let rank = 0;
    const seen = new Set<string>();
    for (const id of list.ids) {
      if (seen.has(id)) continue;
      seen.add(id);
      rank++;
      let r = byId.get(id);
      if (!r) byId.set(id, (r = { id, score: 0, ranks: {}, best: Infinity, bestList: Infinity }));
      r.ranks[list.name] = rank;
      r.score += weight / (k + rank);
      if (rank < r.best || (rank === r.best && li < r.bestList)) {
        r.best = rank;
        r.bestList = li;
      }
    }
  });
  const all = [...byId.values()].sort((a, b) => b.score - a.score);
  const out: FusedResult[] = [];
  for (let i = 0; i < all.length; ) {
    let j = i + 1;
    while (j < all.length && all[i]!.score - all[j]!.score <= epsilon) j++;
    const group = all.slice(i, j);
    // Most results tie with nothing: only a real group is worth the priors and the sort (a search fuses hundreds of ids).
    if (group.length > 1) {
      const prior = options.tieBreaker;
      const priors = new Map(group.map((r) => [r.id, prior ? prior(r.id) : 0]));
      group.sort((a, b) => priors.get(b.id)! - priors.get(a.id)! || a.best - b.best || a.bestList - b.bestList || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    }
    for (const r of group) out.push({ id: r.id, score: r.score, ranks: r.ranks });
    i = j;
  }
  return out;
}
