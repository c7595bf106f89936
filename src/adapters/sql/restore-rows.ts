import { MnemosError } from '../../domain/errors.ts';
import { sha256Hex } from '../../domain/hash.ts';
import type { AuditDraft } from '../../domain/audit.ts';
import type { RestoreRecord, StoredTombstone } from '../../ports/store.ts';

/**
 * What both SQL adapters share to carry the ledger and the tombstones
 * through an export and back (services/export-records.ts): the page queries
 * (`?` placeholders; `collate` orders ids bytewise on PostgreSQL, as SQLite
 * does by default, so both stores write one file), the row mapping, and the
 * rules of a restore.
 */
export const factsPageSql = (collate: string) => `SELECT * FROM ledger_facts WHERE namespace = ? AND id${collate} > ? ORDER BY id${collate} LIMIT ?`;
export const pendingPageSql = (collate: string) => `SELECT * FROM ledger_pending WHERE namespace = ? AND id${collate} > ? ORDER BY id${collate} LIMIT ?`;
export const tombstonesPageSql = (collate: string) => `SELECT * FROM tombstones WHERE namespace = ? AND lineage_id${collate} > ? ORDER BY lineage_id${collate} LIMIT ?`;
export const tombstoneIdsSql = (n: number) => `SELECT id, lineage_id FROM tombstone_ids WHERE lineage_id IN (${marks(n)})`;
export const tombstoneSourcesSql = (n: number) => `SELECT owner_id, source_digest, content_hash, lineage_id FROM tombstone_sources WHERE namespace = ? AND lineage_id IN (${marks(n)})`;
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

type Row = Record<string, unknown>;

/** Code-unit order, as SQLite's BINARY collation and PostgreSQL's "C" compare ids. */
const byCodeUnits = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);


/** A page of tombstones rows with their held ids and source digests, each list in one order on both backends. */
export function tombstonesOf(rows: Row[], ids: Row[], sources: Row[]): StoredTombstone[] {
  return rows.map((t) => {
    const lineage = t.lineage_id as string;
    return {
      lineageId: lineage,
      namespace: t.namespace as string,
      ownerId: t.owner_id as string,
      agentId: (t.agent_id as string | null) ?? null,
      visibility: t.visibility as string,
      versionIds: JSON.parse(t.version_ids as string) as string[],
      forgottenIds: ids.filter((i) => i.lineage_id === lineage).map((i) => i.id as string).sort(byCodeUnits),
      contentHash: t.content_hash as string,
      forgottenAt: t.forgotten_at as string,
      actor: t.actor as string,
      reason: t.reason as string,
      sources: sources
        .filter((s) => s.lineage_id === lineage)
        .map((s) => ({ ownerId: s.owner_id as string, sourceDigest: s.source_digest as string, contentHash: s.content_hash as string }))
        .sort((a, b) => byCodeUnits(a.ownerId, b.ownerId) || byCodeUnits(a.sourceDigest, b.sourceDigest) || byCodeUnits(a.contentHash, b.contentHash)),
    };
  });
}

/** The id a restore is known by (a tombstone's lineage). */
export function restoreId(r: RestoreRecord): string {
  return r.what === 'ledger_fact' ? r.fact.id : r.what === 'ledger_pending' ? r.pending.id : r.tombstone.lineageId;
}

/** The namespace a restore writes into: the caller's, and only its owner restores. */
export function assertMayRestore(p: { role: string; namespace: string }, r: RestoreRecord): void {
  if (p.role !== 'owner') throw new MnemosError('forbidden', "only the namespace's owner may restore ledger facts, pending changes and tombstones", { field: 'record' });
  const ns = r.what === 'ledger_fact' ? r.fact.namespace : r.what === 'tombstone' ? r.tombstone.namespace : p.namespace;
  if (ns !== p.namespace) throw new MnemosError('forbidden', `a restored ${r.what} must belong to the caller's namespace`, { id: restoreId(r) });
}

/** An id the store holds under another namespace: restoring would take it over. */
export function heldElsewhere(r: RestoreRecord): MnemosError {
  return new MnemosError('conflict', `${r.what} ${restoreId(r)} already exists in another namespace; nothing of the file was written`, { id: restoreId(r) });
}

/** A tombstone listing a version this store holds: restoring it would call a stored memory forgotten. */
export function tombstoneOverHeld(t: StoredTombstone, id: string): MnemosError {
  return new MnemosError('conflict', `the tombstone of ${t.lineageId} lists version ${id} as forgotten, and this store holds ${id}; forget it here first, or import without that line`, { id: t.lineageId, heldId: id });
}

export function activeKeyTaken(key: string, cause: unknown): MnemosError {
  return new MnemosError('conflict', `another active ledger fact already holds "${key}" in this store; retire it here or restore into an empty store`, { key }, { cause });
}

/** The audit entry of a restore: pins as `pin` entries, a tombstone as the `forget` entry the original store wrote, marked restored. No text. */
export function restoreAudit(r: RestoreRecord): AuditDraft {
  if (r.what === 'ledger_fact') {
    const f = r.fact;
    return { action: 'pin', memoryId: f.id, beforeHash: null, afterHash: sha256Hex(f.value), details: { op: 'restore', key: f.key, source: f.source, status: f.status, confidence: f.confidence } };
  }
  if (r.what === 'ledger_pending') {
    const q = r.pending;
    return { action: 'pin', memoryId: q.id, beforeHash: null, afterHash: sha256Hex(q.proposed.value), details: { op: 'restore', key: q.key, target: q.targetId, status: q.status } };
  }
  const t = r.tombstone;
  return { action: 'forget', memoryId: t.lineageId, beforeHash: t.contentHash, afterHash: null, details: { restored: true, reason: t.reason, versionIds: t.versionIds, forgottenAt: t.forgottenAt, actor: t.actor } };
}
