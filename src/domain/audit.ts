import { canonicalJson, sha256Hex } from './hash.ts';

/**
 * The audit log: append-only and hash-chained. Each entry commits to the one
 * before it, so editing, inserting or deleting a row anywhere breaks the chain
 * from that point on. Entries never hold memory text, only content hashes, so
 * forgetting a memory leaves its tombstone here without keeping what it said.
 */

export const AUDIT_ACTIONS = [
  'create',
  'update',
  'supersede',
  'lifecycle',
  'forget',
  'purge',
  'pin',
  'merge',
  'consolidate',
  'token',
  'safety_block',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Actions whose `afterHash` is the content a memory version was written with (what `audit verify` checks a memory against). */
export const CONTENT_WRITES: readonly AuditAction[] = ['create', 'update', 'supersede', 'merge'];

export interface AuditDraft {
  action: AuditAction;
  memoryId: string | null;
  beforeHash: string | null;
  afterHash: string | null;
  /** Small, text-free facts about the change (reason, version, counts). */
  details: Record<string, unknown>;
}

export interface AuditEntry extends AuditDraft {
  seq: number;
  at: string;
  /** `role:id` of the principal that made the change. */
  actor: string;
  namespace: string;
  prevHash: string;
  hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

export function auditEntryHash(e: Omit<AuditEntry, 'hash'>): string {
  const body = canonicalJson({
    seq: e.seq,
    at: e.at,
    actor: e.actor,
    namespace: e.namespace,
    action: e.action,
    memoryId: e.memoryId,
    beforeHash: e.beforeHash,
    afterHash: e.afterHash,
    details: e.details,
  });
  return sha256Hex(`${e.prevHash}\n${body}`);
}

export function chainEntry(prev: { seq: number; hash: string } | null, draft: AuditDraft, meta: { at: string; actor: string; namespace: string }): AuditEntry {
  // One literal, no spreads: every write makes one of these per change, and spread copies were several times larger.
  const entry: AuditEntry = {
    action: draft.action,
    memoryId: draft.memoryId,
    beforeHash: draft.beforeHash,
    afterHash: draft.afterHash,
    details: draft.details,
    at: meta.at,
    actor: meta.actor,
    namespace: meta.namespace,
    seq: prev ? prev.seq + 1 : 1,
    prevHash: prev ? prev.hash : GENESIS_HASH,
    hash: '',
  };
  entry.hash = auditEntryHash(entry);
  return entry;
}

export interface ChainProblem {
  seq: number;
  /** head_missing: a head remembered from an earlier check is gone (audit-verify.ts). */
  problem: 'hash_mismatch' | 'broken_link' | 'sequence_gap' | 'head_missing';
  message: string;
}

/**
 * Checks a run of entries in sequence order. `prev` is the entry before the
 * first one (null when the run starts at the genesis). Pure, so it can check a
 * chain page by page without holding it all in memory.
 */
export function verifyChainSegment(prev: { seq: number; hash: string } | null, entries: readonly AuditEntry[]): ChainProblem[] {
  const problems: ChainProblem[] = [];
  let last = prev;
  for (const e of entries) {
    const expectedSeq = last ? last.seq + 1 : 1;
    if (e.seq !== expectedSeq) problems.push({ seq: e.seq, problem: 'sequence_gap', message: `expected entry ${expectedSeq}, found ${e.seq} (entries deleted or inserted)` });
    const expectedPrev = last ? last.hash : GENESIS_HASH;
    if (e.prevHash !== expectedPrev) problems.push({ seq: e.seq, problem: 'broken_link', message: `entry ${e.seq} does not point at the hash of the entry before it` });
    if (auditEntryHash(e) !== e.hash) problems.push({ seq: e.seq, problem: 'hash_mismatch', message: `entry ${e.seq} was modified after it was written` });
    last = e;
  }
  return problems;
}

export function actorOf(p: { role: string; id: string }): string {
  return `${p.role}:${p.id}`;
}
