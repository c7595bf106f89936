import type { Memory } from '../../domain/memory.ts';
import { assertStorableText } from '../../domain/unicode.ts';
import { toIso, toIsoOrNull, toMs, toMsOrNull } from '../../domain/time.ts';
import type { Tombstone } from '../../ports/store.ts';
import type { LedgerFact } from '../../lifecycle/ledger-rules.ts';
import type { LedgerPending } from '../../ports/lifecycle.ts';

/** Column order of the memories table, shared by insert and select. */
export const MEMORY_COLUMNS = [
  'id', 'lineage_id', 'version', 'text', 'content_hash', 'type', 'importance', 'access_count', 'last_accessed_at',
  'emotional_valence', 'salience', 'lifecycle', 'valid_from', 'valid_to', 'recorded_at', 'superseded_at', 'superseded_by',
  'origin', 'source', 'source_key', 'namespace', 'owner_id', 'agent_id', 'session_id', 'visibility', 'labels', 'read_only',
  'tags', 'metadata', 'expires_at', 'doc_len',
] as const;

export type MemoryRow = Record<(typeof MEMORY_COLUMNS)[number], unknown> & { rowid?: number };

export function memoryToRow(m: Memory, docLen: number): unknown[] {
  // The last guard of every path into the table (inputs, imports, the cycle): a
  // text column would store U+FFFD for a lone surrogate, and PostgreSQL refuses
  // NUL; tags and labels are JSONB there, which refuses both. Metadata and
  // source are stored as JSON text, which escapes them.
  assertStorableText(m.text, 'text');
  assertStorableText(m.sourceKey, 'key');
  assertStorableText(m.sessionId, 'sessionId');
  assertStorableText(m.agentId, 'agentId');
  for (const t of m.tags) assertStorableText(t, 'tags');
  for (const l of m.labels) assertStorableText(l, 'labels');
  return [
    m.id, m.lineageId, m.version, m.text, m.contentHash, m.type, m.importance, m.accessCount, toMsOrNull(m.lastAccessedAt),
    m.emotionalValence, m.salience, m.lifecycle, toMs(m.validFrom), toMsOrNull(m.validTo), toMs(m.recordedAt),
    toMsOrNull(m.supersededAt), m.supersededBy, m.origin, JSON.stringify(m.source), m.sourceKey, m.namespace, m.ownerId,
    m.agentId, m.sessionId, m.visibility, JSON.stringify(m.labels), m.readOnly ? 1 : 0, JSON.stringify(m.tags),
    JSON.stringify(m.metadata), toMsOrNull(m.expiresAt), docLen,
  ];
}

/**
 * When a replaced version stops being current in transaction time: the
 * instant its successor was recorded, so "as known at" any time sees exactly
 * one of the two. (The writer's own clock, read a moment later, left a
 * millisecond in which both were current.) Never before the old version's own
 * recording, whatever clock the caller injected.
 */
/**
 * When a retired version stops being current: the caller's time (an import
 * retires a vanished chunk at its own, injectable clock, as it supersedes the
 * changed ones), else the batch's; never before the version was recorded.
 * The wall clock left a retired chunk current "as known at" the import's time.
 */
export function retiredAt(m: Pick<Memory, 'recordedAt'>, at: string | undefined, batchNow: number): number {
  return Math.max(at !== undefined ? toMs(at) : batchNow, toMs(m.recordedAt));
}

export function supersededAtMs(prev: Pick<Memory, 'recordedAt'>, next: Pick<Memory, 'recordedAt'>): number {
  return Math.max(toMs(next.recordedAt), toMs(prev.recordedAt));
}

export function rowToMemory(r: MemoryRow): Memory {
  return {
    id: r.id as string,
    lineageId: r.lineage_id as string,
    version: r.version as number,
    text: r.text as string,
    contentHash: r.content_hash as string,
    type: r.type as Memory['type'],
    importance: r.importance as number,
    accessCount: r.access_count as number,
    lastAccessedAt: toIsoOrNull(r.last_accessed_at as number | null),
    emotionalValence: r.emotional_valence as number,
    salience: r.salience as number,
    lifecycle: r.lifecycle as Memory['lifecycle'],
    validFrom: toIso(r.valid_from as number),
    validTo: toIsoOrNull(r.valid_to as number | null),
    recordedAt: toIso(r.recorded_at as number),
    supersededAt: toIsoOrNull(r.superseded_at as number | null),
    supersededBy: (r.superseded_by as string | null) ?? null,
    origin: r.origin as Memory['origin'],
    source: JSON.parse(r.source as string),
    sourceKey: (r.source_key as string | null) ?? null,
    namespace: r.namespace as string,
    ownerId: r.owner_id as string,
    agentId: (r.agent_id as string | null) ?? null,
    sessionId: (r.session_id as string | null) ?? null,
    visibility: r.visibility as Memory['visibility'],
    labels: JSON.parse(r.labels as string),
    readOnly: r.read_only === 1,
    tags: JSON.parse(r.tags as string),
    metadata: JSON.parse(r.metadata as string),
    expiresAt: toIsoOrNull(r.expires_at as number | null),
  };
}

/** A tombstones row as both SQL backends store it (version ids as a JSON array). */
export function rowToTombstone(row: Record<string, string>): Tombstone {
  return {
    lineageId: row.lineage_id!,
    versionIds: JSON.parse(row.version_ids!),
    contentHash: row.content_hash!,
    forgottenAt: row.forgotten_at!,
    actor: row.actor!,
    reason: row.reason!,
  };
}

/** A ledger row as both SQL backends return it (times as epoch milliseconds). */
export function rowToFact(r: Record<string, unknown>): LedgerFact {
  return {
    id: r.id as string,
    key: r.key as string,
    value: r.value as string,
    statement: r.statement as string,
    category: r.category as LedgerFact['category'],
    confidence: r.confidence as number,
    mentions: r.mentions as number,
    source: r.source as LedgerFact['source'],
    status: r.status as LedgerFact['status'],
    validFrom: toIso(r.valid_from as number),
    validUntil: toIsoOrNull(r.valid_until as number | null),
    supersededBy: (r.superseded_by as string | null) ?? null,
    updatedAt: toIso(r.updated_at as number),
    namespace: r.namespace as string,
    ownerId: r.owner_id as string,
    agentId: (r.agent_id as string | null) ?? null,
    visibility: r.visibility as LedgerFact['visibility'],
  };
}

/** A ledger_pending row as the port's LedgerPending (both backends; created_at is epoch ms, a string from pg's bigint). */
export function rowToPending(r: Record<string, unknown>): LedgerPending {
  return {
    id: r.id as string,
    key: r.key as string,
    targetId: r.target_id as string,
    proposed: JSON.parse(r.proposed as string),
    proposer: r.proposer as string,
    createdAt: toIso(Number(r.created_at)),
    status: r.status as LedgerPending['status'],
  };
}
