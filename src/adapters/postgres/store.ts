import { CONTENT_WRITES, type AuditEntry } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import type { Memory } from '../../domain/memory.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import type { GraphStore, JobStore, LedgerStore } from '../../ports/lifecycle.ts';
import type {
  AuditLog,
  CorpusStats,
  ForgetFootprint,
  KeywordHit,
  KeywordQuery,
  ListOrder,
  MemoryContent,
  ScanPage,
  SnapshotReads,
  MemoryKey,
  MemoryFilter,
  MemoryStore,
  Page,
  PendingChanges,
  RecordedWrite,
  StoreCapabilities,
  StoreStats,
  Tombstone,
  TokenStore,
  WriteOp,
  WriteResult,
} from '../../ports/store.ts';
import { pgQuery, sql } from '../sql/placeholders.ts';
import { MEMORY_COLUMNS, rowToMemory, rowToTombstone, type MemoryRow } from '../sql/rows.ts';
import { andAll, filterSql, memoryScopeSql, scopeSql, type JsonArrayAny, type SqlPart } from '../sql/scope-sql.ts';
import { lastWrite, rowToAudit } from '../sql/audit-rows.ts';
import { connectFailed, createPool, inTransaction, isLockTimeout, isRetryable, mapPgError, rows, withRetry, type PgConnection } from './connection.ts';
import { migratePg } from './migrations.ts';
import { ensureStoreIdentity, storeIdentityName } from './store-identity.ts';
import { graphPgPlace, PgGraph } from './graph.ts';
import { expiryPgPlace, PgJobs } from './jobs.ts';
import { PgLedger } from './ledger.ts';
import { pgSnapshotReads } from './restore.ts';
import { PgPending } from './pending.ts';
import { corePgPlaces, memoriesPgPlace, type PgPlace } from './places.ts';
import { PgTokens } from './tokens.ts';
import { detectPgvector } from './pgvector.ts';
import { PgVectorIndex, vectorsPgPlace } from './vectors.ts';
import type { VectorIndexConfig } from '../../ports/vectors.ts';
import type { MigrationProgressListener } from '../../ports/migration-progress.ts';
import { checkVectorIndexConfig } from '../vector-scan.ts';
import { PgWriter, type BulkPlan } from './write.ts';
import { AnalyzeScheduler } from './analyze.ts';
import { KeywordIndex } from '../keyword-index.ts';
import { pgKeywordRows } from './keyword-rows.ts';
import { WriteGroups } from './write-groups.ts';
import { assertPruner } from '../vector-maintenance.ts';
import { tallyStats, type StatsGroup } from '../sql/stats-rows.ts';

export interface PgStoreOptions {
  /** postgres://user:pass@host:port/db, optionally with `?schema=name`. */
  url: string;
  /** Text analysis for the full-text index; the same function must analyse queries. */
  analyze: (text: string) => string[];
  /** Pool size per process (default 10). */
  poolSize?: number;
  /** Which vector index answers nearest-neighbour queries (default: exact scan, approximate above 200,000 vectors per namespace and model). */
  vectorIndex?: VectorIndexConfig;
  /** Hears how far a long migration has got while the store opens (ports/migration-progress.ts). */
  onProgress?: MigrationProgressListener;
}

/** jsonb "contains any of": written without the `?|` operator so `?` stays a placeholder. */
const jsonArrayAny: JsonArrayAny = (column, values) => ({
  sql: `EXISTS (SELECT 1 FROM jsonb_array_elements_text(${column}) AS v(x) WHERE v.x IN (${values.map(() => '?').join(', ')}))`,
  params: values,
});

const ORDER_SQL: Record<ListOrder, string> = {
  recorded_desc: 'm.recorded_at DESC, m.id DESC',
  recorded_asc: 'm.recorded_at ASC, m.id ASC',
  valid_desc: 'm.valid_from DESC, m.id DESC',
  valid_asc: 'm.valid_from ASC, m.id ASC',
  salience_desc: 'm.salience DESC, m.valid_from DESC, m.id DESC',
  source_key_asc: 'm.source_key ASC, m.id ASC',
};

