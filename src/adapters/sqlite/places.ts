import type Database from 'better-sqlite3';

/**
 * A place that holds a memory's text or data derived from it. Forget removes
 * a memory from every registered place in one transaction, and its preview
 * counts them, so adding a new index (vectors, graph links) means adding a
 * place here, not remembering to patch forget.
 */
export interface DerivedPlace {
  name: string;
  count(rowids: number[], versionIds: string[], lineageId: string): number;
  remove(rowids: number[], versionIds: string[], lineageId: string): void;
  /**
   * A lineage's new version is read under another scope than the one it replaces (its visibility changed): what the
   * place derived from the older versions goes now, not when the new one is next indexed, as it carries the old scope.
   */
  rescoped?(lineageId: string): void;
}

export function corePlaces(db: Database.Database): DerivedPlace[] {
  const ftsHas = db.prepare('SELECT count(*) AS n FROM memories_fts WHERE rowid = ?');
  const ftsDelete = db.prepare('DELETE FROM memories_fts WHERE rowid = ?');
  const pendingCount = db.prepare('SELECT count(*) AS n FROM pending_changes WHERE subject_id = ?');
  const pendingDelete = db.prepare('DELETE FROM pending_changes WHERE subject_id = ?');
  return [
    {
      name: 'full_text_index',
      count: (rowids) => rowids.reduce((n, r) => n + (ftsHas.get(r) as { n: number }).n, 0),
      remove: (rowids) => {
        for (const r of rowids) ftsDelete.run(r);
      },
    },
    {
      // Edit previews hold proposed new text; they must go with the memory.
      name: 'pending_changes',
      count: (_r, _ids, lineageId) => (pendingCount.get(lineageId) as { n: number }).n,
      remove: (_r, _ids, lineageId) => {
        pendingDelete.run(lineageId);
      },
    },
  ];
}

/** The rows themselves go last, after every place that refers to them. */
export function memoriesPlace(db: Database.Database): DerivedPlace {
  const del = db.prepare('DELETE FROM memories WHERE lineage_id = ?');
  return { name: 'memories', count: (rowids) => rowids.length, remove: (_r, _ids, lineageId) => void del.run(lineageId) };
}
