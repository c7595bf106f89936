import type { AuditDraft, AuditEntry } from '../domain/audit.ts';
import type { Lifecycle, Memory, MemoryType } from '../domain/memory.ts';
import type { Principal, Role } from '../domain/principal.ts';
import type { VectorIndex } from './vectors.ts';
import type { GraphStore, JobStore, LedgerPending, LedgerStore } from './lifecycle.ts';
import type { LedgerFact } from '../lifecycle/ledger-rules.ts';

/**
 * The store port. Every method takes the caller's Principal first; adapters
 * enforce the read rule (domain/principal.ts) in one function of their own and
 * nowhere else. Writes arrive as a validated batch of operations and are
 * applied in one transaction together with their audit entries.
 */

/** What an adapter can do; the engine branches on these, never on backend names. */
export interface StoreCapabilities {
  /** Several OS processes may share the store concurrently. */
  multiProcess: boolean;
  /** Full-text candidates come with a BM25-like score. */
  keywordSearch: boolean;
  /** Vectors can be stored beside memories. */
  vectors: boolean;
  /** Approximate nearest-neighbour index is available for vectors. */
  approximateVectorIndex: boolean;
  /** Jobs can be claimed without blocking (SKIP LOCKED or a single-writer lock). */
  jobLeases: boolean;
}

export interface TimeRange {
  /** Inclusive ISO lower bound. */
  from?: string;
  /** Exclusive ISO upper bound. */
  to?: string;
}

export interface MemoryFilter {
  types?: MemoryType[];
  /** Matches memories carrying any of these tags. */
  tags?: string[];
  labels?: string[];
  /** Default: the live lifecycles (not archived, not expired). */
  lifecycles?: Lifecycle[];
  /** Event (valid) time range on validFrom. */
  valid?: TimeRange;
  /** Transaction time range on recordedAt. */
  recorded?: TimeRange;
  /** Valid-time "as of": validFrom <= t < validTo. */
  asOf?: string;
  /** Transaction-time "as known at": recordedAt <= t < supersededAt. Default: current versions only. */
  knownAt?: string;
  sessionId?: string;
  agentId?: string;
  minSalience?: number;
  /** Only memories whose sourceKey starts with this prefix (e.g. one file or transcript): a range of the source-key index. */
  sourceKeyPrefix?: string;
  /** Only memories after this one in the `source_key_asc` order (pages of a file's memories, each continuing where the last ended). */
  sourceKeyAfter?: { sourceKey: string; id: string };
  /**
   * Only memories after this one in a time order (a list cursor, keyset
   * paging): `at` is the memory's recordedAt (recorded_*) or validFrom
   * (valid_*) in ms, `id` breaks ties as the list orders do.
   */
  listAfter?: { order: KeysetOrder; at: number; id: string };
  /** Only memories under these source keys (and of this owner, when given); an index on current source keys finds each directly. */
  sourceKeys?: { ownerId?: string; keys: string[] };
}

export type MemoryKey = Pick<Memory, 'id' | 'ownerId' | 'sourceKey' | 'contentHash'>;
/** A page of `scan`: every stored version in id order after `afterId`. */
export type ScanPage = (p: Principal, afterId: string | null, limit: number) => Promise<Memory[]>;

/**
 * A forget's whole record as the store keeps it, for an export to carry and
 * an import to restore (never any text: hashes, digests and ids).
 * `forgottenIds` are the version ids still held forgotten (a version restored
 * on purpose leaves them, its lineage's tombstone stays); `sources` the
 * digests of forgotten source keys with the texts' hashes
 * (adapters/sql/forgotten-sources.ts).
 */
export interface StoredTombstone {
  lineageId: string;
  namespace: string;
  ownerId: string;
  agentId: string | null;
  visibility: string;
  versionIds: string[];
  forgottenIds: string[];
  contentHash: string;
  forgottenAt: string;
  actor: string;
  reason: string;
  sources: { ownerId: string; sourceDigest: string; contentHash: string }[];
}

/**
 * What an export reads besides memories, from the same snapshot, a page at a
 * time in id order: the canonical ledger (every status) and its pending
 * changes (every status), and the tombstones. The caller's namespace, and
 * only for its owner: a guest or agent gets empty pages.
 */
export interface SnapshotReads {
  ledgerFacts(p: Principal, afterId: string | null, limit: number): Promise<LedgerFact[]>;
  ledgerPending(p: Principal, afterId: string | null, limit: number): Promise<LedgerPending[]>;
  tombstones(p: Principal, afterLineageId: string | null, limit: number): Promise<StoredTombstone[]>;
}
/** A stored version's id, text and content hash (`scanContent`). */
export type MemoryContent = Pick<Memory, 'id' | 'text' | 'contentHash'>;