const COLS = MEMORY_COLUMNS.map((c) => `m.${c}`).join(', ');

/** What a principal may read of memories (alias m), narrowed by a filter, as on SQLite (sqlite/store.ts memoryWhere). */
export function pgMemoryWhere(p: Principal, filter: MemoryFilter | null): SqlPart {
  const scope = memoryScopeSql(readScope(p));
  return filter ? andAll(scope, filterSql(filter, jsonArrayAny)) : scope;
}

/** A page of memories in a list order, as one statement: `list` runs it, and a test can EXPLAIN the very query. */
export function pgListQuery(p: Principal, filter: MemoryFilter, page: Page, order: ListOrder): { text: string; values: unknown[] } {
  return pgQuery([`SELECT ${COLS} FROM memories m WHERE `, pgMemoryWhere(p, filter), ` ORDER BY ${ORDER_SQL[order]} `, sql('LIMIT ? OFFSET ?', page.limit, page.offset ?? 0)]);
}

/**
 * How long a recall's bookkeeping (access count, activation, boost) waits
 * for the chain head. Past it the bookkeeping is skipped, so a read (GET
 * /v1/memories/:id recalls) never waits for a stuck writer: access
 * statistics are not content. Ordinary writers hold the head for a few ms.
 */
const BOOKKEEPING_LOCK_MS = 250;

/** A recall's writes: a touch, with at most lifecycle moves (lifecycle/recall.ts); touch is only ever written by recall. */
function isBookkeeping(ops: WriteOp[]): boolean {
  return ops.some((op) => op.kind === 'touch') && ops.every((op) => op.kind === 'touch' || op.kind === 'lifecycle');
}

/** One caller's write, as the group commit carries it. */
interface GroupWrite {
  p: Principal;
  ops: WriteOp[];
  plan: BulkPlan | null;
}

/** How long a readiness probe waits for PostgreSQL's answer to SELECT 1. */
const PING_TIMEOUT_MS = 2_000;

/**
 * The PostgreSQL adapter of the store port. Same semantics as SqliteStore;
 * differences are in how, not what: a pool instead of one handle, a row lock
 * on the audit chain head instead of SQLite's single writer (with writes that
 * arrive together sharing a transaction), a generated tsvector instead of FTS5.
 */
export class PgStore implements MemoryStore {
  readonly backend = 'postgres';
  readonly capabilities: StoreCapabilities;
  readonly audit: AuditLog;
  readonly pending: PendingChanges;
  readonly tokens: TokenStore;
  readonly jobs: JobStore;
  readonly graph: GraphStore;
  readonly ledger: LedgerStore;
  readonly vectors: PgVectorIndex;
  private readonly writer: PgWriter;
  /** Writes that arrive together share a transaction (write-groups.ts). */
  private readonly groups: WriteGroups<GroupWrite, WriteResult[]>;
  /** Recalls' bookkeeping, grouped apart so that its short lock wait never cuts an ordinary write's. */
  private readonly bookkeeping: WriteGroups<GroupWrite, WriteResult[]>;
  /** Recalls whose bookkeeping was skipped because the store stayed locked (for notes()). */
  private skippedBookkeeping = 0;
  /** The in-process copy of the full-text index that ranks keyword searches (the SQL query answers while it builds). */
  private readonly keywords: KeywordIndex;
  private readonly extraPlaces: PgPlace[] = [];
  private readonly analyzer: AnalyzeScheduler;
  /** The last background ANALYZE that failed, for notes(); cleared by the next one that succeeds. */
  private analyzeError: string | null = null;
  private closed = false;

