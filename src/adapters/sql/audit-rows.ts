import type { AuditEntry } from '../../domain/audit.ts';
import type { RecordedWrite } from '../../ports/store.ts';

/** Maps an audit_log row (same columns in every SQL adapter) to an entry. */
export function rowToAudit(r: Record<string, unknown>): AuditEntry {
  return {
    seq: Number(r.seq),
    at: r.at as string,
    actor: r.actor as string,
    namespace: r.namespace as string,
    action: r.action as AuditEntry['action'],
    memoryId: (r.memory_id as string | null) ?? null,
    beforeHash: (r.before_hash as string | null) ?? null,
    afterHash: (r.after_hash as string | null) ?? null,
    details: JSON.parse(r.details as string),
    prevHash: r.prev_hash as string,
    hash: r.hash as string,
  };
}

/**
 * Folds a version's content writes, oldest first, into what it was written
 * with: the last write's hash and claims. A closing (a retirement: its
 * chunk vanished from the file) records no after-hash and leaves the text as
 * it was; taking its null for the hash made `audit verify` report every
 * retired chunk as tampered with.
 */
export function lastWrite(prev: RecordedWrite | undefined, hash: string | null, claims: string | null): RecordedWrite {
  return { hash: hash ?? prev?.hash ?? null, claims: claims ?? prev?.claims ?? null };
}
