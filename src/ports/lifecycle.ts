import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { LedgerFact } from '../lifecycle/ledger-rules.ts';

/**
 * Small ports of the memory lifecycle (issue 7), members of MemoryStore.
 * Every method takes the caller's Principal; adapters scope reads with the
 * same read rule as memories (adapters/sql/scope-sql.ts).
 */

export interface ScopeColumns {
  namespace: string;
  ownerId: string;
  agentId: string | null;
  visibility: 'owner' | 'shared' | 'public';
}

// ---- knowledge graph ----

export interface EntityRecord extends ScopeColumns {
  id: string;
  name: string;
  /** Normalised name used for resolution (lower-case, no honorific or punctuation). */
  norm: string;
  type: string;
  /** Other surface forms seen in the evidence. */
  aliases: string[];
  firstSeen: string;
  lastSeen: string;
  mentions: number;
}

export interface RelationRecord extends ScopeColumns {
  id: string;
  subjectId: string;
  predicate: string;
  objectId: string;
  /** Valid time: when it holds in the world. */
  validFrom: string;
  validTo: string | null;
  /** Transaction time: when the store learned it. */
  recordedAt: string;
  supersededBy: string | null;
  confidence: number;
}

export interface EvidenceRecord {
  entityId: string | null;
  relationId: string | null;
  lineageId: string;
  memoryId: string;
  /** The surface form in the memory (entity evidence); aliases are derived from it, so they go with it. */
  mention: string | null;
  norm: string | null;
}

/** One transaction of graph changes. */
export interface GraphWrite {
  upsertEntities: EntityRecord[];
  insertRelations: RelationRecord[];
  closeRelations: { id: string; validTo: string; supersededBy: string }[];
  evidence: EvidenceRecord[];
  /** Memories whose extraction is done (even when nothing was found), recorded under `rulesVersion`. */
  indexed: { memoryId: string; lineageId: string }[];
  /** The extraction rules version the `indexed` memories were extracted under (EXTRACTION_RULES_VERSION). */
  rulesVersion: number;
  /**
   * Memories indexed before whose extraction this write replaces (a re-index):
   * their evidence rows go first, the write's own come in, and then every
   * relation and entity left with no evidence from any memory goes, as after
   * a forget; entities that keep evidence are recounted. Other memories'
   * evidence is not touched.
   */
  replaces?: { memoryId: string; lineageId: string }[];
  /**
   * A slice of a rebuild (`graph reindex --all`): each entity is written as
   * given, name key and sightings included, not merged with the stored row,
   * and an entity the replaced evidence leaves with some evidence is not
   * recounted from it. The rebuild found every entity afresh, so its counts
   * are the true ones; the stored evidence still pointing at an entity is
   * the old extraction's, going slice by slice (and recounting a name met
   * thousands of times at every slice made the rebuild 3-4x a fresh index).
   */
  rebuild?: boolean;
}

/** What a write removed of the graph the `replaces` memories had held up. */
export interface GraphWriteResult {
  /** Evidence rows of entities (mentions) that went with the replaced extraction. */
  mentionsRemoved: number;
  entitiesRemoved: number;
  relationsRemoved: number;
}

/** Which memories count as stale: indexed under rules older than `rulesVersion`, or (`all`) every indexed one. */
export interface StaleQuery {
  rulesVersion: number;
  all: boolean;
}

/** Entity evidence of some memories, against the entity's evidence from every other memory. */
export interface EvidenceSplit {
  entityId: string;
  /** Evidence rows from the memories asked about. */
  here: number;
  /** Evidence rows from any other memory. */
  elsewhere: number;
}

export interface GraphStore {
  /** Visible entities whose normalised name or any alias norm is in `norms`. */
  findEntities(p: Principal, norms: string[]): Promise<EntityRecord[]>;
  /** Every visible entity (resolution cache of a run; owner sees the namespace). */
  allEntities(p: Principal): Promise<EntityRecord[]>;
  entity(p: Principal, id: string): Promise<EntityRecord | null>;
  /** Visible relations touching these entities, open and closed. */
  relationsOf(p: Principal, entityIds: string[]): Promise<RelationRecord[]>;
  /** Lineages evidencing these entities/relations (the caller still filters memories by the read rule). */
  evidenceLineages(p: Principal, entityIds: string[], relationIds?: string[]): Promise<string[]>;
  /** Current memory versions not yet extracted, oldest first. */
  unindexed(p: Principal, limit: number): Promise<string[]>;
  /**
   * Current memory versions (not archived or expired, as `unindexed`) that are
   * indexed and stale by `q`, in id order after `after`, so a caller pages
   * through them even when a page is not re-indexed.
   */
  staleIndexed(p: Principal, q: StaleQuery & { after: string | null; limit: number }): Promise<string[]>;
  /** How many memories `staleIndexed` would list from the start. */
  staleIndexedCount(p: Principal, q: StaleQuery): Promise<number>;
  /**
   * A rebuild's page (`graph reindex --all`): current memory versions, not
   * archived or expired, indexed or not, in the order `unindexed` lists them,
   * after `cursor` (opaque; null to start). Resolution depends on the order,
   * and a rebuild must end where a fresh index of the same memories ends.
   */
  livePage(p: Principal, cursor: string | null, limit: number): Promise<{ ids: string[]; cursor: string | null }>;
  /** How many memories `livePage` lists from the start. */
  liveCount(p: Principal): Promise<number>;
  /**
   * Marks every indexed memory of the caller's scope as indexed under no rules version (0), so each counts as
   * stale until indexed again: a rebuild does it first, and one killed part-way leaves what it had not reached
   * stale for consolidation (or the next rebuild) to find.
   */
  markStale(p: Principal): Promise<number>;
  /** For each entity these memories evidence: its evidence rows from them and from every other memory. */
  evidenceSplit(p: Principal, memories: { memoryId: string; lineageId: string }[]): Promise<EvidenceSplit[]>;
  write(p: Principal, w: GraphWrite): Promise<GraphWriteResult>;
  /** Optional fast path: ids of every indexed memory version, so a run holding all memories can skip the per-batch look-up. */
  indexedIds?(p: Principal): Promise<Set<string>>;
}

