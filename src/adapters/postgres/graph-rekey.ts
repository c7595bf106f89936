import type pg from 'pg';
import { graphKeyMoves } from '../sql/graph-norms.ts';

/** Keys written per statement: each evidence batch is one pass over graph_evidence (it has no index on mention). */
const BATCH = 20_000;

/**
 * PostgreSQL migration 18: as SQLite migration 17, graph name keys computed again (sql/graph-norms.ts). The
 * evidence and entities are read once and the new keys written in batches, one statement each: a query per
 * entity and an update per mention made the first open of a store with 20,000 such names take minutes.
 */
export async function rekeyGraphNamesPg(c: pg.PoolClient): Promise<void> {
  const mentions = await c.query<{ mention: string; norm: string | null }>('SELECT DISTINCT mention, norm FROM graph_evidence WHERE mention IS NOT NULL');
  const entities = await c.query<{ id: string; name: string; norm: string }>('SELECT id, name, norm FROM graph_entities');
  const seen = await c.query<{ entity_id: string; mention: string }>(
    'SELECT DISTINCT entity_id, mention FROM graph_evidence WHERE entity_id IS NOT NULL AND mention IS NOT NULL ORDER BY entity_id, mention',
  );
  const moves = graphKeyMoves(mentions.rows, entities.rows, seen.rows);
  const mentionMoves = [...moves.mentions];
  for (let i = 0; i < mentionMoves.length; i += BATCH) {
    const part = mentionMoves.slice(i, i + BATCH);
    await c.query('UPDATE graph_evidence e SET norm = u.norm FROM unnest($1::text[], $2::text[]) AS u(mention, norm) WHERE e.mention = u.mention', [
      part.map(([m]) => m),
      part.map(([, n]) => n),
    ]);
  }
  const entityMoves = [...moves.entities];
  for (let i = 0; i < entityMoves.length; i += BATCH) {
    const part = entityMoves.slice(i, i + BATCH);
    await c.query('UPDATE graph_entities g SET norm = u.norm FROM unnest($1::text[], $2::text[]) AS u(id, norm) WHERE g.id = u.id', [part.map(([id]) => id), part.map(([, n]) => n)]);
  }
}