  private constructor(
    private readonly conn: PgConnection,
    private readonly version: number,
    /** Whether the pgvector extension can be created in this database (reported by notes()). */
    readonly pgvectorAvailable: boolean,
    analyze: (text: string) => string[],
    vectorIndex: VectorIndexConfig | undefined,
    /** Rows in memories when PostgreSQL last gathered its statistics (0 when never). */
    analyzedRows: number,
    /** `postgres:store:<uuid>`, kept in the schema (store-identity.ts); names the files kept beside the store. */
    readonly identity: string,
  ) {
    this.analyzer = new AnalyzeScheduler(
      async () => {
        await this.conn.pool.query('ANALYZE memories, term_df');
        this.analyzeError = null;
      },
      analyzedRows,
      (err) => {
        this.analyzeError = (err as Error).message;
      },
    );
    // Vectors are searched in-process (see vectors.ts); pgvector's approximate index is not used, whether or not it is installed.
    this.vectors = new PgVectorIndex(conn, (p, f) => this.where(p, f), vectorIndex);
    this.keywords = new KeywordIndex(pgKeywordRows((parts) => this.q(parts)), analyze);
    this.capabilities = { multiProcess: true, keywordSearch: true, vectors: true, approximateVectorIndex: this.vectors.scan.approximateAvailable, jobLeases: true };
    const places = corePgPlaces();
    this.writer = new PgWriter(analyze, () => [...places, ...this.extraPlaces, memoriesPgPlace()]);
    this.groups = new WriteGroups((items) => this.applyGroup(items), (w) => w.ops.length);
    this.bookkeeping = new WriteGroups((items) => this.applyBookkeeping(items), (w) => w.ops.length);
    this.audit = new PgAuditLog(conn);
    this.pending = new PgPending(conn);
    this.tokens = new PgTokens(conn, (c, p, draft) => this.writer.appendAudit(c, p, draft, Date.now()));
    this.jobs = new PgJobs(conn, (c, p, draft) => this.writer.appendAudit(c, p, draft, Date.now()));
    this.graph = new PgGraph(conn);
    this.ledger = new PgLedger(conn, (c, p, draft) => this.writer.appendAudit(c, p, draft, Date.now()));
    this.extraPlaces.push(vectorsPgPlace(), graphPgPlace(), expiryPgPlace());
  }

  get location(): string {
    return this.conn.location;
  }

  static async open(opts: PgStoreOptions): Promise<PgStore> {
    if (opts.vectorIndex) checkVectorIndexConfig(opts.vectorIndex);
    const conn = createPool(opts.url, opts.poolSize);
    try {
      const client = await conn.pool.connect().catch((err: unknown) => {
        throw connectFailed(err, conn.location);
      });
      try {
        const version = await migratePg(client, conn.schema, opts.analyze, opts.onProgress);
        const identity = storeIdentityName(await ensureStoreIdentity(client));
        const pgvector = await detectPgvector(client);
        // reltuples is -1 until PostgreSQL has analyzed or vacuumed the table.
        const analyzed = await client.query<{ n: string }>("SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'memories'::regclass");
        return new PgStore(conn, version, pgvector, opts.analyze, opts.vectorIndex, Number(analyzed.rows[0]?.n ?? 0), identity);
      } finally {
        client.release();
      }
    } catch (err) {
      await conn.pool.end().catch(() => {});
      throw mapPgError(err, conn.location);
    }
  }

  /** Lets later parts of the adapter (vectors, graph) join forget. */
  registerPlace(place: PgPlace): void {
    this.extraPlaces.push(place);
  }

  /** Backend facts for self_state: what is available and what falls back. */
  notes(): string[] {
    const scan = this.vectors.scan.describe();
    const notes = this.pgvectorAvailable
      ? [`${scan}; pgvector is available but not used, because its HNSW index cuts the top-k before the scope filter`]
      : [`${scan}; pgvector is not installed`];
    if (this.skippedBookkeeping > 0) notes.push(`recalls: ${this.skippedBookkeeping} left access count and boost unrecorded, the store being locked by another writer for over ${BOOKKEEPING_LOCK_MS} ms`);
    if (this.analyzeError) notes.push(`planner statistics: the last background ANALYZE after bulk writes failed (${this.analyzeError}); autovacuum will gather them later`);
    return notes;
  }

