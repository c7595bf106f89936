import type Database from 'better-sqlite3';
import type { TextProgress } from '../../ports/migration-progress.ts';

/** Texts between two progress reports: often enough for a line on a terminal, rare enough to cost nothing. */
export const PROGRESS_EVERY = 1000;

/**
 * Migration 14's work: the full-text terms of every memory whose text the
 * analyzer now reads differently (`needsIt`: Chinese, Japanese, Korean or
 * Thai, cut into characters and pairs since analyzer @2; Turkish İ) are
 * written again, with the row's length in terms, and the rows are logged in
 * memory_log so every process's keyword copy reads them again. Other texts'
 * terms did not change and are not touched, so a store in English upgrades
 * in one pass over its texts. `progress` hears how many of the changed
 * texts are written (0 first, the total last).
 */
export function reanalyzeTexts(db: Database.Database, analyze: (text: string) => string[], needsIt: (text: string) => boolean, progress?: TextProgress): number {
  // Collected first: better-sqlite3 allows no write while a read statement is still iterating.
  const changed: { rowid: number; text: string }[] = [];
  for (const r of db.prepare('SELECT rowid, text FROM memories').iterate() as IterableIterator<{ rowid: number; text: string }>) {
    if (needsIt(r.text)) changed.push(r);
  }
  if (changed.length === 0) return 0;
  const indexed = db.prepare('SELECT count(*) AS n FROM memories_fts WHERE rowid = ?');
  const drop = db.prepare('DELETE FROM memories_fts WHERE rowid = ?');
  const put = db.prepare('INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)');
  const length = db.prepare('UPDATE memories SET doc_len = ? WHERE rowid = ?');
  const log = db.prepare('INSERT INTO memory_log (memory_rowid) VALUES (?)');
  progress?.(0, changed.length);
  let done = 0;
  for (const r of changed) {
    const terms = analyze(r.text);
    length.run(terms.length, r.rowid);
    // A row the index does not hold stays out of it (the writer indexes every row it stores; this keeps that as it was).
    if ((indexed.get(r.rowid) as { n: number }).n > 0) {
      drop.run(r.rowid);
      put.run(r.rowid, terms.join(' '));
    }
    log.run(r.rowid);
    if (++done % PROGRESS_EVERY === 0 && done < changed.length) progress?.(done, changed.length);
  }
  progress?.(changed.length, changed.length);
  return changed.length;
}
