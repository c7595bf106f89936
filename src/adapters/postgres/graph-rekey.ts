import type pg from 'pg';
import { mayMove, movedEntityKey, movedMentionKey } from '../sql/graph-norms.ts';

/** PostgreSQL migration 18: as SQLite migration 17, graph name keys computed again (sql/graph-norms.ts). */
export async function rekeyGraphNamesPg(c: pg.PoolClient): Promise<void> {
  const mentions = await c.query<{ mention: string; norm: string | null }>('SELECT DISTINCT mention, norm FROM graph_evidence WHERE mention IS NOT NULL');
  for (const r of mentions.rows) {
    if (!mayMove(r.mention)) continue;
    const now = movedMentionKey(r.mention, r.norm);
    if (now !== null) await c.query('UPDATE graph_evidence SET norm = $1 WHERE mention = $2', [now, r.mention]);
  }
  const entities = await c.query<{ id: string; name: string; norm: string }>('SELECT id, name, norm FROM graph_entities');
  for (const e of entities.rows) {
    if (!mayMove(e.norm)) continue;
    const seen = await c.query<{ mention: string }>('SELECT DISTINCT mention FROM graph_evidence WHERE entity_id = $1 AND mention IS NOT NULL', [e.id]);
    const now = movedEntityKey(e.norm, [e.name, ...seen.rows.map((r) => r.mention)]);
    if (now !== null) await c.query('UPDATE graph_entities SET norm = $1 WHERE id = $2', [now, e.id]);
  }
}
