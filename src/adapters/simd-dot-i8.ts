/**
 * A WebAssembly SIMD kernel for the first pass of the exact vector scan:
 * integer dot products of a 16-bit query with 8-bit rows (i32x4.dot_i16x8_s,
 * sixteen dimensions a step, sixty-four an iteration), each turned at once
 * into an interval [lo, hi] that holds the row's float32 score (the bound is
 * derived in vector-matrix-i8.ts). A row is a quarter of its float32 size, so
 * the pass reads a quarter of the memory and does fewer instructions than the
 * float kernel (simd-dot.ts); only rows the intervals cannot rule out are
 * scored again in float32.
 *
 * Exported function:
 *   bound8(rows, query, stride, rowBytes, count, admitted, lo, hi, twoT, t, q1, rounding)
 * Pointers are byte offsets into the imported memory. A row is `stride`
 * int8 values (a multiple of 64, zero-padded) followed by two float32:
 * h = s/2 (+Infinity for a row that gets no bound) and w = |v̂|₁ + d/2;
 * `rowBytes` apart. admitted[r] (a byte) 0 gives lo = hi = -Infinity. For
 * the others:
 *   est = sum · h · twoT,  slack = h · (t · (q1 + w) + rounding)
 *   m = (|est| + slack) · 1e-5 + 1e-30      (float32 rounding of these steps)
 *   lo = est − slack − m,  hi = est + slack + m
 * The caller keeps every integer sum inside int32 by its choice of query scale.
 */
import { F32, I32, V128, compileKernel, f32, get, i32, oneFunctionModule, op, set, simd, tee, uleb } from './wasm-asm.ts';

/** Values per row of the 8-bit matrix: whole 64-byte blocks (the kernel's unrolled step). */
export function int8Stride(dims: number): number {
  return Math.ceil(dims / 64) * 64;
}

/** Bytes per row: the values, then h and w as float32, padded to 16 so every row starts aligned. */
export function int8RowBytes(dims: number): number {
  return int8Stride(dims) + 16;
}

// Parameters and locals of bound8, by index.
const ROWS = 0, Q = 1, STRIDE = 2, ROW_BYTES = 3, N = 4, ADM = 5, LO = 6, HI = 7, TWO_T = 8, T = 9, Q1 = 10, ROUND = 11; // prettier-ignore
const ROW = 12, END = 13, J = 14, QP = 15, SUM = 16, V = 17, ACC = 18, H = 20, EST = 21, SLACK = 22, M = 23; // ACC, ACC+1 are v128 // prettier-ignore

function bound8Body(): number[] {
  const load = (align: number, offset: number) => [...simd.v128Load, align, ...uleb(offset)];
  const store = (ptr: number, value: number[]) => [...get(ptr), ...value, op.f32Store, 2, 0];
  const code: number[] = [];
  // row = rows; end = rows + count * rowBytes
  code.push(...get(ROWS), ...set(ROW));
  code.push(...get(ROWS), ...get(N), ...get(ROW_BYTES), op.i32Mul, op.i32Add, ...set(END));
  code.push(op.block, op.empty, op.loop, op.empty);
  code.push(...get(ROW), ...get(END), op.i32GeU, op.brIf, 1);
  code.push(...simd.v128Const, ...new Array(16).fill(0), ...tee(ACC), ...set(ACC + 1));
  code.push(...i32(0), ...set(J));
  code.push(...get(Q), ...set(QP));
  code.push(op.loop, op.empty);
  for (let k = 0; k < 4; k++) {
    // Sixteen 8-bit values widened to two halves of eight 16-bit ones, each multiplied with its half of the query.
    code.push(...get(ROW), ...get(J), op.i32Add, ...load(0, 16 * k), ...set(V));
    code.push(...get(ACC), ...get(V), ...simd.i16x8ExtendLowI8x16S, ...get(QP), ...load(1, 32 * k), ...simd.i32x4DotI16x8S, ...simd.i32x4Add, ...set(ACC));
    code.push(...get(ACC + 1), ...get(V), ...simd.i16x8ExtendHighI8x16S, ...get(QP), ...load(1, 32 * k + 16), ...simd.i32x4DotI16x8S, ...simd.i32x4Add, ...set(ACC + 1));
  }
  code.push(...get(QP), ...i32(128), op.i32Add, ...set(QP));
  code.push(...get(J), ...i32(64), op.i32Add, ...tee(J), ...get(STRIDE), op.i32LtU, op.brIf, 0);
  code.push(op.end);
  // sum = the four lanes of (acc0 + acc1)
  code.push(...get(ACC), ...get(ACC + 1), ...simd.i32x4Add, ...tee(ACC));
  code.push(...simd.i32x4ExtractLane, 0);
  for (let lane = 1; lane < 4; lane++) code.push(...get(ACC), ...simd.i32x4ExtractLane, lane, op.i32Add);
  code.push(...set(SUM));
  // Not admitted: [-inf, -inf]. No bound (h = +inf): [-inf, +inf]. Otherwise the interval.
  code.push(...get(ADM), op.i32Load8U, 0, 0, op.i32Eqz, op.if, op.empty);
  code.push(...store(LO, f32(-Infinity)), ...store(HI, f32(-Infinity)));
  code.push(op.else);
  code.push(...get(ROW), ...get(STRIDE), op.i32Add, op.f32Load, 2, 0, ...tee(H), ...f32(Infinity), op.f32Eq, op.if, op.empty);
  code.push(...store(LO, f32(-Infinity)), ...store(HI, f32(Infinity)));
  code.push(op.else);
  code.push(...get(SUM), op.f32ConvertI32S, ...get(H), op.f32Mul, ...get(TWO_T), op.f32Mul, ...set(EST));
  code.push(...get(Q1), ...get(ROW), ...get(STRIDE), op.i32Add, op.f32Load, 2, 4, op.f32Add, ...get(T), op.f32Mul, ...get(ROUND), op.f32Add, ...get(H), op.f32Mul, ...set(SLACK));
  code.push(...get(EST), op.f32Abs, ...get(SLACK), op.f32Add, ...f32(1e-5), op.f32Mul, ...f32(1e-30), op.f32Add, ...set(M));
  code.push(...store(LO, [...get(EST), ...get(SLACK), op.f32Sub, ...get(M), op.f32Sub]));
  code.push(...store(HI, [...get(EST), ...get(SLACK), op.f32Add, ...get(M), op.f32Add]));
  code.push(op.end, op.end);
  // Next row.
  code.push(...get(ADM), ...i32(1), op.i32Add, ...set(ADM));
  code.push(...get(LO), ...i32(4), op.i32Add, ...set(LO));
  code.push(...get(HI), ...i32(4), op.i32Add, ...set(HI));
  code.push(...get(ROW), ...get(ROW_BYTES), op.i32Add, ...set(ROW));
  code.push(op.br, 0, op.end, op.end, op.end);
  const locals = [3, 5, I32, 3, V128, 4, F32];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

export type Bound8Fn = (
  rows: number,
  query: number,
  stride: number,
  rowBytes: number,
  count: number,
  admitted: number,
  lo: number,
  hi: number,
  twoT: number,
  t: number,
  q1: number,
  rounding: number,
) => void;

let compiled: WebAssembly.Module | null | undefined;

/** Instantiates the kernel over a memory; null where this runtime has no WebAssembly SIMD. */
export function simdBound8(memory: WebAssembly.Memory): Bound8Fn | null {
  compiled ??= compileKernel(oneFunctionModule('bound8', [I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, F32, F32], bound8Body()));
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { memory } }).exports.bound8 as Bound8Fn;
}
