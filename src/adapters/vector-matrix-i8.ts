import { int8Stride, simdBound8, type Bound4Fn, type Dot8Fn } from './simd-dot-i8.ts';

const PAGE = 65_536;
const MAX_WASM_BYTES = 2 ** 31;
/** Slack for float32 rounding in the exact kernel, as a multiple of 2^-24 per dimension; generous on purpose. */
const ROUNDING_ULPS_PER_DIM = 4;
/** Rows or queries with a component this large get no bound (their float32 products could overflow); such rows are always scored exactly. */
const HUGE = 1e15;
/** Nor do rows or queries whose largest component is this small: their scale would underflow float32. */
const TINY = 1e-30;
/** Lengths computed in float64 and stored or passed as float32 are raised by this much first, so rounding never shrinks a bound. */
const LENGTH_SLACK = 1 + 1e-6;
/** Rows bounded before the rest: the `limit`-th best lower bound among them is the first cut (see `candidates`). A multiple of 4: the bound kernel's step. */
const SAMPLE_ROWS = 4096;

/**
 * An 8-bit copy of a VectorMatrix's rows, for a fast first pass that bounds
 * every row's score instead of computing it.
 *
 * Each row v is stored as round(v / s) with s = max|v| / 127, and the query
 * as round(q / t) in 16 bits, t chosen so no integer sum can overflow. With
 * e = v - s·v̂ (|e_j| <= s/2) and f = q - t·q̂ (|f_j| <= t/2):
 *
 *   q·v - s·t·(q̂·v̂) = q·e + s·(f·v̂)
 *   |q·e| <= Σ|q_j|·s/2 <= (s·t/2)·(|q̂|₁ + d/2)    and    |q·e| <= |q|₂·|e|₂
 *   |s·(f·v̂)| <= (s·t/2)·|v̂|₁
 *
 * The bound kernel takes the smaller of the two bounds on q·e: the second (the
 * residual's length, kept per row) is the tighter one for dense vectors, a
 * quarter fewer rows to score exactly on a trained model's vectors. Plus
 * the float32 kernel's own rounding, bounded through
 * Σ|q_j·v_j| <= |q|₁·127·s. So every row gets [lo, hi] holding the score
 * the exact kernel will give it (the bound kernel, simd-dot-i8.ts, widens it
 * for its own float32 arithmetic), and the caller rules rows out without scoring
 * them: the result stays exactly that of the full float32 scan.
 *
 * A row with a non-finite value, or one past 1e15 (whose float32 products
 * could overflow) or under 1e-30, gets no bound: always scored exactly.
 *
 * Memory: [rows | h | w | e | v1 | sums | lo | hi | list | admitted | query]:
 * the rows' values, then one float32 array each of s/2, |v̂|₁ + d/2, |e|₂
 * and |v̂|₁ (the bound kernel reads four rows' worth at a time), then
 * scratch. Arrays past the rows hold whole groups of four rows.
 */
export class QuantizedRows {
  readonly stride: number;
  private readonly memory: WebAssembly.Memory;
  private readonly dot8: Dot8Fn;
  private readonly bound4: Bound4Fn;
  private capacity = 0;
  private bytes = new Uint8Array(0);
  /** Per row: h = s/2, w = |v̂|₁ + d/2, e = |e|₂ (rounded up), v1 = |v̂|₁. */
  private h = new Float32Array(0);
  private w = new Float32Array(0);
  private e = new Float32Array(0);
  private v1 = new Float32Array(0);
  private sums = new Int32Array(0);
  private lo = new Float32Array(0);
  private hi = new Float32Array(0);
  private list = new Int32Array(0);
  private admitted = new Uint8Array(0);
  private query = new Int16Array(0);
  /** The largest integer a query component may take: stride · 127 · max stays below 2^31. */
  private readonly queryMax: number;

  /** Null where WebAssembly SIMD is missing: the caller scans in float32 only. */
  static create(dims: number, capacity: number): QuantizedRows | null {
    const stride = int8Stride(dims);
    if (QuantizedRows.bytesFor(stride, capacity) > MAX_WASM_BYTES) return null;
    const memory = new WebAssembly.Memory({ initial: Math.ceil(QuantizedRows.bytesFor(stride, capacity) / PAGE) });
    const kernels = simdBound8(memory);
    return kernels ? new QuantizedRows(dims, memory, kernels, capacity) : null;
  }

