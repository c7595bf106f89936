import type pg from 'pg';
import { removeFromTermStats } from './fts.ts';

/**
 * A place that holds a memory's text or data derived from it (the PostgreSQL
 * twin of sqlite/places.ts). Forget removes a memory from every place in one
 * transaction and its preview counts them, so a new index (vectors, graph
 * links) joins forget by adding a place, not by patching forget.
 */
export interface PgPlace {
  name: string;
  count(c: pg.Pool | pg.PoolClient, versionIds: string[], lineageId: string): Promise<number>;
  remove(c: pg.PoolClient, versionIds: string[], lineageId: string): Promise<void>;
  /** A version was replaced by one read under another scope (see sqlite/places.ts). */
  rescoped?(c: pg.PoolClient, lineageId: string): Promise<void>;
}

async function n(c: pg.Pool | pg.PoolClient, text: string, values: unknown[]): Promise<number> {
  return Number((await c.query<{ n: number }>(text, values)).rows[0]?.n ?? 0);
}

export function corePgPlaces(): PgPlace[] {
  return [
    {
      // The tsvector lives in the row itself; it is counted apart so the preview names every index.
      name: 'full_text_index',
      count: (c, ids) => n(c, "SELECT count(*) AS n FROM memories WHERE id = ANY($1::text[]) AND tsv <> ''::tsvector", [ids]),
      remove: async (c, ids) => {
        await removeFromTermStats(c, ids);
        await c.query("UPDATE memories SET terms = '' WHERE id = ANY($1::text[])", [ids]);
      },
    },
    {
      // Edit previews hold proposed new text; they must go with the memory.
      name: 'pending_changes',
      count: (c, _ids, lineageId) => n(c, 'SELECT count(*) AS n FROM pending_changes WHERE subject_id = $1', [lineageId]),
      remove: async (c, _ids, lineageId) => void (await c.query('DELETE FROM pending_changes WHERE subject_id = $1', [lineageId])),
    },
  ];
}

/** The rows themselves go last, after every place that refers to them. */
export function memoriesPgPlace(): PgPlace {
  return {
    name: 'memories',
    count: async (_c, ids) => ids.length,
    remove: async (c, _ids, lineageId) => void (await c.query('DELETE FROM memories WHERE lineage_id = $1', [lineageId])),
  };
}
