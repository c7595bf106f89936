import type { KeywordRows } from '../keyword-index.ts';
import type { SqlPart } from '../sql/scope-sql.ts';
import type { StatementCache } from './statements.ts';

/**
 * SQLite's side of the keyword copy (adapters/keyword-index.ts): the
 * memory_log table (the writer logs each batch's new rows in one statement,
 * a trigger logs deletions), the rows' text, and the scope-and-filter SQL
 * check of candidates, driven by the candidates (CROSS JOIN pins the order,
 * as on the vector path).
 */
export function sqliteKeywordRows(statements: StatementCache): KeywordRows {
  return {
    logHead: async () => (statements.get('SELECT coalesce(max(seq), 0) AS s FROM memory_log').get() as { s: number }).s,
    logTail: async () => (statements.get('SELECT coalesce(min(seq), 0) AS s FROM memory_log').get() as { s: number }).s,
    changedSince: async (after, upTo) =>
      (statements.get('SELECT DISTINCT memory_rowid AS r FROM memory_log WHERE seq > ? AND seq <= ?').all(after, upTo) as { r: number }[]).map((x) => x.r),
    texts: async (rowids) => {
      const text = statements.get('SELECT text FROM memories WHERE rowid = ?');
      const out = new Map<number, string>();
      statements.readTogether(() => {
        for (const r of rowids) {
          const row = text.get(r) as { text: string } | undefined;
          if (row) out.set(r, row.text);
        }
      });
      return out;
    },
    rowCount: async () => (statements.get('SELECT count(*) AS n FROM memories').get() as { n: number }).n,
    page: async (after, limit) =>
      (statements.get('SELECT rowid, text FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?').all(after, limit) as { rowid: number; text: string }[]),
    admitted: async (w: SqlPart, rowids) => {
      const rows = statements
        .get(`SELECT m.rowid AS r, m.id AS id FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value WHERE ${w.sql}`)
        .all(JSON.stringify(rowids), ...w.params) as { r: number; id: string }[];
      return new Map(rows.map((r) => [r.r, r.id]));
    },
  };
}
