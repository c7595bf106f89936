import type pg from 'pg';
import { MnemosError } from '../../domain/errors.ts';
import { canWrite, type Principal } from '../../domain/principal.ts';
import { toIso } from '../../domain/time.ts';
import type { MemoryFilter } from '../../ports/store.ts';
import type { VectorIndex, VectorIndexConfig, VectorIndexUse, VectorMatches } from '../../ports/vectors.ts';
import { pgQuery, sql } from '../sql/placeholders.ts';
import type { SqlPart } from '../sql/scope-sql.ts';
import type { VectorRow, VectorRows } from '../vector-cache.ts';
import { assertModelDrop, assertPruner } from '../vector-maintenance.ts';
import { graphSnapshotsFor } from '../graph-snapshots.ts';
import { VectorScan, vectorToBytes, vectorView } from '../vector-scan.ts';
import { inTransaction, rows, withRetry, type PgConnection, type Queryable } from './connection.ts';
import type { PgPlace } from './places.ts';

/** Rows per page of a one-off scan (`scanVectors`): about 5 MB of 192-dimension vectors in the client at a time. */
const SCAN_PAGE = 5000;

/**
 * Writes (or replaces) vectors by memory row number. Callers hold the audit
 * chain head lock already (the writer's batch, or put below), so the change
 * log trigger's own lock is a no-op and cannot deadlock behind these rows.
 */
export async function writeVectors(c: pg.PoolClient, items: { row: number; model: string; vector: Float32Array }[]): Promise<void> {
  if (items.length === 0) return;
  const { starts, lengths, bytes } = packVectors(items.map((i) => i.vector));
  await c.query(
    `INSERT INTO memory_vectors (memory_row, model, vector)
     SELECT r.row_no, r.model, substring($5::bytea FROM r.start FOR r.len) FROM unnest($1::bigint[], $2::text[], $3::int[], $4::int[]) AS r(row_no, model, start, len)
     ON CONFLICT (memory_row, model) DO UPDATE SET vector = excluded.vector`,
    [items.map((i) => i.row), items.map((i) => i.model), starts, lengths, bytes],
  );
}

/**
 * Vectors as one binary parameter and the 1-based start and length of each,
 * for the server to cut apart with substring(): a bytea[] parameter is sent
 * as text, which doubled every byte into hex and cost more than the insert.
 */
export function packVectors(vectors: Float32Array[]): { starts: number[]; lengths: number[]; bytes: Buffer } {
  const starts: number[] = [];
  const lengths: number[] = [];
  let at = 0;
  for (const v of vectors) {
    starts.push(at + 1);
    lengths.push(v.byteLength);
    at += v.byteLength;
  }
  const bytes = Buffer.allocUnsafe(at);
  vectors.forEach((v, k) => bytes.set(vectorToBytes(v), starts[k]! - 1));
  return { starts, lengths, bytes };
}

/**
 * Vectors for PostgreSQL without any extension: float32 bytes in
 * `memory_vectors` beside the memory rows (removed with them), searched
 * in-process by the same VectorScan SQLite uses (an exact scan, or an
 * approximate index for large namespaces). Every process
 * follows `vector_log`, so several servers on one database see each other's
 * writes and forgets. Scope and filters come from the store's own SQL as a
 * set of admitted row numbers, reused until the audit chain head moves
 * (every write that can change what a filter admits appends to that chain).
 */
export class PgVectorIndex implements VectorIndex, VectorRows {
  readonly scan: VectorScan;

  constructor(
    private readonly conn: PgConnection,
    private readonly where: (p: Principal, filter: MemoryFilter | null) => SqlPart,
    config?: VectorIndexConfig,
  ) {
    this.scan = new VectorScan(
      this,
      {
        where,
        rowsWhere: async (w) => (await this.q<{ r: number }>(['SELECT m.row_no AS r FROM memories m WHERE ', w])).map((x) => x.r),
        rowsAmong: async (w, rowids) => (await this.q<{ r: number }>(['SELECT m.row_no AS r FROM memories m WHERE ', sql('m.row_no = ANY(?::bigint[])', rowids), ' AND ', w])).map((x) => x.r),
        dataVersion: async () => String((await this.q<{ seq: number }>(['SELECT seq FROM audit_head WHERE one']))[0]?.seq ?? 0),
      },
      config,
      graphSnapshotsFor(config?.graphDir, { server: conn.location }),
    );
  }

