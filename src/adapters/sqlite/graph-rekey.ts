import type Database from 'better-sqlite3';
import { graphKeyMoves } from '../sql/graph-norms.ts';

/**
 * SQLite migration 17: graph name keys computed again, keeping the marks of scripts other than Latin and Greek
 * (sql/graph-norms.ts). The evidence and entities are read once; evidence rows are updated by rowid, since
 * graph_evidence has no index on mention.
 */
export function rekeyGraphNames(db: Database.Database): void {
  const mentions = db.prepare('SELECT DISTINCT mention, norm FROM graph_evidence WHERE mention IS NOT NULL').all() as { mention: string; norm: string | null }[];
  const entities = db.prepare('SELECT id, name, norm FROM graph_entities').all() as { id: string; name: string; norm: string }[];
  const seen = db.prepare('SELECT DISTINCT entity_id, mention FROM graph_evidence WHERE entity_id IS NOT NULL AND mention IS NOT NULL ORDER BY entity_id, mention').all() as { entity_id: string; mention: string }[];
  const moves = graphKeyMoves(mentions, entities, seen);
  if (moves.mentions.size > 0) {
    const rows = db.prepare('SELECT rowid AS r, mention FROM graph_evidence WHERE mention IS NOT NULL').all() as { r: number; mention: string }[];
    const setRow = db.prepare('UPDATE graph_evidence SET norm = ? WHERE rowid = ?');
    for (const row of rows) {
      const now = moves.mentions.get(row.mention);
      if (now !== undefined) setRow.run(now, row.r);
    }
  }
  const setEntity = db.prepare('UPDATE graph_entities SET norm = ? WHERE id = ?');
  for (const [id, norm] of moves.entities) setEntity.run(norm, id);
}
