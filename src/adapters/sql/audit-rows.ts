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
 * Folds a version's content writes, oldest first: the last hash wins (a
 * retirement records none), and the claims are those of the last write that
 * recorded any: the one that wrote the version.
 */
export function lastWrite(prev: RecordedWrite | undefined, hash: string | null, claims: string | null): RecordedWrite {
  return { hash, claims: claims ?? prev?.claims ?? null };
}
