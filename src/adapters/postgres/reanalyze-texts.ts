import type pg from 'pg';
import { addToTermStats, removeFromTermStats } from './fts.ts';
import type { TextProgress } from '../../ports/migration-progress.ts';

/**
 * A regular expression PostgreSQL can run, true for every text analyzer @2
 * may read differently than @1: the Unicode blocks of Chinese, Japanese,
 * Korean, Thai, Lao, Khmer and Myanmar (with the compatibility forms NFKC
 * maps into them) and the dot above of Turkish İ. Wider than the exact test
 * (`needsIt`, run on what it lets through), so only the rows that may have
 * changed leave the server.
 */
const MAY_HAVE_CHANGED =
  '[\u0130\u0307\u0E00-\u0EFF\u1000-\u109F\u1100-\u11FF\u1780-\u17FF\u19E0-\u19FF\u2E80-\u9FFF\uA960-\uA97F\uA9E0-\uA9FF\uAA60-\uAA7F\uAC00-\uD7FF\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFFEF\u{16FE0}-\u{16FFF}\u{1B000}-\u{1B2FF}\u{1F200}-\u{1F2FF}\u{20000}-\u{3FFFF}]';

const PAGE = 1000;

/**
 * Migration 15's work, as SQLite's migration 14 does it: the terms of every
 * memory whose text the analyzer now reads differently are written again
 * (the stored tsvector follows them), with the row's length in terms and the
 * BM25 statistics (term_df, fts_docs) moved from the old terms to the new;
 * the rows are logged in memory_log so every process's keyword copy reads
 * them again. Pages of rows keep memory flat on a large store.
 *
 * `progress` hears how many of the texts the pattern lets through were gone
 * through, a page at a time: counting them first costs one more pass over
 * the table, so it is made only for a listener.
 */
export async function reanalyzeTextsPg(c: pg.PoolClient, analyze: (text: string) => string[], needsIt: (text: string) => boolean, progress?: TextProgress): Promise<number> {
  let total = 0;
  if (progress) {
    const counted = await c.query<{ n: string }>('SELECT count(*) AS n FROM memories WHERE text ~ $1', [MAY_HAVE_CHANGED]);
    total = Number(counted.rows[0]!.n);
  }
  let told = false;
  const tell = (done: number): void => {
    if (!progress || total === 0) return;
    if (!told && done > 0) progress(0, total);
    told = true;
    progress(done, total);
  };
  tell(0);
  let after = 0;
  let seen = 0;
  let changed = 0;
  for (;;) {
    const page = await c.query<{ row_no: string; id: string; text: string; terms: string }>(
      'SELECT row_no, id, text, terms FROM memories WHERE row_no > $1 AND text ~ $2 ORDER BY row_no LIMIT $3',
      [after, MAY_HAVE_CHANGED, PAGE],
    );
    if (page.rows.length === 0) {
      // Rows an older process wrote or deleted since the count: the total follows what was met, and what was
      // deleted is done, so the last event still has done = total.
      total = Math.max(total, seen);
      tell(total);
      return changed;
    }
    after = Number(page.rows[page.rows.length - 1]!.row_no);
    seen += page.rows.length;
    total = Math.max(total, seen);
    const redo: { row: string; id: string; terms: string; len: number }[] = [];
    for (const r of page.rows) {
      if (!needsIt(r.text)) continue;
      const terms = analyze(r.text);
      const joined = terms.join(' ');
      if (joined !== r.terms) redo.push({ row: r.row_no, id: r.id, terms: joined, len: terms.length });
    }
    // The last page is told once, by the end above.
    if (redo.length === 0) {
      if (seen < total) tell(seen);
      continue;
    }
    const ids = redo.map((r) => r.id);
    await removeFromTermStats(c, ids);
    await c.query('UPDATE memories m SET terms = u.terms, doc_len = u.len FROM unnest($1::text[], $2::text[], $3::int[]) AS u(id, terms, len) WHERE m.id = u.id', [
      ids,
      redo.map((r) => r.terms),
      redo.map((r) => r.len),
    ]);
    await addToTermStats(c, ids);
    // memory_log's seqs are drawn under the audit chain head lock, as its triggers do (migration 9).
    await c.query('SELECT 1 FROM audit_head WHERE one FOR UPDATE');
    await c.query('INSERT INTO memory_log (memory_row) SELECT unnest($1::bigint[])', [redo.map((r) => r.row)]);
    changed += redo.length;
    if (seen < total) tell(seen);
  }
}