export interface Page {
  limit: number;
  offset?: number;
}

/** `source_key_asc` walks the index of current keyed memories: for lists that filter on current source keys (the default, no knownAt). */
export type ListOrder = 'recorded_desc' | 'recorded_asc' | 'valid_desc' | 'valid_asc' | 'salience_desc' | 'source_key_asc';
/** The list orders whose position a cursor can hold: a time that does not change, then the id. */
export type KeysetOrder = 'recorded_desc' | 'recorded_asc' | 'valid_desc' | 'valid_asc';

export interface KeywordQuery {
  /** Terms already normalised by the domain's text analysis (lower-case, stemmed, stop words removed). */
  terms: string[];
  filter: MemoryFilter;
  limit: number;
}

export interface KeywordHit {
  id: string;
  /** Higher is better. */
  score: number;
}

/** Term statistics so the domain can compute exact BM25 over candidates. */
export interface CorpusStats {
  documents: number;
  averageLength: number;
}

/** One write operation; a batch is applied all-or-nothing. */
export type WriteOp =
  | {
      kind: 'insert';
      memory: Memory;
      /** When memory.sourceKey already exists among current versions: skip if same content, else per policy. */
      onExistingSource: 'skip_if_same' | 'supersede' | 'conflict';
      /**
       * Write it even when its id, or its source key with this exact text,
       * was forgotten. Without it such an insert writes nothing and answers
       * `forgotten` (adapters/sql/forgotten-sources.ts).
       */
      restoreForgotten?: boolean;
      /**
       * The path of the file an import read this memory from (source.path
       * may name another: a JSONL line may give its own source). Only the
       * forgotten check reads it: a deep file's line is also looked up under
       * the key an earlier version gave it, which held this path. Not stored.
       */
      filePath?: string;
      /** Stored in the same transaction when the store has the `vectors` capability. */
      vector?: { model: string; vector: Float32Array };
      audit?: Partial<AuditDraft>;
    }
  | {
      kind: 'update';
      /** Id of the current version being replaced. */
      previousId: string;
      /** The new version (same lineageId, version + 1). */
      next: Memory;
      action: 'update' | 'supersede';
      reason?: string;
      vector?: { model: string; vector: Float32Array };
    }
  /**
   * A lifecycle move (and a new importance). `from` must be the current state and, when given,
   * `fromImportance` the current importance: a caller that read them and computes the new values
   * gets `conflict` if another write changed them meanwhile, so it can read again, never overwrite.
   */
  | { kind: 'lifecycle'; id: string; from: Lifecycle; to: Lifecycle; reason: string; importance?: number; fromImportance?: number }
  /** Closes the current version without a successor (its source no longer has it). */
  /** `at`: when it left its source, by the caller's clock (an import's, injectable); default the batch's time. */
  | { kind: 'retire'; id: string; reason: string; at?: string }
  | {
      kind: 'forget';
      lineageId: string;
      reason: string;
      /**
       * The owner removes a read-only memory that a guest or agent wrote (its
       * own cycle's safety episodes): the service checked the writer's role.
       * Without it, read-only memories refuse every forget.
       */
      readOnlyOfOthers?: boolean;
    }
  | { kind: 'touch'; ids: string[]; at: string }
  /**
   * Brings a stored version's in-place state (closing, lifecycle, importance,
   * access statistics) to that of the same version in another store: a copy
   * run again after the source moved on. Its content must match.
   */
  | { kind: 'mirror'; memory: Memory }
  /** An audit entry with no data change (a refused safety event, a token issued). */
  | { kind: 'record'; audit: AuditDraft }
  /**
   * An export's ledger fact, pending change or tombstone, restored as it was
   * (owner only). Idempotent by id (a tombstone by lineage): one the store
   * already holds is left as the store has it (`unchanged`).
   */
  | { kind: 'restore'; record: RestoreRecord };

export type RestoreRecord = { what: 'ledger_fact'; fact: LedgerFact } | { what: 'ledger_pending'; pending: LedgerPending } | { what: 'tombstone'; tombstone: StoredTombstone };

