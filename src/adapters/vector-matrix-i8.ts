import { int8Stride, simdScan8, type Scan8Fn } from './simd-dot-i8.ts';

const PAGE = 65_536;
const MAX_WASM_BYTES = 2 ** 31;
/** Slack for float32 rounding in the exact kernel and float64 rounding here, as a multiple of 2^-24 per dimension; generous on purpose. */
const ROUNDING_ULPS_PER_DIM = 4;
/** Rows or queries with a component this large get no bound (their float32 products could overflow); such rows are always scored exactly. */
const HUGE = 1e15;

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
 * the exact kernel will give it, and the caller can rule rows out without
 * scoring them: the result stays exactly that of the full float32 scan.
 *
 * Scales and norms are float64 so the bound uses the same numbers the
 * quantization did. A row with a non-finite value gets an infinite bound
 * (always scored exactly, as before), and so does one with a component
 * past 1e15, whose float32 products could overflow.
 */
export class QuantizedRows {
  readonly stride: number;
  private readonly memory: WebAssembly.Memory;
  private readonly scan: Scan8Fn;
  private capacity = 0;
  private rows = new Int8Array(0);
  private query = new Int16Array(0);
  private sums = new Int32Array(0);
  /** s/2 per row (Infinity for a row with a non-finite value). */
  private halfScale = new Float64Array(0);
  /** |v̂|₁ + d/2 per row. */
  private weight = new Float64Array(0);
  private lo = new Float64Array(0);
  private hi = new Float64Array(0);
  /** The largest integer a query component may take: stride · 127 · max stays below 2^31. */
  private readonly queryMax: number;