  async schemaVersion(): Promise<number> {
    return this.version;
  }

  async ping(timeoutMs = PING_TIMEOUT_MS): Promise<void> {
    const location = this.conn.location;
    // A pooled query, so a healthy server costs no new connection; the timer bounds a server that takes the
    // connection but never answers (a dropped route waits for TCP's own timeout, minutes).
    const query = this.conn.pool.query('SELECT 1');
    query.catch(() => {}); // it may still fail after the timer has answered
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new MnemosError('unavailable', `PostgreSQL at ${location} did not answer SELECT 1 within ${timeoutMs} ms`, { location })), timeoutMs);
    });
    try {
      await Promise.race([query, late]);
    } catch (err) {
      // Whatever failed (refused, closed pool, timeout), the store cannot be used now: `unavailable`.
      throw connectFailed(err, location);
    } finally {
      clearTimeout(timer);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.vectors.scan.close();
    this.keywords.close();
    await this.analyzer.settled();
    await this.conn.pool.end();
  }

  async apply(p: Principal, ops: WriteOp[]): Promise<WriteResult[]> {
    readScope(p); // validates the principal
    if (ops.length === 0) return [];
    const results = await (isBookkeeping(ops) ? this.bookkeeping : this.groups).submit({ p, ops, plan: this.writer.planBulk(p, ops) });
    // New rows (not idempotent repeats) count toward the next background ANALYZE, once committed.
    this.analyzer.wrote(results.filter((r) => (r.kind === 'insert' && (r.status === 'created' || r.status === 'superseded')) || r.kind === 'update').length);
    // The forgotten words leave this process's copy of the keyword index now, not at its next search.
    if (results.some((r) => r.kind === 'forget')) {
      await this.keywords.refresh();
      this.vectors.scan.forgotten(p.namespace);
    }
    return results;
  }

  /**
   * One transaction for a group of writes. A lone write runs as it always
   * did; in a group each runs under a savepoint, and an error of its own
   * (a conflict, a forbidden change) undoes only its ops, while a
   * serialization failure or deadlock retries the whole group.
   */
  private async applyGroup(items: GroupWrite[], lockTimeoutMs?: number): Promise<({ ok: WriteResult[] } | { error: unknown })[]> {
    const now = Date.now();
    if (items.length === 1) {
      const [w] = items as [GroupWrite];
      return [{ ok: await inTransaction(this.conn, (c) => this.writer.applyAll(c, w.p, w.ops, now, w.plan), lockTimeoutMs) }];
    }
    return inTransaction(this.conn, async (c) => {
      const out: ({ ok: WriteResult[] } | { error: unknown })[] = [];
      for (const w of items) {
        // The previous member's savepoint is released in the same round trip that opens this one's (the last is released by COMMIT).
        await c.query(out.length > 0 ? 'RELEASE SAVEPOINT group_member; SAVEPOINT group_member' : 'SAVEPOINT group_member');
        try {
          out.push({ ok: await this.writer.applyAll(c, w.p, w.ops, now, w.plan) });
        } catch (err) {
          // A lock timeout fails the whole group: the next member would only wait for the same writer again.
          if (isRetryable(err) || isLockTimeout(err)) throw err;
          await c.query('ROLLBACK TO SAVEPOINT group_member');
          out.push({ error: mapPgError(err, this.conn.location) });
        }
      }
      return out;
    }, lockTimeoutMs);
  }

  /** Recalls' bookkeeping with a short lock wait; when the store stays locked it is skipped and reported done, never an error. */
  private async applyBookkeeping(items: GroupWrite[]): Promise<({ ok: WriteResult[] } | { error: unknown })[]> {
    try {
      return await this.applyGroup(items, BOOKKEEPING_LOCK_MS);
    } catch (err) {
      if (!MnemosError.is(err, 'busy')) throw err;
      this.skippedBookkeeping += items.length;
      return items.map((w) => ({ ok: w.ops.map((op): WriteResult => (op.kind === 'lifecycle' ? { kind: 'lifecycle', id: op.id } : { kind: 'touch', count: 0 })) }));
    }
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
    // The newest entry stays, the rule SQLite needs (its seq is a plain rowid), so both backends prune alike.
    const r = await withRetry(this.conn.location, () => this.conn.pool.query('DELETE FROM memory_log WHERE seq <= (SELECT max(seq) FROM memory_log) - $1', [Math.max(1, keep)]));
    return r.rowCount ?? 0;
  }

  private where(p: Principal, filter: MemoryFilter | null): SqlPart {
    return pgMemoryWhere(p, filter);
  }

  private async q<T>(parts: (string | SqlPart)[]): Promise<T[]> {
    const { text, values } = pgQuery(parts);
    return withRetry(this.conn.location, () => rows<T>(this.conn.pool, text, values));
  }

  async get(p: Principal, id: string): Promise<Memory | null> {
    const [row] = await this.q<MemoryRow>([`SELECT ${COLS} FROM memories m WHERE `, sql('m.id = ?', id), ' AND ', this.where(p, null)]);
    return row ? rowToMemory(row) : null;
  }

  async getMany(p: Principal, ids: string[]): Promise<Memory[]> {
    if (ids.length === 0) return [];
    const found = await this.q<MemoryRow>([`SELECT ${COLS} FROM memories m WHERE `, sql('m.id = ANY(?::text[])', ids), ' AND ', this.where(p, null)]);
    const order = new Map(ids.map((id, i) => [id, i]));
    return found.map(rowToMemory).sort((a, b) => order.get(a.id)! - order.get(b.id)!);
  }

  async findBySourceKey(p: Principal, sourceKey: string): Promise<Memory | null> {
    const [row] = await this.q<MemoryRow>([
      `SELECT ${COLS} FROM memories m WHERE `,
      sql('m.namespace = ? AND m.owner_id = ? AND m.source_key = ? AND m.superseded_at IS NULL', p.namespace, p.id, sourceKey),
      ' AND ',
      this.where(p, null),
    ]);
    return row ? rowToMemory(row) : null;
  }

  async list(p: Principal, filter: MemoryFilter, page: Page, order: ListOrder = 'recorded_desc'): Promise<Memory[]> {
    const { text, values } = pgListQuery(p, filter, page, order);
    const found = await withRetry(this.conn.location, () => rows<MemoryRow>(this.conn.pool, text, values));
    return found.map(rowToMemory);
  }

  async listKeys(p: Principal, filter: MemoryFilter, page: Page, order: ListOrder = 'recorded_desc'): Promise<MemoryKey[]> {
    return this.q<MemoryKey>([
      `SELECT m.id AS "id", m.owner_id AS "ownerId", m.source_key AS "sourceKey", m.content_hash AS "contentHash" FROM memories m WHERE `,
      this.where(p, filter),
      ` ORDER BY ${ORDER_SQL[order]} `,
      sql('LIMIT ? OFFSET ?', page.limit, page.offset ?? 0),
    ]);
  }

  async count(p: Principal, filter: MemoryFilter, atMost?: number): Promise<number> {
    const [r] = await this.q<{ n: number }>(
      atMost !== undefined
        ? ['SELECT count(*) AS n FROM (SELECT 1 FROM memories m WHERE ', this.where(p, filter), sql(' LIMIT ?) x', atMost)]
        : ['SELECT count(*) AS n FROM memories m WHERE ', this.where(p, filter)],
    );
    return r?.n ?? 0;
  }

  async lineage(p: Principal, lineageId: string): Promise<Memory[]> {
    const found = await this.q<MemoryRow>([`SELECT ${COLS} FROM memories m WHERE `, sql('m.lineage_id = ?', lineageId), ' AND ', this.where(p, null), ' ORDER BY m.version']);
    return found.map(rowToMemory);
  }

  /**
   * BM25-like ranking in PostgreSQL. Candidates match any query term through
   * the GIN index on the tsvector. Each matched term contributes
   * idf(term) * ts_rank(tsv, term, 1): ts_rank gives the term-frequency part,
   * damped by 1 + log(document length) (normalisation 1); the IDF is BM25's,
   * ln(1 + (N - df + 0.5) / (df + 0.5)), from term_df, which writes keep
   * current. What differs from BM25: ts_rank's saturation and length
   * normalisation instead of k1 and b. termStats gives the exact statistics
   * when the domain re-scores candidates with true BM25.
   *
   * Ranking every document that holds a very common term is what makes
   * PostgreSQL full-text slow at scale, and such terms add almost nothing to
   * the score (low IDF). So when the query's selective terms alone match
   * enough documents, only they select candidates; the common terms still
   * add to those candidates' scores (see selectiveTerms).
   */
  async keywordCandidates(p: Principal, q: KeywordQuery): Promise<KeywordHit[]> {
    const terms = [...new Set(q.terms)].filter((t) => t.length > 0);
    if (terms.length === 0) return [];
    const fromCopy = await this.keywords.search(terms, this.where(p, q.filter), q.limit);
    if (fromCopy) return fromCopy;
    const { df, documents } = await this.documentFrequencies(terms);
    const present = terms.filter((t) => (df[t] ?? 0) > 0);
    if (present.length === 0) return [];
    const idf = (t: string) => Math.log(1 + (documents - df[t]! + 0.5) / (df[t]! + 0.5));
    const score: SqlPart = {
      sql: present.map(() => `? * ts_rank(m.tsv, plainto_tsquery('simple', ?), 1)`).join(' + '),
      params: present.flatMap((t) => [idf(t), t]),
    };
    const matchOn = selectiveTerms(present, df, documents, q.limit);
    const match: SqlPart = { sql: `m.tsv @@ (${matchOn.map(() => `plainto_tsquery('simple', ?)`).join(' || ')})`, params: matchOn };
    const found = await this.q<{ id: string; score: number }>(['SELECT m.id, (', score, ')::double precision AS score FROM memories m WHERE ', match, ' AND ', this.where(p, q.filter), ' ORDER BY score DESC, m.id ', sql('LIMIT ?', q.limit)]);
    return found.map((r) => ({ id: r.id, score: Number(r.score) }));
  }

  /** Document frequencies over every stored version (as SQLite's FTS5 vocabulary counts them). */
  private async documentFrequencies(terms: string[]): Promise<{ df: Record<string, number>; documents: number }> {
    const df: Record<string, number> = Object.fromEntries(terms.map((t) => [t, 0]));
    // One round trip for both: every keyword search starts here. The row with a null term is the document count.
    const found = await this.q<{ term: string | null; df: number }>([
      'SELECT NULL::text AS term, documents AS df FROM fts_docs UNION ALL SELECT term, df FROM term_df WHERE ',
      sql('term = ANY(?::text[])', terms),
    ]);
    let documents = 0;
    for (const r of found) {
      if (r.term === null) documents = Number(r.df);
      else df[r.term] = r.df;
    }
    return { df, documents };
  }

  async termStats(p: Principal, terms: string[]): Promise<{ stats: CorpusStats; df: Record<string, number> }> {
    readScope(p);
    // Counts over the whole index, like the SQLite adapter: cheap, text-free, and what BM25's IDF needs.
    const [agg] = await this.q<{ n: number; avg: number }>(['SELECT count(*) AS n, coalesce(avg(doc_len), 0)::double precision AS avg FROM memories WHERE superseded_at IS NULL']);
    const { df } = await this.documentFrequencies([...new Set(terms)]);
    return { stats: { documents: agg?.n ?? 0, averageLength: Number(agg?.avg ?? 0) }, df };
  }

  async forgetFootprint(p: Principal, lineageId: string): Promise<ForgetFootprint | null> {
    const visible = await this.q<{ one: number }>(['SELECT 1 AS one FROM memories m WHERE ', sql('m.lineage_id = ?', lineageId), ' AND ', this.where(p, null), ' LIMIT 1']);
    return visible.length > 0 ? withRetry(this.conn.location, () => this.writer.footprint(this.conn.pool, lineageId, p.namespace)) : null;
  }

  async scan(p: Principal, afterId: string | null, limit: number): Promise<Memory[]> {
    return (await this.q<MemoryRow>(this.scanQuery(p, afterId, limit))).map(rowToMemory);
  }

  private scanQuery(p: Principal, afterId: string | null, limit: number): (string | SqlPart)[] {
    return [`SELECT ${COLS} FROM memories m WHERE `, sql('m.id > ?', afterId ?? ''), ' AND ', this.where(p, null), ' ORDER BY m.id ', sql('LIMIT ?', limit)];
  }

  async snapshot<T>(read: (scan: ScanPage, reads: SnapshotReads) => Promise<T>): Promise<T> {
    // One connection in one repeatable-read transaction: every page sees the state of its first query.
    const client = await withRetry(this.conn.location, () => this.conn.pool.connect());
    let done = false;
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const result = await read(async (p, afterId, limit) => {
        const { text, values } = pgQuery(this.scanQuery(p, afterId, limit));
        return (await rows<MemoryRow>(client, text, values)).map(rowToMemory);
      }, pgSnapshotReads(client));
      await client.query('COMMIT');
      done = true;
      return result;
    } catch (err) {
      // A connection lost mid-scan (an export, a copy) is `unavailable`, as everywhere else.
      throw mapPgError(err, this.conn.location);
    } finally {
      if (!done) await client.query('ROLLBACK').catch(() => undefined);
      client.release();
    }
  }

  async scanContent(p: Principal, afterId: string | null, limit: number): Promise<MemoryContent[]> {
    return this.q<MemoryContent>([
      'SELECT m.id AS "id", m.text AS "text", m.content_hash AS "contentHash" FROM memories m WHERE ',
      sql('m.id > ?', afterId ?? ''),
      ' AND ',
      this.where(p, null),
      ' ORDER BY m.id ',
      sql('LIMIT ?', limit),
    ]);
  }

  async tombstone(p: Principal, id: string): Promise<Tombstone | null> {
    const [row] = await this.q<Record<string, string>>([
      'SELECT t.* FROM tombstones t WHERE ',
      sql('t.lineage_id = coalesce((SELECT lineage_id FROM tombstone_ids WHERE id = ?), ?)', id, id),
      ' AND ',
      scopeSql(readScope(p), 't'),
    ]);
    return row ? rowToTombstone(row) : null;
  }

  async stats(p: Principal): Promise<StoreStats> {
    const w = this.where(p, null);
    const groups = await this.q<StatsGroup>(['SELECT m.type, m.lifecycle, m.superseded_at IS NULL AS current, count(*) AS n FROM memories m WHERE ', w, ' GROUP BY 1, 2, 3']);
    const { total, byType, byLifecycle, superseded } = tallyStats(groups);
    const [size] = await this.q<{ bytes: number }>(["SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) AS bytes FROM pg_class c WHERE c.relkind = 'r' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())"]);
    const [audit] = await this.q<{ n: number }>(['SELECT count(*) AS n FROM audit_log']);
    return { total, byType, byLifecycle, superseded, bytes: size?.bytes ?? null, schemaVersion: this.version, auditEntries: audit?.n ?? 0 };
  }
}

