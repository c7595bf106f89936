import type Database from 'better-sqlite3';
import { CONTENT_WRITES, type AuditDraft, type AuditEntry } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { sha256Hex } from '../../domain/hash.ts';
import type { Memory } from '../../domain/memory.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso } from '../../domain/time.ts';
import type {
  AuditLog,
  CorpusStats,
  ForgetFootprint,
  KeywordHit,
  KeywordQuery,
  ListOrder,
  MemoryContent,
  ScanPage,
  MemoryKey,
  MemoryFilter,
  MemoryStore,
  Page,
  PendingChange,
  PendingChanges,
  RecordedWrite,
  StoreCapabilities,
  TokenStore,
  StoreStats,
  Tombstone,
  SnapshotReads,
  WriteOp,
  WriteResult,
} from '../../ports/store.ts';
import { andAll, filterSql, memoryScopeSql, scopeSql, type JsonArrayAny, type SqlPart } from '../sql/scope-sql.ts';
import { ifNotBusy, openDatabase, setBusyBudget, withBusyRetry, writeWithRetry } from './connection.ts';
import { migrate } from './migrations.ts';
import { corePlaces, memoriesPlace, type DerivedPlace } from './places.ts';
import { lastWrite, rowToAudit } from '../sql/audit-rows.ts';
import { rowToMemory, rowToTombstone, type MemoryRow } from '../sql/rows.ts';
import { sqliteSnapshotReads } from './restore.ts';
import { SqliteTokens } from './tokens.ts';
import { SqliteWriter } from './write.ts';
import { firstCandidates } from '../candidate-sizes.ts';
import { KeywordIndex } from '../keyword-index.ts';
import { sqliteKeywordRows } from './keyword-rows.ts';
import { BackgroundCheckpointer } from './checkpointer.ts';
import { ForgetScrub } from './forget-scrub.ts';
import { StatementCache } from './statements.ts';
import { SqliteVectorIndex } from './vectors.ts';
import type { VectorIndexConfig } from '../../ports/vectors.ts';
import type { MigrationProgressListener } from '../../ports/migration-progress.ts';
import { checkVectorIndexConfig } from '../vector-scan.ts';
import { assertPruner } from '../vector-maintenance.ts';
import { SqliteGraph, graphPlace } from './graph.ts';
import { SqliteJobs, expiryPlace } from './jobs.ts';
import { SqliteLedger } from './ledger.ts';
import { tallyStats, type StatsGroup } from '../sql/stats-rows.ts';
import { walkIdOrder } from './id-walk.ts';

export interface SqliteStoreOptions {
  path: string;
  /** Text analysis for the full-text index; the same function must analyse queries. */
  analyze: (text: string) => string[];
  /** Checkpoint the WAL on a worker thread once it grows (default true for files; see checkpointer.ts). */
  backgroundCheckpoint?: boolean;
  /** Which vector index answers nearest-neighbour queries (default: exact scan, approximate above 200,000 vectors per namespace and model). */
  vectorIndex?: VectorIndexConfig;
  /** How long a write waits in all for another process's lock before `busy` (default 10 s, connection.ts). */
  busyTimeoutMs?: number;
  /** Hears how far a long migration has got while the store opens (ports/migration-progress.ts). */
  onProgress?: MigrationProgressListener;
}

const jsonArrayAny: JsonArrayAny = (column, values) => ({
  sql: `EXISTS (SELECT 1 FROM json_each(${column}) WHERE value IN (${values.map(() => '?').join(', ')}))`,
  params: values,
});

/** How many of the index's best matches are checked against scope and filter before falling back to the exact full query. */
const KEYWORD_OVERFETCH = 4;
/** Ids a page of `scan` reads from the id index at least per step (a guest's page may skip most of them). */
const SCAN_CHUNK = 1000;

/**
 * The index's best matches to check, widening on a miss: an owner sees the
 * whole namespace, so a little over the page almost always suffices (each
 * checked match is a row look-up, and checking four times the page cost as
 * much as ranking); other principals see a share, so they start wide.
 */