  private async q<T>(parts: (string | SqlPart)[]): Promise<T[]> {
    const { text, values } = pgQuery(parts);
    return withRetry(this.conn.location, () => rows<T>(this.conn.pool, text, values));
  }

  async logHead(): Promise<number> {
    return (await this.q<{ s: number }>(['SELECT coalesce(max(seq), 0) AS s FROM vector_log']))[0]!.s;
  }

  async logTail(): Promise<number> {
    return (await this.q<{ s: number }>(['SELECT coalesce(min(seq), 0) AS s FROM vector_log']))[0]!.s;
  }

  async pruneLog(p: Principal, keep: number): Promise<number> {
    assertPruner(p, keep);
    // The newest entry always stays: readers tell "nothing changed" from "no entry after mine" (VectorCache).
    const r = await withRetry(this.conn.location, () => this.conn.pool.query('DELETE FROM vector_log WHERE seq <= (SELECT max(seq) FROM vector_log) - $1', [Math.max(1, keep)]));
    return r.rowCount ?? 0;
  }

  async dropReplacedModels(p: Principal, family: string, current: string): Promise<number> {
    assertModelDrop(p, family, current);
    const dropped = await inTransaction(this.conn, async (c) => {
      // The same lock order as a write batch (chain head, then rows): a forget cascading into these rows cannot deadlock with it.
      await c.query('SELECT 1 FROM audit_head WHERE one FOR UPDATE');
      const r = await c.query(
        'DELETE FROM memory_vectors v USING memories m WHERE m.row_no = v.memory_row AND m.namespace = $1 AND left(v.model, length($2)) = $2 AND v.model <> $3',
        [p.namespace, family, current],
      );
      return r.rowCount ?? 0;
    });
    this.scan.modelsReplaced(p.namespace, current);
    return dropped;
  }

  async changedSince(seq: number): Promise<{ seq: number; rowid: number }[]> {
    return this.q(['SELECT seq, memory_row AS rowid FROM vector_log WHERE ', sql('seq > ?', seq), ' ORDER BY seq']);
  }

  async eachVector(model: string, rowids: number[] | null, visit: (row: VectorRow) => void): Promise<void> {
    const found = await this.vectorRows(model, rowids === null ? [] : [' AND ', sql('v.memory_row = ANY(?::bigint[])', rowids)]);
    // Every row is read before the first visit, so the visits run in one synchronous stretch (the port's promise).
    for (const r of found) visit({ rowid: r.rowid, id: r.id, namespace: r.namespace, vector: vectorView(r.vector) });
  }

  async scanVectors(model: string, visit: (row: VectorRow) => void): Promise<void> {
    // Pages in row order by the primary key (memory_row, model): a one-off scan of a million vectors
    // would otherwise hold every row in the client at once, about 1 KB each.
    for (let after = 0; ; ) {
      const page = await this.vectorRows(model, [sql(' AND v.memory_row > ?', after), ' ORDER BY v.memory_row ', sql('LIMIT ?', SCAN_PAGE)]);
      for (const r of page) visit({ rowid: r.rowid, id: r.id, namespace: r.namespace, vector: vectorView(r.vector) });
      if (page.length < SCAN_PAGE) return;
      after = page[page.length - 1]!.rowid;
    }
  }

  /** Stored vectors of a model with their memory's id and namespace; `rest` narrows, orders or pages them. */
  private vectorRows(model: string, rest: (string | SqlPart)[]) {
    return this.q<{ rowid: number; id: string; namespace: string; vector: Buffer }>([
      'SELECT v.memory_row AS rowid, m.id, m.namespace, v.vector FROM memory_vectors v JOIN memories m ON m.row_no = v.memory_row WHERE ',
      sql('v.model = ?', model),
      ...rest,
    ]);
  }

  async nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorMatches> {
    return this.scan.nearest(p, q);
  }

  async prepare(p: Principal, q: { model: string; dimensions: number; wait?: boolean }): Promise<VectorIndexUse> {
    return this.scan.prepare(p, q);
  }

