import type Database from 'better-sqlite3';
import { MnemosError } from '../../domain/errors.ts';
import { canWrite, type Principal } from '../../domain/principal.ts';
import { toIso } from '../../domain/time.ts';
import type { MemoryFilter } from '../../ports/store.ts';
import type { VectorIndex, VectorIndexConfig, VectorIndexUse, VectorMatches } from '../../ports/vectors.ts';
import type { SqlPart } from '../sql/scope-sql.ts';
import type { VectorRow, VectorRows } from '../vector-cache.ts';
import { graphSnapshotsFor } from '../graph-snapshots.ts';
import { VectorScan, vectorToBytes, vectorView } from '../vector-scan.ts';
import { assertModelDrop, assertPruner } from '../vector-maintenance.ts';
import type { DerivedPlace } from './places.ts';
import type { StatementCache } from './statements.ts';
import { walkIdOrder } from './id-walk.ts';

/**
 * Vectors for SQLite: stored as float32 blobs beside the memory rows (removed
 * with them by a cascading key), searched from an in-process matrix that
 * follows the change log, by an exact scan or, for large namespaces, an
 * approximate index (VectorScan, shared with PostgreSQL). Scope and filters
 * come from the store's own SQL (the one place the read rule lives).
 */
/** Ids examined per step of `missing`. */
const MISSING_CHUNK = 2000;

