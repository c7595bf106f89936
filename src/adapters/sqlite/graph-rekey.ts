import type Database from 'better-sqlite3';
import { mayMove, movedEntityKey, movedMentionKey } from '../sql/graph-norms.ts';

/** SQLite migration 17: graph name keys computed again, keeping the marks of scripts other than Latin and Greek (sql/graph-norms.ts). */
export function rekeyGraphNames(db: Database.Database): void {
  const setMention = db.prepare('UPDATE graph_evidence SET norm = ? WHERE mention = ?');
  for (const r of db.prepare('SELECT DISTINCT mention, norm FROM graph_evidence WHERE mention IS NOT NULL').all() as { mention: string; norm: string | null }[]) {
    if (!mayMove(r.mention)) continue;
    const now = movedMentionKey(r.mention, r.norm);
    if (now !== null) setMention.run(now, r.mention);
  }
  const mentionsOf = db.prepare('SELECT DISTINCT mention FROM graph_evidence WHERE entity_id = ? AND mention IS NOT NULL').pluck();
  const setEntity = db.prepare('UPDATE graph_entities SET norm = ? WHERE id = ?');
  for (const e of db.prepare('SELECT id, name, norm FROM graph_entities').all() as { id: string; name: string; norm: string }[]) {
    if (!mayMove(e.norm)) continue;
    const now = movedEntityKey(e.norm, [e.name, ...(mentionsOf.all(e.id) as string[])]);
    if (now !== null) setEntity.run(now, e.id);
  }
}
