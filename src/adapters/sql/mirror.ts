import { MnemosError } from '../../domain/errors.ts';
import type { Memory } from '../../domain/memory.ts';
import { toMsOrNull } from '../../domain/time.ts';
import type { AuditDraft } from '../../domain/audit.ts';

/**
 * What a `mirror` op changes on a stored version so that it matches the same
 * version in another store (a copy run again after the source moved on):
 * only the state that changes in place (closing, lifecycle, importance,
 * access statistics), never its content. A version closed in the target but
 * current in the source is a different history, refused.
 */
export interface MirrorPlan {
  /** Column values, in the order of MIRROR_COLUMNS. */
  values: unknown[];
  audits: Omit<AuditDraft, 'memoryId'>[];
  changed: boolean;
}

export const MIRROR_COLUMNS = ['superseded_at', 'superseded_by', 'lifecycle', 'importance', 'access_count', 'last_accessed_at'] as const;

export function planMirror(target: Memory, source: Memory): MirrorPlan {
  if (target.contentHash !== source.contentHash || target.namespace !== source.namespace || target.lineageId !== source.lineageId) {
    throw new MnemosError('conflict', `a memory with id ${target.id} already exists with different content`, { id: target.id });
  }
  // Each store went on from this version its own way (a new version in each): copying the source's would leave two current ones.
  if (target.supersededAt !== null && (source.supersededAt === null || target.supersededBy !== source.supersededBy)) {
    throw new MnemosError('conflict', `memory ${target.id} was replaced differently in the target than in the source: the two stores' histories differ; copy into an empty store, or forget the target's later version first`, { id: target.id });
  }
  const audits: Omit<AuditDraft, 'memoryId'>[] = [];
  if (target.supersededAt === null && source.supersededAt !== null) {
    audits.push({ action: 'supersede', beforeHash: target.contentHash, afterHash: null, details: { lineageId: target.lineageId, reason: 'closed in the store it was copied from', supersededBy: source.supersededBy } });
  }
  if (target.lifecycle !== source.lifecycle || target.importance !== source.importance) {
    audits.push({ action: 'lifecycle', beforeHash: target.contentHash, afterHash: target.contentHash, details: { from: target.lifecycle, to: source.lifecycle, reason: 'as in the store it was copied from' } });
  }
  const changed =
    audits.length > 0 ||
    target.supersededBy !== source.supersededBy ||
    target.supersededAt !== source.supersededAt ||
    target.accessCount !== source.accessCount ||
    target.lastAccessedAt !== source.lastAccessedAt;
  return {
    values: [toMsOrNull(source.supersededAt), source.supersededBy, source.lifecycle, source.importance, source.accessCount, toMsOrNull(source.lastAccessedAt)],
    audits,
    changed,
  };
}
