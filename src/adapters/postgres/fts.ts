import type pg from 'pg';

/**
 * Keeps term_df and fts_docs (the BM25 statistics) in step with the rows, in
 * the writer's transaction. Lexemes are read back from the stored tsvector,
 * so the counts always use exactly the tokens the GIN index holds.
 */
export async function addToTermStats(c: pg.PoolClient, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await c.query(`WITH changed AS (SELECT tsv, doc_len FROM memories WHERE id = ANY($1::text[])), ${termStatsSql('changed')} SELECT 1`, [ids]);
}

/**
 * Common table expressions that add the rows of `source` (a CTE with tsv and
 * doc_len columns) to term_df and fts_docs. The bulk insert puts them after
 * its INSERT ... RETURNING, so new rows are counted without being read again.
 */
export function termStatsSql(source: string): string {
  return `df AS (INSERT INTO term_df (term, df) SELECT t.lexeme, count(*) FROM ${source}, unnest(${source}.tsv) AS t GROUP BY t.lexeme
       ON CONFLICT (term) DO UPDATE SET df = term_df.df + EXCLUDED.df RETURNING 1),
     docs AS (UPDATE fts_docs SET documents = documents + s.n, total_len = total_len + s.len
       FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM ${source}) s WHERE one RETURNING 1)`;
}

/** Must run before the rows' tsvectors are cleared or the rows deleted. */
export async function removeFromTermStats(c: pg.PoolClient, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await c.query(
    `UPDATE term_df SET df = term_df.df - d.n FROM (SELECT t.lexeme, count(*) AS n FROM memories m, unnest(m.tsv) AS t WHERE m.id = ANY($1::text[]) GROUP BY t.lexeme) d WHERE term_df.term = d.lexeme`,
    [ids],
  );
  await c.query('DELETE FROM term_df WHERE df <= 0');
  await c.query(
    `UPDATE fts_docs SET documents = documents - s.n, total_len = total_len - s.len
       FROM (SELECT count(*) AS n, coalesce(sum(doc_len), 0) AS len FROM memories WHERE id = ANY($1::text[])) s WHERE one`,
    [ids],
  );
}