/** A term in more than this share of documents does not select candidates by itself (IDF below ln 20 ~ 3). */
const COMMON_SHARE = 0.05;

/**
 * The terms that select candidates: all of them, unless the selective ones
 * (each in at most COMMON_SHARE of documents) already match at least
 * 4 x limit documents; then only those. A document holding none of the
 * selective terms scores at most the sum of the common terms' small IDFs.
 */
export function selectiveTerms(terms: string[], df: Record<string, number>, documents: number, limit: number): string[] {
  const rare = terms.filter((t) => (df[t] ?? 0) <= documents * COMMON_SHARE);
  if (rare.length === 0 || rare.length === terms.length) return terms;
  // The largest of their counts is a lower bound on how many documents they match together.
  const reach = Math.max(...rare.map((t) => df[t] ?? 0));
  return reach >= 4 * limit ? rare : terms;
}

class PgAuditLog implements AuditLog {
  constructor(private readonly conn: PgConnection) {}

  async forMemories(p: Principal, ids: string[]): Promise<AuditEntry[]> {
    readScope(p);
    if (ids.length === 0) return [];
    const found = await withRetry(this.conn.location, () =>
      rows<Record<string, unknown>>(this.conn.pool, 'SELECT * FROM audit_log WHERE namespace = $1 AND memory_id = ANY($2::text[]) ORDER BY seq', [p.namespace, ids]),
    );
    return found.map(rowToAudit);
  }

