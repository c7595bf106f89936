import type { AuditEntry } from '../../domain/audit.ts';

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
