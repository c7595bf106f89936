import { int8RowBytes, int8Stride, simdBound8, type Bound8Fn } from './simd-dot-i8.ts';

const PAGE = 65_536;
const MAX_WASM_BYTES = 2 ** 31;
/** Slack for float32 rounding in the exact kernel, as a multiple of 2^-24 per dimension; generous on purpose. */
const ROUNDING_ULPS_PER_DIM = 4;
/** Rows or queries with a component this large get no bound (their float32 products could overflow); such rows are always scored exactly. */
const HUGE = 1e15;
/** Nor do rows or queries whose largest component is this small: their scale would underflow float32. */
const TINY = 1e-30;

/**
 * An 8-bit copy of a VectorMatrix's rows, for a fast first pass that bounds
 * every row's score instead of computing it.
 *
 * Each row v is stored as round(v / s) with s = max|v| / 127, and the query
 * as round(q / t) in 16 bits, t chosen so no integer sum can overflow. With
 * e = v - s·v̂ (|e_j| <= s/2) and f = q - t·q̂ (|f_j| <= t/2):
 *
 *   |q·v - s·t·(q̂·v̂)| <= (s·t/2)·(|q̂|₁ + |v̂|₁ + d/2)
 *
 * plus the float32 kernel's own rounding, bounded through
 * Σ|q_j·v_j| <= |q|₁·127·s. So every row gets [lo, hi] holding the score
 * the exact kernel will give it (the kernel, simd-dot-i8.ts, widens it for
 * its own float32 arithmetic), and the caller rules rows out without scoring
 * them: the result stays exactly that of the full float32 scan.
 *
 * A row with a non-finite value, or one past 1e15 (whose float32 products
 * could overflow) or under 1e-30, gets no bound: always scored exactly.
 *
 * Memory: [rows | admitted bytes | lo | hi | query]; each row is its values
 * then s/2 and |v̂|₁ + d/2 as float32, so growing moves only scratch areas.
 */
export class QuantizedRows {
  readonly stride: number;
  private readonly rowBytes: number;
  private readonly memory: WebAssembly.Memory;
  private readonly bound: Bound8Fn;
  private capacity = 0;
  private bytes = new Uint8Array(0);
  private rowFloats = new Float32Array(0);
  private admitted = new Uint8Array(0);
  private lo = new Float32Array(0);
  private hi = new Float32Array(0);
  private query = new Int16Array(0);
  /** The largest integer a query component may take: stride · 127 · max stays below 2^31. */
  private readonly queryMax: number;