  async recordedHashes(p: Principal, ids: string[]): Promise<Map<string, RecordedWrite>> {
    readScope(p);
    const out = new Map<string, RecordedWrite>();
    if (ids.length === 0) return out;
    const found = await withRetry(this.conn.location, () =>
      rows<{ id: string; hash: string | null; claims: string | null }>(
        this.conn.pool,
        "SELECT memory_id AS id, after_hash AS hash, details::json->>'claims' AS claims FROM audit_log WHERE namespace = $1 AND memory_id = ANY($2::text[]) AND action = ANY($3::text[]) ORDER BY seq",
        [p.namespace, ids, CONTENT_WRITES],
      ),
    );
    // Oldest first: the last write of each version wins.
    for (const r of found) out.set(r.id, lastWrite(out.get(r.id), r.hash, r.claims));
    return out;
  }

  async unstoredWrites(p: Principal, afterId: string | null, limit: number): Promise<string[]> {
    if (readScope(p).all !== true) throw new MnemosError('forbidden', 'only an owner may check the audit log against the store');
    const found = await withRetry(this.conn.location, () =>
      rows<{ id: string }>(
        this.conn.pool,
        `SELECT DISTINCT a.memory_id AS id FROM audit_log a WHERE a.memory_id > $1 AND a.namespace = $2 AND a.action = ANY($3::text[])
           AND NOT EXISTS (SELECT 1 FROM memories m WHERE m.id = a.memory_id) ORDER BY a.memory_id LIMIT $4`,
        [afterId ?? '', p.namespace, CONTENT_WRITES, limit],
      ),
    );
    return found.map((r) => r.id);
  }

  async range(p: Principal, afterSeq: number, limit: number): Promise<AuditEntry[]> {
    if (readScope(p).all !== true) throw new MnemosError('forbidden', 'only an owner may read the whole audit log');
    const found = await withRetry(this.conn.location, () => rows<Record<string, unknown>>(this.conn.pool, 'SELECT * FROM audit_log WHERE seq > $1 ORDER BY seq LIMIT $2', [afterSeq, limit]));
    return found.map(rowToAudit);
  }

  async head(): Promise<{ seq: number; hash: string } | null> {
    const [r] = await withRetry(this.conn.location, () => rows<{ seq: number; hash: string }>(this.conn.pool, 'SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1'));
    return r ?? null;
  }
}