export function keywordHeads(limit: number, seesWholeNamespace: boolean): number[] {
  if (!seesWholeNamespace) return [limit * KEYWORD_OVERFETCH];
  const first = firstCandidates(limit);
  return [first, first * KEYWORD_OVERFETCH];
}

const ORDER_SQL: Record<ListOrder, string> = {
  recorded_desc: 'm.recorded_at DESC, m.id DESC',
  recorded_asc: 'm.recorded_at ASC, m.id ASC',
  valid_desc: 'm.valid_from DESC, m.id DESC',
  valid_asc: 'm.valid_from ASC, m.id ASC',
  salience_desc: 'm.salience DESC, m.valid_from DESC, m.id DESC',
  source_key_asc: 'm.source_key ASC, m.id ASC',
};

/** What a principal may read of memories (alias m), narrowed by a filter: every read query includes it. */
export function memoryWhere(p: Principal, filter: MemoryFilter | null): SqlPart {
  const scope = memoryScopeSql(readScope(p));
  return filter ? andAll(scope, filterSql(filter, jsonArrayAny)) : scope;
}

/**
 * A page of memories in a list order. Every order ends in id, and so do
 * the indexes serving them (migrations 10, 13, and 15 for salience over every type): an import
 * gives a whole file one timestamp, and a tie that the index does not order is sorted whole.
 */
export function listSql(where: string, order: ListOrder): string {
  return `SELECT * FROM memories m WHERE ${where} ORDER BY ${ORDER_SQL[order]} LIMIT ? OFFSET ?`;
}

export class SqliteStore implements MemoryStore {
  readonly backend = 'sqlite';
  readonly capabilities: StoreCapabilities;
  readonly audit: AuditLog;
  readonly vectors: SqliteVectorIndex;
  /** Writes this connection made; with PRAGMA data_version (other connections' commits) it says when cached query results went stale. */
  private writes = 0;
  readonly pending: PendingChanges;
  readonly tokens: TokenStore;
  readonly graph: SqliteGraph;
  readonly ledger: SqliteLedger;
  readonly jobs: SqliteJobs;
  private readonly writer: SqliteWriter;
  private readonly extraPlaces: DerivedPlace[] = [];
  private readonly places: DerivedPlace[];
  private version: number;
  private closed = false;
  private readonly checkpointer: BackgroundCheckpointer | null;
  /** Shared by the store and its parts (ledger, vectors) on this connection. */
  private readonly statements: StatementCache;
  /** The in-process copy of the full-text index that ranks keyword searches (FTS5 answers while it builds). */
  private readonly keywords: KeywordIndex;
  /** Takes a forget's text out of the files themselves (index segments, WAL), now or, held up by a reader, later. */
  private readonly scrub: ForgetScrub;

