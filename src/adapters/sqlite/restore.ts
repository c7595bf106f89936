import type Database from 'better-sqlite3';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toMs, toMsOrNull } from '../../domain/time.ts';
import type { AuditDraft } from '../../domain/audit.ts';
import type { RestoreRecord, SnapshotReads, WriteResult } from '../../ports/store.ts';
import { rowToFact, rowToPending } from '../sql/rows.ts';
import {
  activeKeyTaken,
  assertMayRestore,
  factsPageSql,
  heldElsewhere,
  pendingPageSql,
  restoreAudit,
  restoreId,
  tombstoneIdsSql,
  tombstoneOverHeld,
  tombstonesOf,
  tombstonesPageSql,
  tombstoneSourcesSql,
} from '../sql/restore-rows.ts';

type Row = Record<string, unknown>;

/** The ledger and tombstone pages of an export, read on `db` (the snapshot's connection, inside its read transaction). */
export function sqliteSnapshotReads(db: Database.Database): SnapshotReads {
  // readScope validates the principal; only the owner's export carries these (a guest's holds memories alone).
  const ownerOnly = (p: Principal): boolean => {
    readScope(p);
    return p.role === 'owner';
  };
  return {
    async ledgerFacts(p, afterId, limit) {
      return ownerOnly(p) ? (db.prepare(factsPageSql('')).all(p.namespace, afterId ?? '', limit) as Row[]).map(rowToFact) : [];
    },
    async ledgerPending(p, afterId, limit) {
      return ownerOnly(p) ? (db.prepare(pendingPageSql('')).all(p.namespace, afterId ?? '', limit) as Row[]).map(rowToPending) : [];
    },
    async tombstones(p, afterLineageId, limit) {
      if (!ownerOnly(p)) return [];
      const rows = db.prepare(tombstonesPageSql('')).all(p.namespace, afterLineageId ?? '', limit) as Row[];
      if (rows.length === 0) return [];
      const lineages = rows.map((r) => r.lineage_id);
      const ids = db.prepare(tombstoneIdsSql(lineages.length)).all(...lineages) as Row[];
      const sources = db.prepare(tombstoneSourcesSql(lineages.length)).all(p.namespace, ...lineages) as Row[];
      return tombstonesOf(rows, ids, sources);
    },
  };
}

/**
 * Restores one export record in the writer's transaction (sqlite/write.ts);
 * `audit` appends to the batch's chain. A record the store already holds
 * under its id is left as the store has it.
 */
export function restoreSqlite(db: Database.Database, p: Principal, r: RestoreRecord, audit: (d: AuditDraft) => void): WriteResult {
  assertMayRestore(p, r);
  const id = restoreId(r);
  // Held here already: left as this store has it (it may have moved on since the export), unless another namespace holds it.
  const keep = (held: { namespace: string }): WriteResult => {
    if (held.namespace !== p.namespace) throw heldElsewhere(r);
    return { kind: 'restore', what: r.what, id, status: 'unchanged' };
  };
  if (r.what === 'ledger_fact') {
    const held = db.prepare('SELECT namespace FROM ledger_facts WHERE id = ?').get(id) as { namespace: string } | undefined;
    if (held) return keep(held);
    const f = r.fact;
    try {
      db.prepare(
        'INSERT INTO ledger_facts (id, namespace, owner_id, agent_id, visibility, key, value, statement, category, confidence, mentions, source, status, valid_from, valid_until, superseded_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
      ).run(f.id, p.namespace, f.ownerId, f.agentId, f.visibility, f.key, f.value, f.statement, f.category, f.confidence, f.mentions, f.source, f.status, toMs(f.validFrom), toMsOrNull(f.validUntil), f.supersededBy, toMs(f.updatedAt));
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw activeKeyTaken(f.key, err);
      throw err;
    }
  } else if (r.what === 'ledger_pending') {
    const held = db.prepare('SELECT namespace FROM ledger_pending WHERE id = ?').get(id) as { namespace: string } | undefined;
    if (held) return keep(held);
    const q = r.pending;
    db.prepare('INSERT INTO ledger_pending (id, namespace, key, target_id, proposed, proposer, created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)').run(
      q.id, p.namespace, q.key, q.targetId, JSON.stringify(q.proposed), q.proposer, toMs(q.createdAt), q.status,
    );
  } else {
    const held = db.prepare('SELECT namespace FROM tombstones WHERE lineage_id = ?').get(id) as { namespace: string } | undefined;
    if (held) return keep(held);
    const t = r.tombstone;
    for (const vid of t.forgottenIds) {
      if (db.prepare('SELECT 1 FROM memories WHERE id = ?').get(vid) !== undefined) throw tombstoneOverHeld(t, vid);
      if (db.prepare('SELECT 1 FROM tombstone_ids WHERE id = ?').get(vid) !== undefined) throw heldElsewhere(r);
    }
    db.prepare('INSERT INTO tombstones (lineage_id, namespace, owner_id, agent_id, visibility, version_ids, content_hash, forgotten_at, actor, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').run(
      t.lineageId, p.namespace, t.ownerId, t.agentId, t.visibility, JSON.stringify(t.versionIds), t.contentHash, t.forgottenAt, t.actor, t.reason,
    );
    const mark = db.prepare('INSERT INTO tombstone_ids (id, lineage_id) VALUES (?, ?)');
    for (const vid of t.forgottenIds) mark.run(vid, t.lineageId);
    const source = db.prepare('INSERT OR IGNORE INTO tombstone_sources (namespace, owner_id, source_digest, content_hash, lineage_id) VALUES (?, ?, ?, ?, ?)');
    for (const s of t.sources) source.run(p.namespace, s.ownerId, s.sourceDigest, s.contentHash, t.lineageId);
  }
  audit(restoreAudit(r));
  return { kind: 'restore', what: r.what, id, status: 'created' };
}
