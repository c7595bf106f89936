import type { KeywordRows } from '../keyword-index.ts';
import { sql } from '../sql/placeholders.ts';
import type { SqlPart } from '../sql/scope-sql.ts';

/** Runs one query built from parts (the store's `q`, with its retries). */
type Query = <T>(parts: (string | SqlPart)[]) => Promise<T[]>;

/**
 * PostgreSQL's side of the keyword copy (adapters/keyword-index.ts): the
 * memory_log table (statement-level triggers on memories, migration 9), the
 * rows' text by row number, and the store's scope-and-filter SQL on the
 * candidates (one round trip per check).
 */
export function pgKeywordRows(q: Query): KeywordRows {
  return {
    logHead: async () => Number((await q<{ s: string }>(['SELECT coalesce(max(seq), 0) AS s FROM memory_log']))[0]?.s ?? 0),
    logTail: async () => Number((await q<{ s: string }>(['SELECT coalesce(min(seq), 0) AS s FROM memory_log']))[0]?.s ?? 0),
    changedSince: async (after, upTo) =>
      (await q<{ r: string }>(['SELECT DISTINCT memory_row AS r FROM memory_log WHERE ', sql('seq > ? AND seq <= ?', after, upTo)])).map((x) => Number(x.r)),
    texts: async (rowids) => {
      if (rowids.length === 0) return new Map();
      const rows = await q<{ r: string; text: string }>(['SELECT row_no AS r, text FROM memories WHERE ', sql('row_no = ANY(?::bigint[])', rowids)]);
      return new Map(rows.map((x) => [Number(x.r), x.text]));
    },
    rowCount: async () => Number((await q<{ n: string }>(['SELECT count(*) AS n FROM memories']))[0]?.n ?? 0),
    page: async (after, limit) =>
      (await q<{ r: string; text: string }>(['SELECT row_no AS r, text FROM memories WHERE ', sql('row_no > ? ORDER BY row_no LIMIT ?', after, limit)])).map((x) => ({
        rowid: Number(x.r),
        text: x.text,
      })),
    admitted: async (w, rowids) => {
      const rows = await q<{ r: string; id: string }>(['SELECT m.row_no AS r, m.id FROM memories m WHERE ', sql('m.row_no = ANY(?::bigint[])', rowids), ' AND ', w]);
      return new Map(rows.map((x) => [Number(x.r), x.id]));
    },
  };
}