  private constructor(
    readonly db: Database.Database,
    readonly location: string,
    analyze: (text: string) => string[],
    backgroundCheckpoint: boolean,
    vectorIndex: VectorIndexConfig | undefined,
    onProgress: MigrationProgressListener | undefined,
  ) {
    this.statements = new StatementCache(db);
    this.checkpointer = backgroundCheckpoint && location !== ':memory:' ? new BackgroundCheckpointer(db, location) : null;
    this.version = withBusyRetry(() => migrate(db, analyze, onProgress));
    this.scrub = new ForgetScrub(db, location);
    this.scrub.resumeLeftOver();
    // Fresh statistics let the planner choose between the id, namespace and time indexes;
    // the analysis limit keeps this to milliseconds even on a large file.
    db.pragma('analysis_limit = 1000');
    // Statistics are an optimisation: a store another process is writing to opens at once, without them.
    ifNotBusy(db, () => db.pragma('optimize = 0x10002'));
    this.vectors = new SqliteVectorIndex(
      db,
      this.statements,
      (p, f) => this.where(p, f),
      () => `${this.db.pragma('data_version', { simple: true }) as number}:${this.writes}`,
      () => this.checkpointer?.afterCommit(),
      vectorIndex,
      location,
    );
    this.capabilities = { multiProcess: true, keywordSearch: true, vectors: true, approximateVectorIndex: this.vectors.scan.approximateAvailable, jobLeases: true };
    this.keywords = new KeywordIndex(sqliteKeywordRows(this.statements), analyze);
    this.places = [...corePlaces(db), this.vectors.place()];
    this.writer = new SqliteWriter(db, analyze, () => [...this.places, ...this.extraPlaces, memoriesPlace(db)]);
    this.audit = new SqliteAuditLog(db);
    this.pending = new SqlitePending(db);
    this.tokens = new SqliteTokens(db, this.statements, (p, draft) => this.writer.appendAudit(p, draft, Date.now()));
    // Memory lifecycle (issue 7): graph links and the expiry ledger are derived from memories, so forget cleans them.
    const appendAudit = (p: Principal, draft: AuditDraft) => this.writer.appendAudit(p, draft, Date.now());
    this.graph = new SqliteGraph(db, this.statements);
    this.ledger = new SqliteLedger(db, this.statements, appendAudit);
    this.jobs = new SqliteJobs(db, appendAudit);
    this.extraPlaces.push(graphPlace(db), expiryPlace(db));
  }

  static open(opts: SqliteStoreOptions): SqliteStore {
    if (opts.vectorIndex) checkVectorIndexConfig(opts.vectorIndex);
    const db = openDatabase(opts.path, { mnemosStore: true });
    if (opts.busyTimeoutMs !== undefined) setBusyBudget(db, opts.busyTimeoutMs);
    return new SqliteStore(db, opts.path, opts.analyze, opts.backgroundCheckpoint ?? true, opts.vectorIndex, opts.onProgress);
  }

  /** Backend facts for self_state: which vector index answers. */
  notes(): string[] {
    return [this.vectors.scan.describe()];
  }

  /** Lets later parts of the adapter (vectors, graph) join forget. */
  registerPlace(place: DerivedPlace): void {
    this.extraPlaces.push(place);
  }

  async schemaVersion(): Promise<number> {
    return this.version;
  }