export class SqliteVectorIndex implements VectorIndex, VectorRows {
  readonly scan: VectorScan;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly where: (p: Principal, filter: MemoryFilter | null) => SqlPart,
    dataVersion: () => string,
    private readonly afterWrite: () => void = () => {},
    config?: VectorIndexConfig,
    location = ':memory:',
  ) {
    this.scan = new VectorScan(
      this,
      {
        where,
        rowsWhere: async (w) => (this.statements.get(`SELECT m.rowid AS r FROM memories m WHERE ${w.sql}`).all(...w.params) as { r: number }[]).map((x) => x.r),
        // The candidates drive the join (CROSS JOIN pins the order): left to itself the planner walked the
        // namespace index and tested every memory against the list, 15 ms for 400 candidates at 100k memories.
        rowsAmong: async (w, rowids) =>
          (this.statements.get(`SELECT m.rowid AS r FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value WHERE ${w.sql}`).all(JSON.stringify(rowids), ...w.params) as { r: number }[]).map(
            (x) => x.r,
          ),
        dataVersion: async () => dataVersion(),
      },
      config,
      graphSnapshotsFor(config?.graphDir, { file: location }),
    );
  }

  async logHead(): Promise<number> {
    return (this.statements.get('SELECT coalesce(max(seq), 0) AS s FROM vector_log').get() as { s: number }).s;
  }

  async logTail(): Promise<number> {
    return (this.statements.get('SELECT coalesce(min(seq), 0) AS s FROM vector_log').get() as { s: number }).s;
  }

  async pruneLog(p: Principal, keep: number): Promise<number> {
    assertPruner(p, keep);
    // seq is AUTOINCREMENT: never reused, so what a reader saw stays below what is written later.
    // The newest entry always stays: readers tell "nothing changed" from "no entry after mine" (VectorCache).
    return this.statements.get('DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - ?').run(Math.max(1, keep)).changes;
  }

  async dropReplacedModels(p: Principal, family: string, current: string): Promise<number> {
    assertModelDrop(p, family, current);
    // substr, not LIKE: a model id may hold '_' or '%'.
    const dropped = this.statements
      .get('DELETE FROM memory_vectors WHERE substr(model, 1, length(?)) = ? AND model <> ? AND memory_rowid IN (SELECT rowid FROM memories WHERE namespace = ?)')
      .run(family, family, current, p.namespace).changes;
    this.scan.modelsReplaced(p.namespace, current);
    return dropped;
  }

  async changedSince(seq: number): Promise<{ seq: number; rowid: number }[]> {
    return (this.statements.get('SELECT seq, memory_rowid AS rowid FROM vector_log WHERE seq > ? ORDER BY seq').all(seq) as { seq: number; rowid: number }[]);
  }

  async eachVector(model: string, rowids: number[] | null, visit: (row: VectorRow) => void): Promise<void> {
    const base = 'SELECT v.memory_rowid, m.id, m.namespace, v.vector FROM memory_vectors v JOIN memories m ON m.rowid = v.memory_rowid WHERE v.model = ?';
    // Rows stream from the cursor straight to `visit`, all in one synchronous stretch (the port's promise):
    // no array of 100k row objects and their buffers to build and collect first.
    const read = (rowids === null ? this.db.prepare(base) : this.db.prepare(`${base} AND v.memory_rowid IN (${rowids.map(() => '?').join(', ')})`)).raw();
    for (const [rowid, id, namespace, vector] of read.iterate(model, ...(rowids ?? [])) as IterableIterator<[number, string, string, Buffer]>) {
      visit({ rowid, id, namespace, vector: vectorView(vector) });
    }
  }

  async nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorMatches> {
    return this.scan.nearest(p, q);
  }

  async prepare(p: Principal, q: { model: string; dimensions: number; wait?: boolean }): Promise<VectorIndexUse> {
    return this.scan.prepare(p, q);
  }

  async put(p: Principal, items: { id: string; model: string; vector: Float32Array }[]): Promise<number> {
    const find = this.db.prepare('SELECT rowid, namespace, owner_id AS ownerId FROM memories WHERE id = ?');
    const put = this.db.prepare('INSERT OR REPLACE INTO memory_vectors (memory_rowid, model, vector) VALUES (?, ?, ?)');
    const run = this.db.transaction(() => {
      let n = 0;
      for (const it of items) {
        const m = find.get(it.id) as { rowid: number; namespace: string; ownerId: string } | undefined;
        if (!m || !canWrite(p, m)) continue;
        put.run(m.rowid, it.model, vectorToBytes(it.vector));
        n++;
      }
      return n;
    });
    const n = run.immediate();
    this.afterWrite();
    return n;
  }

  async missing(p: Principal, model: string, limit: number, afterId?: string | null): Promise<{ id: string; text: string }[]> {
    const w = this.where(p, {});
    const filter = this.statements.get(
      `SELECT m.id AS id, m.text AS text FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value LEFT JOIN memory_vectors v ON v.memory_rowid = m.rowid AND v.model = ? WHERE v.memory_rowid IS NULL AND ${w.sql} ORDER BY m.id`,
    );
    return walkIdOrder(this.statements, afterId ?? null, limit, MISSING_CHUNK, (rowids) => filter.all(rowids, model, ...w.params) as { id: string; text: string }[]);
  }

  async count(p: Principal, model: string): Promise<number> {
    const w = this.where(p, {});
    return (this.db.prepare(`SELECT count(*) AS n FROM memories m JOIN memory_vectors v ON v.memory_rowid = m.rowid AND v.model = ? WHERE ${w.sql}`).get(model, ...w.params) as { n: number }).n;
  }

  async loadModel(p: Principal, provider: string) {
    const r = this.db.prepare('SELECT model, state, texts, trained_at FROM embedding_models WHERE namespace = ? AND provider = ?').get(p.namespace, provider) as
      | { model: string; state: string | null; texts: number; trained_at: string }
      | undefined;
    return r ? { model: r.model, state: r.state === null ? null : JSON.parse(r.state), texts: r.texts, trainedAt: r.trained_at } : null;
  }

  async modelId(p: Principal, provider: string): Promise<string | null> {
    // Every write asks (a model another process trained must not be missed), so the statement is kept: preparing it cost more than running it.
    const r = this.statements.get('SELECT model FROM embedding_models WHERE namespace = ? AND provider = ?').get(p.namespace, provider) as { model: string } | undefined;
    return r?.model ?? null;
  }

  async saveModel(p: Principal, provider: string, m: { model: string; state: unknown; texts: number }): Promise<void> {
    if (p.role !== 'owner') throw new MnemosError('forbidden', 'only an owner may replace the embedding model of a namespace');
    this.db
      .prepare('INSERT OR REPLACE INTO embedding_models (namespace, provider, model, state, texts, trained_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(p.namespace, provider, m.model, m.state === null ? null : JSON.stringify(m.state), m.texts, toIso(Date.now()));
  }

  async deleteModel(p: Principal, provider: string): Promise<boolean> {
    if (p.role !== 'owner') throw new MnemosError('forbidden', 'only an owner may remove the embedding model of a namespace');
    return this.db.prepare('DELETE FROM embedding_models WHERE namespace = ? AND provider = ?').run(p.namespace, provider).changes > 0;
  }

  /** Forget counts and removes vectors like every other derived place. */
  place(): DerivedPlace {
    const count = this.db.prepare('SELECT count(*) AS n FROM memory_vectors WHERE memory_rowid = ?');
    const del = this.db.prepare('DELETE FROM memory_vectors WHERE memory_rowid = ?');
    return {
      name: 'vectors',
      count: (rowids) => rowids.reduce((n, r) => n + (count.get(r) as { n: number }).n, 0),
      remove: (rowids) => {
        for (const r of rowids) del.run(r);
      },
    };
  }
}