  private static bytesFor(stride: number, rows: number): number {
    const groups = Math.ceil(rows / 4) * 4;
    return rows * stride + groups * 4 * 8 + groups + stride * 2;
  }

  private constructor(
    readonly dims: number,
    memory: WebAssembly.Memory,
    kernels: { dot8: Dot8Fn; bound4: Bound4Fn },
    capacity: number,
  ) {
    this.stride = int8Stride(dims);
    this.memory = memory;
    this.dot8 = kernels.dot8;
    this.bound4 = kernels.bound4;
    this.queryMax = Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * this.stride)));
    this.reserve(capacity);
  }

  /** Room for `capacity` rows; false when that no longer fits one WebAssembly memory (the caller drops this copy). */
  reserve(capacity: number): boolean {
    if (capacity <= this.capacity) return true;
    const need = QuantizedRows.bytesFor(this.stride, capacity);
    if (need > MAX_WASM_BYTES) return false;
    // The per-row arrays sit after the rows, so they move: keep their values.
    const kept = [this.h, this.w, this.e, this.v1].map((a) => a.slice());
    if (need > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((need - this.memory.buffer.byteLength) / PAGE));
    this.capacity = capacity;
    const groups = Math.ceil(capacity / 4) * 4;
    const buf = this.memory.buffer;
    let at = 0;
    const floats = () => {
      const a = new Float32Array(buf, at, groups);
      at += groups * 4;
      return a;
    };
    this.bytes = new Uint8Array(buf, 0, capacity * this.stride);
    at += capacity * this.stride;
    [this.h, this.w, this.e, this.v1] = [floats(), floats(), floats(), floats()];
    [this.h, this.w, this.e, this.v1].forEach((a, i) => a.set(kept[i]!));
    this.sums = new Int32Array(buf, at, groups);
    at += groups * 4;
    [this.lo, this.hi] = [floats(), floats()];
    this.list = new Int32Array(buf, at, groups);
    at += groups * 4;
    this.admitted = new Uint8Array(buf, at, groups);
    at += groups;
    this.query = new Int16Array(buf, at, this.stride);
    return true;
  }

  set(row: number, vector: Float32Array): void {
    const o = row * this.stride;
    let max = 0;
    for (let j = 0; j < vector.length; j++) max = Math.max(max, Math.abs(vector[j]!));
    const rows = this.bytes;
    if (!(max < HUGE) || (max > 0 && max < TINY)) {
      rows.fill(0, o, o + this.stride);
      this.h[row] = Infinity;
      this.w[row] = this.e[row] = this.v1[row] = 0;
      return;
    }
    // Multiplying by 1/s instead of dividing by s moves a value by a few units in the 16th digit: nothing next to the bound's slack.
    const inv = max === 0 ? 0 : 127 / max;
    this.h[row] = max / 127 / 2;
    // The scale the kernel multiplies by is the stored float32 h, doubled: the residual is taken against that.
    const s = 2 * this.h[row]!;
    let l1 = 0;
    let e2 = 0;
    for (let j = 0; j < vector.length; j++) {
      // Rounds to nearest like Math.round (v·inv lies in [-127, 127]), at two thirds of its cost: loading a million vectors quantizes each.
      const x = ((vector[j]! * inv + 128.5) | 0) - 128;
      rows[o + j] = x & 0xff;
      l1 += x < 0 ? -x : x;
      const e = vector[j]! - s * x;
      e2 += e * e;
    }
    rows.fill(0, o + vector.length, o + this.stride);
    this.w[row] = l1 + this.dims / 2;
    this.e[row] = Math.sqrt(e2) * LENGTH_SLACK;
    this.v1[row] = l1;
  }

  /**
   * Rows among 0..count-1 marked 1 in `admitted` that may be among the
   * `limit` best by the float32 kernel's score, in row order: every admitted
   * row whose upper bound reaches the `limit`-th best lower bound (at least
   * `limit` rows score that much, so a row below it cannot make the cut).
   * Null for a query this pass cannot bound (zero, tiny or huge): score every row.
   *
   * The bound kernel lists the rows worth keeping as it bounds them, so no
   * pass over all the bounds follows. It needs a cut for that before it has
   * seen every row: the `limit`-th best lower bound among the first
   * SAMPLE_ROWS rows, which is never above the true one. Every row it leaves
   * out has an upper bound below that cut, so it cannot hold one of the
   * `limit` best lower bounds nor reach the true cut: the true cut and the
   * candidates come out of the listed rows alone.
   */
  candidates(query: Float32Array, count: number, limit: number, admitted: Uint8Array): number[] | null {
    const q = this.score(query, count, admitted);
    if (!q) return null;
    const sample = Math.min(count, SAMPLE_ROWS);
    let listed = this.bound(q, 0, sample, -Infinity, 0);
    const first = kthLargest(this.lo, this.list, listed, limit);
    listed += this.bound(q, sample, count - sample, first, listed);
    const cut = kthLargest(this.lo, this.list, listed, limit);
    const { hi, list } = this;
    const out: number[] = [];
    // Both calls list in row order, the second after the first's rows.
    for (let i = 0; i < listed; i++) if (hi[list[i]!]! >= cut) out.push(list[i]!);
    return out;
  }

  /** Bounds [lo, hi] on the exact scores of rows 0..count-1 (reused by the next call); null as for `candidates`. */
  bounds(query: Float32Array, count: number): { lo: Float32Array; hi: Float32Array } | null {
    const q = this.score(query, count, null);
    if (!q) return null;
    this.bound(q, 0, count, Infinity, 0);
    return { lo: this.lo, hi: this.hi };
  }

  /** Quantizes the query, marks the admitted rows (all when null; padding rows never) and has the dot kernel sum every row; null for a query that cannot be bounded. */
  private score(query: Float32Array, count: number, admitted: Uint8Array | null): Query | null {
    let max = 0;
    let l1 = 0;
    let l2 = 0;
    for (let j = 0; j < query.length; j++) {
      const a = Math.abs(query[j]!);
      max = Math.max(max, a);
      l1 += a;
      l2 += a * a;
    }
    if (!(max >= TINY) || !(max < HUGE)) return null;
    const t = max / this.queryMax;
    let q1 = 0;
    this.query.fill(0);
    for (let j = 0; j < query.length; j++) {
      const x = Math.round(query[j]! / t);
      this.query[j] = x;
      q1 += Math.abs(x);
    }
    if (admitted) this.admitted.set(admitted.subarray(0, count));
    else this.admitted.fill(1, 0, count);
    this.admitted.fill(0, count, Math.ceil(count / 4) * 4);
    this.dot8(0, this.query.byteOffset, this.stride, count, this.sums.byteOffset);
    const rounding = l1 * 254 * ROUNDING_ULPS_PER_DIM * (this.dims + 8) * 2 ** -24;
    return { t, q1, qn: Math.sqrt(l2) * LENGTH_SLACK, rounding };
  }

  /** Has the bound kernel fill lo/hi for rows from..from+n-1 (whole groups of four; `from` a multiple of 4) and list, from list[at] on, the admitted ones with hi >= cut; returns how many it listed. */
  private bound(q: Query, from: number, n: number, cut: number, at: number): number {
    if (n <= 0) return 0;
    const f = from * 4;
    return this.bound4(
      this.sums.byteOffset + f,
      this.h.byteOffset + f,
      this.w.byteOffset + f,
      this.e.byteOffset + f,
      this.v1.byteOffset + f,
      this.admitted.byteOffset + from,
      this.lo.byteOffset + f,
      this.hi.byteOffset + f,
      Math.ceil(n / 4),
      2 * q.t,
      q.t,
      q.q1,
      q.rounding,
      q.qn,
      cut,
      this.list.byteOffset + at * 4,
      from,
    );
  }
}

interface Query {
  t: number;
  q1: number;
  qn: number;
  rounding: number;
}

/** The k-th largest of values[rows[0..n-1]], or minus infinity when there are fewer than k. */
function kthLargest(values: Float32Array, rows: Int32Array, n: number, k: number): number {
  if (n < k || k <= 0) return -Infinity;
  const best = new MinHeap(k);
  let cut = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[rows[i]!]!;
    if (v > cut) cut = best.offer(v);
  }
  return cut;
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