  async ping(): Promise<void> {
    try {
      this.db.prepare('SELECT 1').get();
    } catch (err) {
      // A closed handle throws a TypeError from the driver: not an engine bug, the store is just not there.
      throw new MnemosError('unavailable', `cannot read the SQLite store at ${this.location}: ${(err as Error).message}`, { location: this.location }, { cause: err });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.vectors.scan.close();
    this.keywords.close();
    await this.checkpointer?.close();
    this.scrub.close();
    // Statistics are an optimisation; a busy database must not hold up closing.
    try {
      ifNotBusy(this.db, () => this.db.pragma('optimize'));
    } catch {
      // Nor may any other failure of it: the handle closes regardless.
    }
    this.db.close();
  }

  async apply(p: Principal, ops: WriteOp[]): Promise<WriteResult[]> {
    readScope(p); // validates the principal
    const now = Date.now();
    const run = this.db.transaction((batch: WriteOp[]) => this.writer.applyAll(p, batch, now));
    const forgets = ops.some((op) => op.kind === 'forget');
    if (forgets) this.scrub.begin();
    let results: WriteResult[];
    try {
      results = await writeWithRetry(this.db, () => run.immediate(ops));
    } catch (err) {
      if (forgets) this.scrub.abandon();
      throw err;
    }
    this.writes++;
    this.checkpointer?.afterCommit();
    if (results.some((r) => r.kind === 'forget')) {
      // The forgotten words leave this process's copy of the index now, not at its next search.
      await this.keywords.refresh();
      // The scrub's TRUNCATE checkpoint must not meet the worker's checkpoint half-way.
      await this.checkpointer?.settled();
      this.scrub.run();
      this.vectors.scan.forgotten(p.namespace);
    }
    return results;
  }

  private stmt(sql: string): Database.Statement {
    return this.statements.get(sql);
  }

  private where(p: Principal, filter: MemoryFilter | null): SqlPart {
    return memoryWhere(p, filter);
  }

  async get(p: Principal, id: string): Promise<Memory | null> {
    const w = this.where(p, null);
    const row = this.stmt(`SELECT * FROM memories m WHERE m.id = ? AND ${w.sql}`).get(id, ...w.params) as MemoryRow | undefined;
    return row ? rowToMemory(row) : null;
  }

  async getMany(p: Principal, ids: string[]): Promise<Memory[]> {
    if (ids.length === 0) return [];
    // Point look-ups by the id index: with an IN list SQLite may prefer the namespace index and scan.
    const w = this.where(p, null);
    const stmt = this.stmt(`SELECT * FROM memories m WHERE m.id = ? AND ${w.sql}`);
    const rows = this.statements.readTogether(() => [...new Set(ids)].map((id) => stmt.get(id, ...w.params) as MemoryRow | undefined));
    return rows.filter((r) => r !== undefined).map(rowToMemory);
  }

  async findBySourceKey(p: Principal, sourceKey: string): Promise<Memory | null> {
    const w = this.where(p, null);
    const row = this.stmt(`SELECT * FROM memories m WHERE m.namespace = ? AND m.owner_id = ? AND m.source_key = ? AND m.superseded_at IS NULL AND ${w.sql}`).get(p.namespace, p.id, sourceKey, ...w.params) as
      | MemoryRow
      | undefined;
    return row ? rowToMemory(row) : null;
  }

  async list(p: Principal, filter: MemoryFilter, page: Page, order: ListOrder = 'recorded_desc'): Promise<Memory[]> {
    const w = this.where(p, filter);
    const rows = this.stmt(listSql(w.sql, order)).all(...w.params, page.limit, page.offset ?? 0) as MemoryRow[];
    return rows.map(rowToMemory);
  }

  async listKeys(p: Principal, filter: MemoryFilter, page: Page, order: ListOrder = 'recorded_desc'): Promise<MemoryKey[]> {
    const w = this.where(p, filter);
    const sql = `SELECT m.id AS id, m.owner_id AS ownerId, m.source_key AS sourceKey, m.content_hash AS contentHash FROM memories m WHERE ${w.sql} ORDER BY ${ORDER_SQL[order]} LIMIT ? OFFSET ?`;
    return this.stmt(sql).all(...w.params, page.limit, page.offset ?? 0) as MemoryKey[];
  }

  async count(p: Principal, filter: MemoryFilter, atMost?: number): Promise<number> {
    const w = this.where(p, filter);
    if (atMost !== undefined) return (this.stmt(`SELECT count(*) AS n FROM (SELECT 1 FROM memories m WHERE ${w.sql} LIMIT ?)`).get(...w.params, atMost) as { n: number }).n;
    return (this.stmt(`SELECT count(*) AS n FROM memories m WHERE ${w.sql}`).get(...w.params) as { n: number }).n;
  }

  async lineage(p: Principal, lineageId: string): Promise<Memory[]> {
    const w = this.where(p, null);
    const rows = this.db.prepare(`SELECT * FROM memories m WHERE m.lineage_id = ? AND ${w.sql} ORDER BY m.version`).all(lineageId, ...w.params) as MemoryRow[];
    return rows.map(rowToMemory);
  }

  async keywordCandidates(p: Principal, q: KeywordQuery): Promise<KeywordHit[]> {
    const terms = [...new Set(q.terms)].filter((t) => t.length > 0);
    if (terms.length === 0) return [];
    const w = this.where(p, q.filter);
    const fromCopy = await this.keywords.search(terms, w, q.limit);
    if (fromCopy) return fromCopy;
    const match = terms.map((t) => `"${t.replaceAll('"', '""')}"`).join(' OR ');
    // First the index's own best matches (a little over the page, wider on a
    // miss: keywordHeads), then scope and filter on those rows only: joining
    // every match to its row is what made common words slow. If too few
    // survive while the index had more, the exact full query runs; either way
    // the result is the true top of the admitted rows.
    // CROSS JOIN fixes the loop order (SQLite never reorders it): without table
    // statistics the planner preferred to scan every memory in the namespace
    // and probe the few matches, ten times slower.
    const first = this.stmt(
      `SELECT m.id AS id, f.rank AS rank FROM (SELECT rowid, rank FROM memories_fts WHERE memories_fts MATCH ? ORDER BY rank LIMIT ?) f CROSS JOIN memories m ON m.rowid = f.rowid WHERE ${w.sql} ORDER BY f.rank LIMIT ?`,
    );
    const indexHas = this.stmt('SELECT count(*) AS n FROM (SELECT 1 FROM memories_fts WHERE memories_fts MATCH ? LIMIT ?)');
    let rows: { id: string; rank: number }[] | null = null;
    for (const head of keywordHeads(q.limit, readScope(p).all)) {
      const found = first.all(match, head, ...w.params, q.limit) as { id: string; rank: number }[];
      // Enough admitted, or the index has no more matches than were checked: this is the true top.
      if (found.length >= q.limit || (indexHas.get(match, head) as { n: number }).n < head) {
        rows = found;
        break;
      }
    }
    rows ??= this.stmt(`SELECT m.id AS id, bm25(memories_fts) AS rank FROM memories_fts CROSS JOIN memories m ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? AND ${w.sql} ORDER BY rank LIMIT ?`).all(
      match,
      ...w.params,
      q.limit,
    ) as { id: string; rank: number }[];
    // FTS5's bm25() is lower-is-better; the port promises higher-is-better.
    return rows.map((r) => ({ id: r.id, score: -r.rank }));
  }

  async prepareKeywordSearch(): Promise<void> {
    await this.keywords.prepare();
  }

  async refreshSearchCaches(): Promise<void> {
    await this.keywords.refresh();
    await this.vectors.scan.refresh();
  }

  async pruneMemoryLog(p: Principal, keep: number): Promise<number> {
    assertPruner(p, keep, 'memory row log');
    // The newest entry always stays: seq is a plain rowid, and an empty table would hand out seqs readers already passed.
    return this.statements.get('DELETE FROM memory_log WHERE seq <= (SELECT max(seq) FROM memory_log) - ?').run(Math.max(1, keep)).changes;
  }

  async termStats(p: Principal, terms: string[]): Promise<{ stats: CorpusStats; df: Record<string, number> }> {
    readScope(p);
    // Counts over the whole index: cheap, text-free, and what BM25's IDF needs.
    const stmt = this.db.prepare('SELECT doc FROM memories_fts_vocab WHERE term = ?');
    const df: Record<string, number> = {};
    const agg = this.statements.readTogether(() => {
      for (const t of new Set(terms)) df[t] = ((stmt.get(t) as { doc: number } | undefined)?.doc ?? 0);
      return this.db.prepare('SELECT count(*) AS n, coalesce(avg(doc_len), 0) AS avg FROM memories WHERE superseded_at IS NULL').get() as { n: number; avg: number };
    });
    return { stats: { documents: agg.n, averageLength: agg.avg }, df };
  }

  async forgetFootprint(p: Principal, lineageId: string): Promise<ForgetFootprint | null> {
    const w = this.where(p, null);
    const visible = this.db.prepare(`SELECT 1 FROM memories m WHERE m.lineage_id = ? AND ${w.sql} LIMIT 1`).get(lineageId, ...w.params);
    return visible ? this.writer.footprint(lineageId, p.namespace) : null;
  }

  async scan(p: Principal, afterId: string | null, limit: number): Promise<Memory[]> {
    const w = this.where(p, null);
    const admitted = this.stmt(`SELECT m.* FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value WHERE ${w.sql} ORDER BY m.id`);
    // One read transaction: a page's chunks see one state of the store.
    const read = this.db.transaction(() => walkIdOrder(this.statements, afterId, limit, Math.max(limit, SCAN_CHUNK), (rowids) => admitted.all(rowids, ...w.params) as MemoryRow[]));
    return read.deferred().map(rowToMemory);
  }

  async snapshot<T>(read: (scan: ScanPage, reads: SnapshotReads) => Promise<T>): Promise<T> {
    // In memory no other connection can write; a file is read on a second connection held in one read transaction
    // (WAL: it keeps its snapshot while this connection and other processes write).
    if (this.location === ':memory:') return read((p, afterId, limit) => this.scan(p, afterId, limit), sqliteSnapshotReads(this.db));
    // It only scans: nothing is analysed or indexed there.
    const reader = SqliteStore.open({ path: this.location, analyze: () => [], backgroundCheckpoint: false });
    try {
      reader.db.exec('BEGIN');
      reader.db.prepare('SELECT 1 FROM memories LIMIT 1').get(); // the snapshot starts at the first read
      return await read((p, afterId, limit) => reader.scan(p, afterId, limit), sqliteSnapshotReads(reader.db));
    } finally {
      if (reader.db.inTransaction) reader.db.exec('ROLLBACK');
      await reader.close();
    }
  }

  async scanContent(p: Principal, afterId: string | null, limit: number): Promise<MemoryContent[]> {
    const w = this.where(p, null);
    const admitted = this.stmt(`SELECT m.id AS id, m.text AS text, m.content_hash AS contentHash FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value WHERE ${w.sql} ORDER BY m.id`);
    const read = this.db.transaction(() => walkIdOrder(this.statements, afterId, limit, Math.max(limit, SCAN_CHUNK), (rowids) => admitted.all(rowids, ...w.params) as MemoryContent[]));
    return read.deferred();
  }

  async tombstone(p: Principal, id: string): Promise<Tombstone | null> {
    const w = scopeSql(readScope(p), 't');
    const row = this.db
      .prepare(`SELECT t.* FROM tombstones t WHERE t.lineage_id = coalesce((SELECT lineage_id FROM tombstone_ids WHERE id = ?), ?) AND ${w.sql}`)
      .get(id, id, ...w.params) as Record<string, string> | undefined;
    return row ? rowToTombstone(row) : null;
  }

  async stats(p: Principal): Promise<StoreStats> {
    const w = this.where(p, null);
    const groups = this.db
      .prepare(`SELECT m.type AS type, m.lifecycle AS lifecycle, m.superseded_at IS NULL AS current, count(*) AS n FROM memories m WHERE ${w.sql} GROUP BY 1, 2, 3`)
      .all(...w.params) as StatsGroup[];
    const { total, byType, byLifecycle, superseded } = tallyStats(groups);
    const pageCount = this.db.pragma('page_count', { simple: true }) as number;
    const pageSize = this.db.pragma('page_size', { simple: true }) as number;
    const auditEntries = (this.db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
    return { total, byType, byLifecycle, superseded, bytes: this.location === ':memory:' ? null : pageCount * pageSize, schemaVersion: this.version, auditEntries };
  }
}

class SqliteAuditLog implements AuditLog {
  constructor(private readonly db: Database.Database) {}

  async forMemories(p: Principal, ids: string[]): Promise<AuditEntry[]> {
    readScope(p);
    if (ids.length === 0) return [];
    const rows = this.db
      .prepare(`SELECT * FROM audit_log WHERE namespace = ? AND memory_id IN (${ids.map(() => '?').join(', ')}) ORDER BY seq`)
      .all(p.namespace, ...ids) as Record<string, unknown>[];
    return rows.map(rowToAudit);
  }

  async recordedHashes(p: Principal, ids: string[]): Promise<Map<string, RecordedWrite>> {
    readScope(p);
    const out = new Map<string, RecordedWrite>();
    if (ids.length === 0) return out;
    const rows = this.db
      .prepare(
        `SELECT memory_id AS id, after_hash AS hash, json_extract(details, '$.claims') AS claims FROM audit_log WHERE namespace = ? AND memory_id IN (${ids.map(() => '?').join(', ')}) AND action IN (${CONTENT_WRITES.map(() => '?').join(', ')}) ORDER BY seq`,
      )
      .raw()
      .all(p.namespace, ...ids, ...CONTENT_WRITES) as [string, string | null, string | null][];
    // Oldest first: the last write of each version wins.
    for (const [id, hash, claims] of rows) out.set(id, lastWrite(out.get(id), hash, claims));
    return out;
  }

  async unstoredWrites(p: Principal, afterId: string | null, limit: number): Promise<string[]> {
    if (readScope(p).all !== true) throw new MnemosError('forbidden', 'only an owner may check the audit log against the store');
    return this.db
      .prepare(
        `SELECT DISTINCT a.memory_id FROM audit_log a WHERE a.memory_id > ? AND a.namespace = ? AND a.action IN (${CONTENT_WRITES.map(() => '?').join(', ')})
           AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id) ORDER BY a.memory_id LIMIT ?`,
      )
      .pluck()
      .all(afterId ?? '', p.namespace, ...CONTENT_WRITES, limit) as string[];
  }

  async range(p: Principal, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    if (readScope(p).all !== true) throw new MnemosError('forbidden', 'only an owner may read the whole audit log');
    const rows = this.db.prepare('SELECT * FROM audit_log WHERE seq > ? ORDER BY seq LIMIT ?').all(afterSeq, limit) as Record<string, unknown>[];
    return rows.map(rowToAudit);
  }

  async head(): Promise<{ seq: number; hash: string } | null> {
    return (this.db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1').get() as { seq: number; hash: string } | undefined) ?? null;
  }
}

class SqlitePending implements PendingChanges {
  constructor(private readonly db: Database.Database) {}

  async put(p: Principal, change: Omit<PendingChange, 'namespace' | 'actor' | 'createdAt'>, now = Date.now()): Promise<void> {
    readScope(p);
    const subject = typeof change.payload.lineageId === 'string' ? change.payload.lineageId : null;
    const put = this.db.transaction(() => {
      // Expired changes can never be confirmed (take refuses them); without this sweep every unconfirmed preview stayed, a row per preview for good.
      this.db.prepare('DELETE FROM pending_changes WHERE expires_at < ?').run(toIso(now));
      this.db
        .prepare('INSERT INTO pending_changes (token_hash, kind, namespace, actor, subject_id, created_at, expires_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
        .run(sha256Hex(change.token), change.kind, p.namespace, `${p.role}:${p.id}`, subject, toIso(Date.now()), change.expiresAt, JSON.stringify(change.payload));
    });
    await writeWithRetry(this.db, () => put.immediate());
  }

  async take(p: Principal, token: string, kind: string, now = Date.now()): Promise<PendingChange | null> {
    readScope(p);
    const hash = sha256Hex(token);
    const take = this.db.transaction(() => {
      const row = this.db.prepare('SELECT * FROM pending_changes WHERE token_hash = ? AND kind = ? AND namespace = ? AND actor = ?').get(hash, kind, p.namespace, `${p.role}:${p.id}`) as
        | Record<string, string>
        | undefined;
      if (!row) return null;
      this.db.prepare('DELETE FROM pending_changes WHERE token_hash = ?').run(hash);
      if (Date.parse(row.expires_at!) < now) return null;
      return { token, kind: row.kind!, namespace: row.namespace!, actor: row.actor!, createdAt: row.created_at!, expiresAt: row.expires_at!, payload: JSON.parse(row.payload!) };
    });
    return writeWithRetry(this.db, () => take.immediate());
  }
}