  /** Null where WebAssembly SIMD is missing: the caller scans in float32 only. */
  static create(dims: number, capacity: number): QuantizedRows | null {
    const stride = int8Stride(dims);
    if (QuantizedRows.bytesFor(stride, capacity) > MAX_WASM_BYTES) return null;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(QuantizedRows.bytesFor(stride, capacity) / PAGE) });
    const scan = simdScan8(memory);
    return scan ? new QuantizedRows(dims, stride, memory, scan, capacity) : null;
  }

  private static bytesFor(stride: number, rows: number): number {
    // [rows: int8 × stride | query: int16 × stride | sums: int32 per row]
    return rows * stride + stride * 2 + rows * 4;
  }

  private constructor(
    readonly dims: number,
    stride: number,
    memory: WebAssembly.Memory,
    scan: Scan8Fn,
    capacity: number,
  ) {
    this.stride = stride;
    this.memory = memory;
    this.scan = scan;
    this.queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * stride)));
    this.reserve(capacity);
  }

  /** Room for `capacity` rows; false when that no longer fits one WebAssembly memory (the caller drops this copy). */
  reserve(capacity: number): boolean {
    if (capacity <= this.capacity) return true;
    const need = QuantizedRows.bytesFor(this.stride, capacity);
    if (need > MAX_WASM_BYTES) return false;
    if (need > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
    const grow = (a: Float64Array) => {
      const b = new Float64Array(capacity);
      b.set(a);
      return b;
    };
    this.halfScale = grow(this.halfScale);
    this.weight = grow(this.weight);
    this.lo = new Float64Array(capacity);
    this.hi = new Float64Array(capacity);
    this.capacity = capacity;
    // Rows come first, so growing keeps them in place; the query and sums are scratch.
    const buf = this.memory.buffer;
    this.rows = new Int8Array(buf, 0, capacity * this.stride);
    this.query = new Int16Array(buf, capacity * this.stride, this.stride);
    this.sums = new Int32Array(buf, capacity * this.stride + this.stride * 2, capacity);
    return true;
  }

  set(row: number, vector: Float32Array): void {
    const o = row * this.stride;
    let max = 0;
    for (let j = 0; j < vector.length; j++) max = Math.max(max, Math.abs(vector[j]!));
    if (!(max < HUGE)) {
      this.rows.fill(0, o, o + this.stride);
      this.halfScale[row] = Infinity;
      this.weight[row] = 0;
      return;
    }
    const s = max / 127;
    // Multiplying by 1/s instead of dividing by s moves a value by a few units in the 16th digit: nothing next to the bound's slack.
    const inv = s === 0 ? 0 : 127 / max;
    const rows = this.rows;
    let l1 = 0;
    for (let j = 0; j < vector.length; j++) {
      // Rounds to nearest like Math.round (v·inv lies in [-127, 127]), at two thirds of its cost: loading a million vectors quantizes each.
      const x = ((vector[j]! * inv + 128.5) | 0) - 128;
      rows[o + j] = x;
      l1 += x < 0 ? -x : x;
    }
    this.rows.fill(0, o + vector.length, o + this.stride);
    this.halfScale[row] = s / 2;
    this.weight[row] = l1 + this.dims / 2;
  }

  /**
   * Rows among 0..count-1 marked in `admitted` that may be among the `limit`
   * best by the float32 kernel's score, in row order: every admitted row
   * whose upper bound reaches the `limit`-th best lower bound (at least
   * `limit` rows score that much, so a row below it cannot make the cut).
   * Null for a query this pass cannot bound (zero or huge): score every row.
   */
  candidates(query: Float32Array, count: number, limit: number, admitted: Uint8Array): number[] | null {
    const cut = this.pass(query, count, admitted, limit);
    if (cut === null) return null;
    const out: number[] = [];
    const hi = this.hi;
    for (let r = 0; r < count; r++) if (hi[r]! >= cut) out.push(r);
    return out;
  }

  /** Bounds [lo, hi] on the exact scores of rows 0..count-1 (reused by the next call); null as for `candidates`. */
  bounds(query: Float32Array, count: number): { lo: Float64Array; hi: Float64Array } | null {
    return this.pass(query, count, null, 0) === null ? null : { lo: this.lo, hi: this.hi };
  }

  /**
   * Quantizes the query, runs the kernel and fills lo/hi (minus infinity for
   * rows not admitted) in one loop that also keeps the `limit` best lower
   * bounds; returns the smallest of those (minus infinity with fewer).
   */
  private pass(query: Float32Array, count: number, admitted: Uint8Array | null, limit: number): number | null {
    let max = 0;
    let l1 = 0;
    for (let j = 0; j < query.length; j++) {
      const a = Math.abs(query[j]!);
      max = Math.max(max, a);
      l1 += a;
    }
    if (!(max > 0) || !(max < HUGE)) return null;
    const t = max / this.queryMax;
    let q1 = 0;
    this.query.fill(0);
    for (let j = 0; j < query.length; j++) {
      const x = Math.round(query[j]! / t);
      this.query[j] = x;
      q1 += Math.abs(x);
    }
    this.scan(this.rows.byteOffset, this.query.byteOffset, this.stride, count, this.sums.byteOffset);
    const rounding = l1 * 254 * ROUNDING_ULPS_PER_DIM * (this.dims + 8) * 2 ** -24;
    const { sums, halfScale, weight, lo, hi } = this;
    const best = new MinHeap(limit);
    let cut = -Infinity;
    for (let r = 0; r < count; r++) {
      if (admitted !== null && admitted[r] !== 1) {
        lo[r] = -Infinity;
        hi[r] = -Infinity;
        continue;
      }
      const hs = halfScale[r]!;
      if (hs === Infinity) {
        lo[r] = -Infinity;
        hi[r] = Infinity;
        continue;
      }
      const estimate = 2 * hs * t * sums[r]!;
      const slack = hs * (t * (q1 + weight[r]!) + rounding);
      const low = estimate - slack;
      lo[r] = low;
      hi[r] = estimate + slack;
      if (low > cut) cut = best.offer(low);
    }
    return cut;
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
