/**
 * FTS5's bm25() written out plainly for tests: an OR query of distinct terms,
 * IDF ln((N - df + 0.5) / (df + 0.5)) floored at 1e-6, k1 1.2, b 0.75, summed
 * in query order; best first, equal scores by smaller row key.
 */
export function fts5Bm25(docs: Map<number, string[]>, query: string[], k: number): { rowid: number; score: number }[] {
  const n = docs.size;
  let total = 0;
  for (const d of docs.values()) total += d.length;
  const avgdl = total / n;
  const terms = [...new Set(query)];
  const idf = terms.map((t) => {
    let df = 0;
    for (const d of docs.values()) if (d.includes(t)) df++;
    const x = Math.log((n - df + 0.5) / (df + 0.5));
    return x <= 0 ? 1e-6 : x;
  });
  const out: { rowid: number; score: number }[] = [];
  for (const [rowid, d] of docs) {
    let score = 0;
    let matched = false;
    terms.forEach((t, i) => {
      const tf = d.filter((x) => x === t).length;
      if (tf === 0) return;
      matched = true;
      score += idf[i]! * ((tf * (1.2 + 1)) / (tf + 1.2 * (1 - 0.75 + (0.75 * d.length) / avgdl)));
    });
    if (matched) out.push({ rowid, score });
  }
  out.sort((a, b) => b.score - a.score || a.rowid - b.rowid);
  return out.slice(0, k);
}