export type WriteResult =
  /**
   * `forgotten`: nothing written, what it carried was forgotten; the id is the forgotten lineage's.
   * `retiredId`: the version its key held meanwhile (other text), closed since the source no longer says it.
   */
  | { kind: 'insert'; id: string; status: 'created' | 'unchanged' | 'superseded' | 'forgotten'; previousId?: string; retiredId?: string }
  | { kind: 'update'; id: string; previousId: string }
  | { kind: 'lifecycle'; id: string }
  | { kind: 'retire'; id: string }
  | { kind: 'forget'; lineageId: string; removed: ForgetFootprint }
  | { kind: 'touch'; count: number }
  | { kind: 'mirror'; id: string; changed: boolean }
  | { kind: 'record' }
  | { kind: 'restore'; what: RestoreRecord['what']; id: string; status: 'created' | 'unchanged' };

/** Everything a forget would remove, counted place by place. */
export interface ForgetFootprint {
  lineageId: string;
  versionIds: string[];
  contentHashes: string[];
  /** Rows per place (table or index) that hold the memory's text or derived data. */
  places: Record<string, number>;
}

export interface Tombstone {
  lineageId: string;
  versionIds: string[];
  contentHash: string;
  forgottenAt: string;
  actor: string;
  reason: string;
}

export interface StoreStats {
  total: number;
  byType: Record<string, number>;
  byLifecycle: Record<string, number>;
  superseded: number;
  bytes: number | null;
  schemaVersion: number;
  /** Entries of the store's whole audit chain (every namespace). */
  auditEntries: number;
}

export interface PendingChange {
  token: string;
  kind: string;
  namespace: string;
  actor: string;
  createdAt: string;
  expiresAt: string;
  payload: Record<string, unknown>;
}

export interface MemoryStore {
  readonly backend: string;
  readonly location: string;
  /**
   * Optional: a name for this store's data that every way of reaching it
   * shares, kept in the data itself (PostgreSQL: `postgres:store:<uuid>`,
   * a random id its migration 16 stores once). Files kept outside the
   * database (the journal, safety-event logs, services/state-dir.ts) are
   * named by it. Absent where the location already is that name (a SQLite
   * file, whose files sit beside it) or there is none (in-memory).
   */
  readonly identity?: string;
  readonly capabilities: StoreCapabilities;

  /** Schema version after migrations. */
  schemaVersion(): Promise<number>;
  /**
   * One cheap round trip to the database (`SELECT 1`), for readiness probes:
   * resolves when the store answers, rejects with `unavailable` when it
   * cannot be reached (PostgreSQL down, the handle closed). Reads nothing of
   * the data and needs no principal.
   */
  ping(): Promise<void>;
  close(): Promise<void>;

  apply(p: Principal, ops: WriteOp[]): Promise<WriteResult[]>;

  get(p: Principal, id: string): Promise<Memory | null>;
  getMany(p: Principal, ids: string[]): Promise<Memory[]>;
  /** The caller's own current version under a source key (source keys are idempotency keys of one writer). */
  findBySourceKey(p: Principal, sourceKey: string): Promise<Memory | null>;
  list(p: Principal, filter: MemoryFilter, page: Page, order?: ListOrder): Promise<Memory[]>;
  /** As `list`, with only what identifies each memory and its content: an import compares a whole file's keys without reading their texts. */
  listKeys(p: Principal, filter: MemoryFilter, page: Page, order?: ListOrder): Promise<MemoryKey[]>;
  /**
   * Memories the principal can see that the filter admits. With `atMost`,
   * counting stops there (the answer is then `atMost`): a whole count reads
   * every row in scope, which a caller that only needs "none, a few, or
   * many" should not pay.
   */
  count(p: Principal, filter: MemoryFilter, atMost?: number): Promise<number>;
  /** Every version of one memory, oldest first. */
  lineage(p: Principal, lineageId: string): Promise<Memory[]>;
  keywordCandidates(p: Principal, q: KeywordQuery): Promise<KeywordHit[]>;
  /** Document frequency of each term among the memories the principal can read. */
  termStats(p: Principal, terms: string[]): Promise<{ stats: CorpusStats; df: Record<string, number> }>;
  /**
   * Builds any in-process copy of the keyword index now, where the adapter
   * keeps one (SQLite); searches never wait for it. Benchmarks and tests call
   * this before timing or comparing.
   */
  prepareKeywordSearch?(): Promise<void>;
  /**
   * Brings the in-process copies this handle already holds (the keyword
   * index, each model's vectors) up to date with the store's logs; builds
   * nothing new. Search threads call it between searches, so the first
   * search after a burst of writes does not wait for the whole burst.
   */
  refreshSearchCaches?(): Promise<void>;
  /**
   * Deletes all but the newest `keep` entries (at least one) of the memory
   * row log, which gains an entry per memory written or removed and which
   * every process's keyword copy follows; a copy further behind than what is
   * kept rebuilds. Maintenance, owner only; returns the entries deleted.
   * Absent where the adapter keeps no such log.
   */
  pruneMemoryLog?(p: Principal, keep: number): Promise<number>;
  forgetFootprint(p: Principal, lineageId: string): Promise<ForgetFootprint | null>;
  /** Every stored version (any lifecycle, superseded too) in id order, a page at a time: export and integrity checks. */
  scan(p: Principal, afterId: string | null, limit: number): Promise<Memory[]>;
  /**
   * Runs `read` with a `scan` whose every page comes from one state of the
   * store, whatever others write meanwhile. Page by page, an export taken
   * during writes held a version read before an update and its successor
   * read after it: two current versions of one memory, and a file that
   * could not be imported again.
   */
  snapshot<T>(read: (scan: ScanPage, reads: SnapshotReads) => Promise<T>): Promise<T>;
  /** `scan`'s rows with only what an integrity check reads: at a million memories whole rows were half of `audit verify`'s time. */
  scanContent(p: Principal, afterId: string | null, limit: number): Promise<MemoryContent[]>;
  tombstone(p: Principal, id: string): Promise<Tombstone | null>;
  stats(p: Principal): Promise<StoreStats>;