  /** Null where WebAssembly SIMD is missing: the caller scans in float32 only. */
  static create(dims: number, capacity: number): QuantizedRows | null {
    const rowBytes = int8RowBytes(dims);
    if (QuantizedRows.bytesFor(rowBytes, int8Stride(dims), capacity) > MAX_WASM_BYTES) return null;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(QuantizedRows.bytesFor(rowBytes, int8Stride(dims), capacity) / PAGE) });
    const bound = simdBound8(memory);
    return bound ? new QuantizedRows(dims, memory, bound, capacity) : null;
  }

  private static bytesFor(rowBytes: number, stride: number, rows: number): number {
    const admitted = Math.ceil(rows / 16) * 16;
    return rows * rowBytes + admitted + rows * 8 + stride * 2;
  }

  private constructor(
    readonly dims: number,
    memory: WebAssembly.Memory,
    bound: Bound8Fn,
    capacity: number,
  ) {
    this.stride = int8Stride(dims);
    this.rowBytes = int8RowBytes(dims);
    this.memory = memory;
    this.bound = bound;
    this.queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * this.stride)));
    this.reserve(capacity);
  }

  /** Room for `capacity` rows; false when that no longer fits one WebAssembly memory (the caller drops this copy). */
  reserve(capacity: number): boolean {
    if (capacity <= this.capacity) return true;
    const need = QuantizedRows.bytesFor(this.rowBytes, this.stride, capacity);
    if (need > MAX_WASM_BYTES) return false;
    if (need > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
    this.capacity = capacity;
    const buf = this.memory.buffer;
    let at = 0;
    this.bytes = new Uint8Array(buf, 0, capacity * this.rowBytes);
    this.rowFloats = new Float32Array(buf, 0, (capacity * this.rowBytes) / 4);
    at += capacity * this.rowBytes;
    this.admitted = new Uint8Array(buf, at, capacity);
    at += Math.ceil(capacity / 16) * 16;
    this.lo = new Float32Array(buf, at, capacity);
    at += capacity * 4;
    this.hi = new Float32Array(buf, at, capacity);
    at += capacity * 4;
    this.query = new Int16Array(buf, at, this.stride);
    return true;
  }

  set(row: number, vector: Float32Array): void {
    const o = row * this.rowBytes;
    const meta = (o + this.stride) / 4; // h and w, as float32 after the values
    let max = 0;
    for (let j = 0; j < vector.length; j++) max = Math.max(max, Math.abs(vector[j]!));
    const rows = this.bytes;
    if (!(max < HUGE) || (max > 0 && max < TINY)) {
      rows.fill(0, o, o + this.stride);
      this.rowFloats[meta] = Infinity;
      this.rowFloats[meta + 1] = 0;
      return;
    }
    // Multiplying by 1/s instead of dividing by s moves a value by a few units in the 16th digit: nothing next to the bound's slack.
    const inv = max === 0 ? 0 : 127 / max;
    let l1 = 0;
    for (let j = 0; j < vector.length; j++) {
      // Rounds to nearest like Math.round (v·inv lies in [-127, 127]), at two thirds of its cost: loading a million vectors quantizes each.
      const x = ((vector[j]! * inv + 128.5) | 0) - 128;
      rows[o + j] = x & 0xff;
      l1 += x < 0 ? -x : x;
    }
    rows.fill(0, o + vector.length, o + this.stride);
    this.rowFloats[meta] = max / 127 / 2;
    this.rowFloats[meta + 1] = l1 + this.dims / 2;
  }

  /**
   * Rows among 0..count-1 marked 1 in `admitted` that may be among the
   * `limit` best by the float32 kernel's score, in row order: every admitted
   * row whose upper bound reaches the `limit`-th best lower bound (at least
   * `limit` rows score that much, so a row below it cannot make the cut).
   * Null for a query this pass cannot bound (zero, tiny or huge): score every row.
   */
  candidates(query: Float32Array, count: number, limit: number, admitted: Uint8Array): number[] | null {
    if (!this.pass(query, count, admitted)) return null;
    const { lo, hi } = this;
    const best = new MinHeap(limit);
    let cut = -Infinity;
    for (let r = 0; r < count; r++) if (lo[r]! > cut) cut = best.offer(lo[r]!);
    const out: number[] = [];
    // Rows not admitted have hi = -Infinity: with fewer admitted rows than `limit` the cut stays at
    // -Infinity, and they must not come back as candidates (they would crowd admitted rows out).
    for (let r = 0; r < count; r++) if (hi[r]! >= cut && hi[r]! !== -Infinity) out.push(r);
    return out;
  }

  /** Bounds [lo, hi] on the exact scores of rows 0..count-1 (reused by the next call); null as for `candidates`. */
  bounds(query: Float32Array, count: number): { lo: Float32Array; hi: Float32Array } | null {
    return this.pass(query, count, new Uint8Array(count).fill(1)) ? { lo: this.lo, hi: this.hi } : null;
  }

  /** Quantizes the query and has the kernel fill lo/hi (minus infinity for rows not admitted). */
  private pass(query: Float32Array, count: number, admitted: Uint8Array): boolean {
    let max = 0;
    let l1 = 0;
    for (let j = 0; j < query.length; j++) {
      const a = Math.abs(query[j]!);
      max = Math.max(max, a);
      l1 += a;
    }
    if (!(max >= TINY) || !(max < HUGE)) return false;
    const t = max / this.queryMax;
    let q1 = 0;
    this.query.fill(0);
    for (let j = 0; j < query.length; j++) {
      const x = Math.round(query[j]! / t);
      this.query[j] = x;
      q1 += Math.abs(x);
    }
    this.admitted.set(admitted.subarray(0, count));
    const rounding = l1 * 254 * ROUNDING_ULPS_PER_DIM * (this.dims + 8) * 2 ** -24;
    this.bound(0, this.query.byteOffset, this.stride, this.rowBytes, count, this.admitted.byteOffset, this.lo.byteOffset, this.hi.byteOffset, 2 * t, t, q1, rounding);
    return true;
  }
}

/** The k largest numbers offered, in a min-heap; `offer` returns the k-th largest so far (minus infinity until there are k). */
class MinHeap {
  private readonly values: Float64Array;
  private size = 0;

  constructor(private readonly k: number) {
    this.values = new Float64Array(Math.max(1, k));
  }

  offer(x: number): number {
    const v = this.values;
    if (this.k <= 0) return -Infinity;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (v[parent]! <= x) break;
        v[i] = v[parent]!;
        i = parent;
      }
      v[i] = x;
      return this.size < this.k ? -Infinity : v[0]!;
    }
    if (x <= v[0]!) return v[0]!;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && v[r]! < v[l]! ? r : l;
      if (v[c]! >= x) break;
      v[i] = v[c]!;
      i = c;
    }
    v[i] = x;
    return v[0]!;
  }
}