// ---- canonical ledger ----

export interface LedgerPending {
  id: string;
  key: string;
  /** The owner-pinned fact the change would replace. */
  targetId: string;
  proposed: { value: string; statement: string; category: string; source: string; confidence: number; agentId: string | null; ownerId: string; visibility: string };
  proposer: string;
  createdAt: string;
  status: 'pending' | 'confirmed' | 'rejected';
}

export type LedgerWrite =
  | { kind: 'insert'; fact: LedgerFact }
  | { kind: 'patch'; id: string; set: Partial<Pick<LedgerFact, 'confidence' | 'mentions' | 'status' | 'validUntil' | 'supersededBy' | 'updatedAt'>>; op: 'strengthen' | 'supersede' | 'retire' | 'reject' }
  | { kind: 'pending'; pending: LedgerPending }
  | { kind: 'resolve'; pendingId: string; status: 'confirmed' | 'rejected' };

export interface LedgerStore {
  /** Visible facts; default only active ones. */
  list(p: Principal, opts: { status?: string[]; key?: string; limit?: number }): Promise<LedgerFact[]>;
  get(p: Principal, id: string): Promise<LedgerFact | null>;
  /**
   * The active fact holding `key` in the namespace whoever can see it: pins
   * must detect a conflict with an owner pin the caller cannot read. Returns
   * no value or statement.
   */
  keyHolder(p: Principal, key: string): Promise<{ id: string; source: string } | null>;
  /** Owner: every pending change; others: the ones they proposed. */
  pending(p: Principal, id?: string): Promise<LedgerPending[]>;
  /** One transaction, each change audited ('pin'). */
  write(p: Principal, ops: LedgerWrite[]): Promise<void>;
  /**
   * A number that moves with every change to the ledger, from any handle or
   * process (a database trigger keeps it): read before `list`, an unchanged
   * number means an earlier list is still what `list` would return.
   */
  version(): Promise<number>;
}

// ---- jobs ----

export interface JobRecord {
  id: string;
  name: string;
  namespace: string;
  status: 'running' | 'done' | 'failed';
  holder: string;
  leaseExpiresAt: string;
  attempts: number;
  startedAt: string;
  finishedAt: string | null;
  /** Last phase completed; a resumed run continues after it. */
  phase: string | null;
  state: Record<string, unknown>;
  report: Record<string, unknown> | null;
  /** Audit head sequence when the run finished: "nothing new" means the head has not moved. */
  watermark: number | null;
}

export type ClaimResult = { claimed: JobRecord; resumed: boolean } | { busy: JobRecord };

export interface JobStore {
  /**
   * One runner per (namespace, name) across processes: takes the running
   * job over when its lease expired or its holder is dead, else reports busy.
   */
  claim(p: Principal, name: string, holder: string, leaseMs: number, now: number, holderDead: (holder: string) => boolean): Promise<ClaimResult>;
  /** Records progress and renews the lease; throws `conflict` when the lease was lost. */
  checkpoint(p: Principal, jobId: string, holder: string, phase: string, state: Record<string, unknown>, leaseMs: number, now: number): Promise<void>;
  /** Ends the run; writes a 'consolidate' audit entry with the counts in the same transaction. */
  finish(p: Principal, jobId: string, holder: string, status: 'done' | 'failed', report: Record<string, unknown>, now: number): Promise<JobRecord>;
  last(p: Principal, name: string): Promise<JobRecord | null>;
  list(p: Principal, name: string, limit: number): Promise<JobRecord[]>;
  /**
   * Expired (soft-deleted) memories and when they expired, for the purge
   * after retention. A lineage already listed keeps its date, unless
   * `restart` (it has just expired again, after a new life): its retention
   * then starts over.
   */
  markExpired(p: Principal, lineageIds: string[], at: number, restart?: boolean): Promise<void>;
  dueForPurge(p: Principal, before: number, limit: number): Promise<string[]>;
  /**
   * Optional fast path: current versions (any lifecycle) in storage order, a
   * page at a time; `cursor` is opaque. Without it a run pages through scan().
   */
  scanCurrent?(p: Principal, cursor: string | null, limit: number): Promise<{ memories: Memory[]; cursor: string | null }>;
}