  audit: AuditLog;
  pending: PendingChanges;
  /** Present when capabilities.vectors is true. */
  vectors?: VectorIndex;
  tokens: TokenStore;
  /** Memory lifecycle (ports/lifecycle.ts); absent on a backend that lacks them. */
  graph?: GraphStore;
  ledger?: LedgerStore;
  jobs?: JobStore;
  /** Backend facts for self_state in plain words (e.g. which vector path is available and what falls back). */
  notes?(): string[];
}

/** What the audit log recorded of a version's last content write. */
export interface RecordedWrite {
  hash: string | null;
  claims: string | null;
}

export interface AuditLog {
  /** Entries about the given memory ids (any version), oldest first. */
  forMemories(p: Principal, ids: string[]): Promise<AuditEntry[]>;
  /**
   * The content hash each of these memory versions was last written with, by
   * id, from the entries that write content (create, update, supersede,
   * merge); an id without such an entry is absent. `claims` is the claims
   * hash (domain/memory-claims.ts) the writing entry recorded: null for
   * entries written before the log recorded it.
   */
  recordedHashes(p: Principal, ids: string[]): Promise<Map<string, RecordedWrite>>;
  /**
   * Memory ids of the principal's namespace that an entry wrote content to
   * (CONTENT_WRITES) and that have no row now, in id order after `afterId`
   * (owner only). A forgotten version is among them; its forget entry says so.
   */
  unstoredWrites(p: Principal, afterId: string | null, limit: number): Promise<string[]>;
  /** The whole chain in sequence order, a page at a time (owner only). */
  range(p: Principal, afterSeq: number, limit: number): Promise<AuditEntry[]>;
  head(): Promise<{ seq: number; hash: string } | null>;
}

export interface PendingChanges {
  /**
   * Stores a change and, first, deletes every change that expired before `now` (the caller's clock, default the wall clock):
   * a preview never confirmed was otherwise kept forever, payload (the proposed text) included.
   */
  put(p: Principal, change: Omit<PendingChange, 'namespace' | 'actor' | 'createdAt'>, now?: number): Promise<void>;
  /** Removes and returns the change if the principal may use it and it has not expired. */
  /** `now`: the caller's clock (the engine's, injectable), which also set the change's expiresAt; default the wall clock. */
  take(p: Principal, token: string, kind: string, now?: number): Promise<PendingChange | null>;
}

/** A bearer token as stored: never the secret, only its SHA-256 hash. */
export interface TokenRecord {
  id: string;
  role: Role;
  namespace: string;
  /** Id of the principal the token acts as. */
  principalId: string;
  agentId: string | null;
  label: string | null;
  createdAt: string;
  revokedAt: string | null;
}

export interface TokenStore {
  /** Owner only; appends a 'token' audit entry in the same transaction. */
  create(p: Principal, token: TokenRecord & { hash: string }): Promise<TokenRecord>;
  /** Tokens of the principal's namespace (owner only), newest first. */
  list(p: Principal): Promise<TokenRecord[]>;
  /** Owner only; appends a 'token' audit entry. Null when no such token in the namespace. */
  revoke(p: Principal, id: string): Promise<TokenRecord | null>;
  /** Authentication look-up, before any principal exists: the live (unrevoked) token with this hash. */
  findByHash(hash: string): Promise<TokenRecord | null>;
}
