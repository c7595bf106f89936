/**
 * Ranking metrics as trec_eval (and so pytrec_eval, which BEIR uses) computes
 * them. Relevance grades come from the qrels; a grade <= 0 is judged
 * non-relevant.
 *
 *   nDCG@k   = DCG@k / IDCG@k, DCG@k = Σ_{i=1..k} gain_i / log2(i + 1), gain = the
 *              qrels grade (trec_eval's linear gain, not 2^g − 1); IDCG orders all
 *              relevant documents by grade.
 *   recall@k = |relevant ∩ top k| / |relevant|
 */

export type Qrels = ReadonlyMap<string, number>;

export function ndcgAt(ranked: readonly string[], qrels: Qrels, k: number): number {
  const gains = [...qrels.values()].filter((g) => g > 0).sort((a, b) => b - a);
  if (gains.length === 0) return 0;
  let ideal = 0;
  for (let i = 0; i < Math.min(k, gains.length); i++) ideal += gains[i]! / Math.log2(i + 2);
  let dcg = 0;
  const seen = new Set<string>();
  let rank = 0;
  for (const id of ranked) {
    if (rank >= k) break;
    if (seen.has(id)) continue; // a run lists each document once
    seen.add(id);
    const gain = qrels.get(id) ?? 0;
    if (gain > 0) dcg += gain / Math.log2(rank + 2);
    rank++;
  }
  return dcg / ideal;
}

export function recallAt(ranked: readonly string[], qrels: Qrels, k: number): number {
  const relevant = [...qrels].filter(([, g]) => g > 0).map(([id]) => id);
  if (relevant.length === 0) return 0;
  const top = new Set(ranked.slice(0, k));
  return relevant.filter((id) => top.has(id)).length / relevant.length;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Nearest-rank percentile (p in 0..100) of unsorted values; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1]!;
}