  async put(p: Principal, items: { id: string; model: string; vector: Float32Array }[]): Promise<number> {
    if (items.length === 0) return 0;
    return inTransaction(this.conn, async (c) => {
      // The same lock order as a write batch: chain head first, then rows.
      await c.query('SELECT 1 FROM audit_head WHERE one FOR UPDATE');
      const found = await rows<{ row_no: number; id: string; namespace: string; ownerId: string }>(
        c,
        'SELECT row_no, id, namespace, owner_id AS "ownerId" FROM memories WHERE id = ANY($1::text[])',
        [items.map((i) => i.id)],
      );
      const byId = new Map(found.filter((m) => canWrite(p, m)).map((m) => [m.id, m.row_no]));
      const writable = items.flatMap((i) => (byId.has(i.id) ? [{ row: byId.get(i.id)!, model: i.model, vector: i.vector }] : []));
      await writeVectors(c, writable);
      return writable.length;
    });
  }

  async missing(p: Principal, model: string, limit: number, afterId?: string | null): Promise<{ id: string; text: string }[]> {
    return this.q([
      'SELECT m.id, m.text FROM memories m LEFT JOIN memory_vectors v ON v.memory_row = m.row_no AND ',
      sql('v.model = ?', model),
      ' WHERE ',
      sql('m.id > ?', afterId ?? ''),
      ' AND v.memory_row IS NULL AND ',
      this.where(p, {}),
      ' ORDER BY m.id ',
      sql('LIMIT ?', limit),
    ]);
  }

  async count(p: Principal, model: string): Promise<number> {
    const [r] = await this.q<{ n: number }>(['SELECT count(*) AS n FROM memories m JOIN memory_vectors v ON v.memory_row = m.row_no AND ', sql('v.model = ?', model), ' WHERE ', this.where(p, {})]);
    return r?.n ?? 0;
  }

  async loadModel(p: Principal, provider: string) {
    const [r] = await this.q<{ model: string; state: string | null; texts: number; trained_at: string }>([
      'SELECT model, state, texts, trained_at FROM embedding_models WHERE ',
      sql('namespace = ? AND provider = ?', p.namespace, provider),
    ]);
    return r ? { model: r.model, state: r.state === null ? null : JSON.parse(r.state), texts: r.texts, trainedAt: r.trained_at } : null;
  }

  async modelId(p: Principal, provider: string): Promise<string | null> {
    const [r] = await this.q<{ model: string }>(['SELECT model FROM embedding_models WHERE ', sql('namespace = ? AND provider = ?', p.namespace, provider)]);
    return r?.model ?? null;
  }

  async saveModel(p: Principal, provider: string, m: { model: string; state: unknown; texts: number }): Promise<void> {
    if (p.role !== 'owner') throw new MnemosError('forbidden', 'only an owner may replace the embedding model of a namespace');
    await this.q([
      'INSERT INTO embedding_models (namespace, provider, model, state, texts, trained_at) VALUES ',
      sql('(?, ?, ?, ?, ?, ?)', p.namespace, provider, m.model, m.state === null ? null : JSON.stringify(m.state), m.texts, toIso(Date.now())),
      ' ON CONFLICT (namespace, provider) DO UPDATE SET model = excluded.model, state = excluded.state, texts = excluded.texts, trained_at = excluded.trained_at',
    ]);
  }

  async deleteModel(p: Principal, provider: string): Promise<boolean> {
    if (p.role !== 'owner') throw new MnemosError('forbidden', 'only an owner may remove the embedding model of a namespace');
    return (await this.q(['DELETE FROM embedding_models WHERE ', sql('namespace = ? AND provider = ?', p.namespace, provider), ' RETURNING provider'])).length > 0;
  }
}

/** Forget counts and removes vectors like every other derived place (the foreign key would cascade too; this names them). */
export function vectorsPgPlace(): PgPlace {
  const count = async (c: Queryable, ids: string[]) =>
    Number((await rows<{ n: number }>(c, 'SELECT count(*) AS n FROM memory_vectors v JOIN memories m ON m.row_no = v.memory_row WHERE m.id = ANY($1::text[])', [ids]))[0]?.n ?? 0);
  return {
    name: 'vectors',
    count,
    remove: async (c, ids) => void (await c.query('DELETE FROM memory_vectors v USING memories m WHERE m.row_no = v.memory_row AND m.id = ANY($1::text[])', [ids])),
  };
}
