import { paddedDims, simdScan, type ScanFn } from './simd-dot.ts';
import { QuantizedRows } from './vector-matrix-i8.ts';

const PAGE = 65_536;
/** WebAssembly memories stop at 4 GiB; past half of that the plain JavaScript path takes over rather than risk a failed grow. */
const MAX_WASM_BYTES = 2 ** 31;

/**
 * Rows of float32 vectors in one contiguous block, scored against a query all
 * at once. Where WebAssembly SIMD exists the block lives in a WebAssembly
 * memory and the SIMD kernel scores it; elsewhere (or for matrices too large
 * for one memory) a JavaScript loop does the same arithmetic.
 *
 * Layout in the WebAssembly memory: [query | rows × padded dims | scores].
 * Growing keeps the rows where they are; the scores area is scratch and moves
 * to the new end.
 */
export class VectorMatrix {
  readonly padded: number;
  private capacity: number;
  private memory: WebAssembly.Memory | null = null;
  private scan: ScanFn | null = null;
  private rows: Float32Array;
  private query: Float32Array;
  private out: Float32Array;
  /** The 8-bit copy for bounding passes (vector-matrix-i8.ts); null without SIMD, when turned off, or past one WebAssembly memory. */
  private quantized: QuantizedRows | null;

  constructor(
    readonly dims: number,
    opts: { initialRows?: number; simd?: boolean; quantized?: boolean } = {},
  ) {
    this.padded = paddedDims(dims);
    this.capacity = opts.initialRows ?? 1024;
    this.quantized = opts.simd !== false && opts.quantized !== false ? QuantizedRows.create(dims, this.capacity) : null;
    const bytes = this.bytesFor(this.capacity);
    if (opts.simd !== false && bytes <= MAX_WASM_BYTES) {
      const memory = new WebAssembly.Memory({ initial: Math.ceil(bytes / PAGE) });
      const scan = simdScan(memory);
      if (scan) {
        this.memory = memory;
        this.scan = scan;
      }
    }
    this.rows = new Float32Array(0);
    this.query = new Float32Array(0);
    this.out = new Float32Array(0);
    this.views();
  }

  /** Whether scoring runs in the SIMD kernel (reported by status, useful when comparing machines). */
  get simd(): boolean {
    return this.scan !== null;
  }

  private bytesFor(rows: number): number {
    return (this.padded + rows * this.padded + rows) * 4;
  }

  private views(): void {
    if (this.memory) {
      const buf = this.memory.buffer;
      this.query = new Float32Array(buf, 0, this.padded);
      this.rows = new Float32Array(buf, this.padded * 4, this.capacity * this.padded);
      this.out = new Float32Array(buf, (this.padded + this.capacity * this.padded) * 4, this.capacity);
    } else {
      const grown = new Float32Array(this.capacity * this.padded);
      grown.set(this.rows.subarray(0, Math.min(this.rows.length, grown.length)));
      this.rows = grown;
      if (this.query.length !== this.padded) this.query = new Float32Array(this.padded);
      this.out = new Float32Array(this.capacity);
    }
  }

  /** Makes room for at least `rows` rows, doubling so appends stay cheap. */
  reserve(rows: number): void {
    if (rows <= this.capacity) return;
    let next = this.capacity;
    while (next < rows) next *= 2;
    if (this.memory) {
      const need = this.bytesFor(next);
      if (need > MAX_WASM_BYTES) {
        // Too large for one WebAssembly memory: carry the rows over to a plain array.
        const old = this.rows.slice(0, this.capacity * this.padded);
        this.memory = null;
        this.scan = null;
        this.rows = old;
      } else if (need > this.memory.buffer.byteLength) {
        this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
      }
    }
    if (this.quantized && !this.quantized.reserve(next)) this.quantized = null;
    this.capacity = next;
    this.views();
  }

  set(row: number, vector: Float32Array): void {
    const o = row * this.padded;
    this.rows.set(vector, o);
    if (this.padded !== vector.length) this.rows.fill(0, o + vector.length, o + this.padded);
    this.quantized?.set(row, vector);
  }

  /**
   * Rows among 0..count-1 marked 1 in `admitted` that may be among the
   * `limit` best by `scores`, in row order, from a pass over the 8-bit copy
   * (vector-matrix-i8.ts); score only these. Null when there is no 8-bit
   * copy or the query cannot be bounded: call `scores`.
   */
  candidates(query: Float32Array, count: number, limit: number, admitted: Uint8Array): number[] | null {
    return this.quantized?.candidates(query, count, limit, admitted) ?? null;
  }

  /** The 8-bit pass's bounds on what `scores` would give rows 0..count-1 (for tests); null as for `candidates`. */
  bounds(query: Float32Array, count: number): { lo: Float32Array; hi: Float32Array } | null {
    return this.quantized?.bounds(query, count) ?? null;
  }

  /** A view of one row's first `dims` floats; valid until the next `reserve`. */
  row(slot: number): Float32Array {
    const o = slot * this.padded;
    return this.rows.subarray(o, o + this.dims);
  }

  /** Dot products of the query with rows 0..count-1; the returned array is reused by the next call. */
  scores(query: Float32Array, count: number): Float32Array {
    this.loadQuery(query);
    if (this.scan) {
      this.scan(this.rows.byteOffset, this.query.byteOffset, this.padded, count, this.out.byteOffset);
      return this.out;
    }
    for (let r = 0; r < count; r++) this.out[r] = this.dotJs(r);
    return this.out;
  }

  /**
   * Dot products of the query with the listed rows only, in list order: the
   * same arithmetic as `scores` (the SIMD kernel one row at a time, or the
   * same JavaScript loop), so a row scores identically on either path. For
   * candidate lists and small admitted sets, where scoring every row would
   * be wasted. The returned array is reused by the next call.
   */
  scoresOf(query: Float32Array, slots: ArrayLike<number>): Float32Array {
    // Distinct rows never outnumber the capacity, so the scores fit the scratch area.
    if (slots.length > this.capacity) throw new RangeError(`${slots.length} rows asked of a matrix of ${this.capacity}`);
    this.loadQuery(query);
    const n = slots.length;
    if (this.scan) {
      const rowBytes = this.padded * 4;
      for (let i = 0; i < n; i++) this.scan(this.rows.byteOffset + slots[i]! * rowBytes, this.query.byteOffset, this.padded, 1, this.out.byteOffset + i * 4);
    } else {
      for (let i = 0; i < n; i++) this.out[i] = this.dotJs(slots[i]!);
    }
    return this.out;
  }

  private loadQuery(query: Float32Array): void {
    this.query.fill(0);
    this.query.set(query);
  }

  private dotJs(r: number): number {
    const d = this.padded;
    const m = this.rows;
    const q = this.query;
    const o = r * d;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < d; j += 4) {
      s0 += m[o + j]! * q[j]!;
      s1 += m[o + j + 1]! * q[j + 1]!;
      s2 += m[o + j + 2]! * q[j + 2]!;
      s3 += m[o + j + 3]! * q[j + 3]!;
    }
    return s0 + s1 + s2 + s3;
  }
}
