import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryFilter } from '../ports/store.ts';
import type { VectorHit } from '../ports/vectors.ts';
import type { SqlPart } from './sql/scope-sql.ts';
import { VectorCache, type VectorRows } from './vector-cache.ts';

/** The stored form of a vector in both SQL backends: its float32 bytes, in the machine's byte order. */
export function vectorToBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Copies the bytes, so the array is aligned and owns its memory whatever buffer the driver handed over. */
export function vectorFromBytes(b: Uint8Array): Float32Array {
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/** What an adapter supplies so the scan can ask its own SQL which rows a principal and filter admit. */
export interface AdmittedRowsSource {
  /** The store's scope-and-filter SQL (scope-sql.ts), with `?` placeholders. */
  where(p: Principal, filter: MemoryFilter): SqlPart;
  /** Numeric row keys (the ones the change log names) of the memories `w` admits. */
  rowsWhere(w: SqlPart): Promise<number[]>;
  /** Changes whenever a write may have changed which rows a filter admits. */
  dataVersion(): Promise<string>;
}

/**
 * Nearest neighbours by an exact scan of in-process matrices (one
 * VectorCache per model), shared by the SQL adapters. Scope and filters come
 * first: the store's SQL names the admitted rows, and only those are scored,
 * so no global top-k is ever cut before the read rule applies. Admitted sets
 * are reused until the store's data version moves.
 */
export class ExactVectorScan {
  private readonly caches = new Map<string, VectorCache>();
  private readonly admitted = new Map<string, { version: string; rows: Set<number> }>();

  constructor(
    private readonly rows: VectorRows,
    private readonly source: AdmittedRowsSource,
  ) {}

  async nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorHit[]> {
    let cache = this.caches.get(q.model);
    if (!cache) {
      cache = new VectorCache(q.model, q.vector.length, this.rows);
      this.caches.set(q.model, cache);
    }
    if (cache.dims !== q.vector.length) throw new MnemosError('validation_failed', `query vector has ${q.vector.length} dimensions; model ${q.model} has ${cache.dims}`);
    await cache.refresh();
    return cache.nearest(q.vector, await this.admittedRows(p, q.filter), q.limit);
  }

  private async admittedRows(p: Principal, filter: MemoryFilter): Promise<Set<number>> {
    const w = this.source.where(p, filter);
    // Epoch-ms parameters (the expiry cut-off is "now") are keyed by the minute, or no set would ever be reused.
    const key = `${w.sql}\u0000${JSON.stringify(w.params.map((x) => (typeof x === 'number' && x > 1e12 ? Math.floor(x / 60_000) : x)))}`;
    // Read the version before the rows: a write landing in between makes the next call recompute, never miss.
    const version = await this.source.dataVersion();
    const hit = this.admitted.get(key);
    if (hit && hit.version === version) return hit.rows;
    const rows = new Set(await this.source.rowsWhere(w));
    if (this.admitted.size > 64) this.admitted.clear();
    this.admitted.set(key, { version, rows });
    return rows;
  }
}
