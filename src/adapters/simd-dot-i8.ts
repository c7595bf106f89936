/**
 * Two WebAssembly SIMD kernels for the first pass of the exact vector scan
 * (vector-matrix-i8.ts derives the bound they compute):
 *
 *   dot8(rows, query, stride, count, sums)
 * integer dot products of a 16-bit query with 8-bit rows
 * (i32x4.dot_i16x8_s, sixteen dimensions a step, sixty-four an iteration),
 * one int32 sum per row. A row is a quarter of its float32 size, so this
 * reads a quarter of the memory the float kernel (simd-dot.ts) reads.
 *
 *   bound4(sums, h, w, e, v1, admitted, lo, hi, groups, twoT, t, q1, rounding, qn, cut, list, first) -> listed
 * turns the sums into intervals [lo, hi] holding each row's float32 score,
 * four rows at a time, and lists the rows worth scoring exactly. Per row,
 * from its float32 h = s/2 (+Infinity for a row that gets no bound),
 * w = |v̂|₁ + d/2, e = its rounding residual's length and v1 = |v̂|₁:
 *   est = sum · h · twoT
 *   slack = min(h · (t · (q1 + w) + rounding), qn · e + h · (t · v1 + rounding))
 *   m = (|est| + slack) · 1e-5 + 1e-30      (float32 rounding of these steps)
 *   lo = est − slack − m,  hi = est + slack + m
 * A row without a bound gets [-Infinity, +Infinity]; a row whose admitted
 * byte is 0 gets [-Infinity, -Infinity]. Every admitted row with hi >= cut
 * has its index (`first` for the first row, counting up) appended to the
 * int32 list; the function returns how many. Arrays hold whole groups of
 * four rows; the caller marks padding rows not admitted.
 *
 * The bound arithmetic was in the dot kernel's loop, one row at a time, at a
 * third of its cost; four rows a step it is a small share, which also pays
 * for the second bound. Pointers are byte offsets into the imported memory.
 * The caller keeps every integer sum inside int32 by its choice of query scale.
 */
import { F32, I32, V128, compileKernel, f32, get, i32, oneFunctionModule, op, set, simd, tee, uleb } from './wasm-asm.ts';

/** Values per row of the 8-bit matrix: whole 64-byte blocks (the dot kernel's unrolled step). */
export function int8Stride(dims: number): number {
  return Math.ceil(dims / 64) * 64;
}

const load = (align: number, offset: number) => [...simd.v128Load, align, ...uleb(offset)];

// dot8's parameters and locals, by index.
const ROWS = 0, Q = 1, STRIDE = 2, N = 3, SUMS = 4; // prettier-ignore
const ROW = 5, END = 6, J = 7, QP = 8, V = 9, ACC = 10; // V, ACC, ACC+1 are v128 // prettier-ignore

function dot8Body(): number[] {
  const code: number[] = [];
  // row = rows; end = rows + count * stride
  code.push(...get(ROWS), ...set(ROW));
  code.push(...get(ROWS), ...get(N), ...get(STRIDE), op.i32Mul, op.i32Add, ...set(END));
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
  // sums[row] = the four lanes of (acc0 + acc1)
  code.push(...get(SUMS));
  code.push(...get(ACC), ...get(ACC + 1), ...simd.i32x4Add, ...tee(ACC));
  code.push(...simd.i32x4ExtractLane, 0);
  for (let lane = 1; lane < 4; lane++) code.push(...get(ACC), ...simd.i32x4ExtractLane, lane, op.i32Add);
  code.push(op.i32Store, 2, 0);
  code.push(...get(SUMS), ...i32(4), op.i32Add, ...set(SUMS));
  code.push(...get(ROW), ...get(STRIDE), op.i32Add, ...set(ROW));
  code.push(op.br, 0, op.end, op.end, op.end);
  const locals = [2, 4, I32, 3, V128];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

// bound4's parameters, by index: pointers (advanced as it goes), then scalars.
const SUM = 0, H = 1, W = 2, E = 3, V1 = 4, ADM = 5, LO = 6, HI = 7, GROUPS = 8, TWO_T = 9, T = 10, Q1 = 11, ROUND = 12, QN = 13, CUT = 14, LIST = 15, IDX = 16; // prettier-ignore
// Its locals: the list's end, the group counter and the bitmask (i32), then v128s: the scalars splat, and working values.
const LP = 17, G = 18, BM = 19; // prettier-ignore
const S_TWO_T = 20, S_T = 21, S_Q1 = 22, S_ROUND = 23, S_QN = 24, S_CUT = 25, X_H = 26, X_EST = 27, X_SLACK = 28, X_M = 29, X_ADM = 30, X_LO = 31, X_HI = 32, X_INF = 33; // prettier-ignore

function bound4Body(): number[] {
  const splat = (from: number, to: number) => [...get(from), ...simd.f32x4Splat, ...set(to)];
  const inf = (sign: number) => [...simd.v128Const, ...Array.from({ length: 4 }, () => [...new Uint8Array(new Float32Array([sign * Infinity]).buffer)]).flat()];
  const next = (ptr: number, bytes: number) => [...get(ptr), ...i32(bytes), op.i32Add, ...set(ptr)];
  const code: number[] = [];
  code.push(...splat(TWO_T, S_TWO_T), ...splat(T, S_T), ...splat(Q1, S_Q1), ...splat(ROUND, S_ROUND), ...splat(QN, S_QN), ...splat(CUT, S_CUT));
  code.push(...inf(1), ...set(X_INF));
  code.push(...get(LIST), ...set(LP), ...i32(0), ...set(G));
  code.push(op.block, op.empty, op.loop, op.empty);
  code.push(...get(G), ...get(GROUPS), op.i32GeU, op.brIf, 1);
  // est = float(sum) · h · 2t
  code.push(...get(SUM), ...load(2, 0), ...simd.f32x4ConvertI32x4S, ...get(H), ...load(2, 0), ...tee(X_H), ...simd.f32x4Mul, ...get(S_TWO_T), ...simd.f32x4Mul, ...set(X_EST));
  // slack = min(h · (t · (q1 + w) + rounding), qn · e + h · (t · v1 + rounding))
  code.push(...get(S_Q1), ...get(W), ...load(2, 0), ...simd.f32x4Add, ...get(S_T), ...simd.f32x4Mul, ...get(S_ROUND), ...simd.f32x4Add, ...get(X_H), ...simd.f32x4Mul);
  code.push(...get(S_QN), ...get(E), ...load(2, 0), ...simd.f32x4Mul);
  code.push(...get(S_T), ...get(V1), ...load(2, 0), ...simd.f32x4Mul, ...get(S_ROUND), ...simd.f32x4Add, ...get(X_H), ...simd.f32x4Mul, ...simd.f32x4Add);
  code.push(...simd.f32x4Min, ...set(X_SLACK));
  // m = (|est| + slack) · 1e-5 + 1e-30
  code.push(...get(X_EST), ...simd.f32x4Abs, ...get(X_SLACK), ...simd.f32x4Add, ...f32(1e-5), ...simd.f32x4Splat, ...simd.f32x4Mul, ...f32(1e-30), ...simd.f32x4Splat, ...simd.f32x4Add, ...set(X_M));
  code.push(...get(X_EST), ...get(X_SLACK), ...simd.f32x4Sub, ...get(X_M), ...simd.f32x4Sub, ...set(X_LO));
  code.push(...get(X_EST), ...get(X_SLACK), ...simd.f32x4Add, ...get(X_M), ...simd.f32x4Add, ...set(X_HI));
  // No bound (h = +inf): [-inf, +inf].
  code.push(...inf(-1), ...get(X_LO), ...get(X_H), ...get(X_INF), ...simd.f32x4Eq, ...tee(X_M), ...simd.v128Bitselect, ...set(X_LO));
  code.push(...get(X_INF), ...get(X_HI), ...get(X_M), ...simd.v128Bitselect, ...set(X_HI));
  // Not admitted: [-inf, -inf]. The four admitted bytes widened to four all-ones or all-zeros lanes.
  code.push(...get(ADM), ...simd.v128Load32Zero, 0, 0, ...simd.i16x8ExtendLowI8x16U, ...simd.i32x4ExtendLowI16x8U, ...simd.v128Const, ...new Array(16).fill(0), ...simd.i32x4Ne, ...set(X_ADM));
  code.push(...get(LO), ...get(X_LO), ...inf(-1), ...get(X_ADM), ...simd.v128Bitselect, ...simd.v128Store, 2, 0);
  code.push(...get(HI), ...get(X_HI), ...inf(-1), ...get(X_ADM), ...simd.v128Bitselect, ...tee(X_HI), ...simd.v128Store, 2, 0);
  // Listed: admitted and hi >= cut. Each lane's index is written; the end moves past it only when its bit is set.
  code.push(...get(X_HI), ...get(S_CUT), ...simd.f32x4Ge, ...get(X_ADM), ...simd.v128And, ...simd.i32x4Bitmask, ...tee(BM), op.if, op.empty);
  for (let lane = 0; lane < 4; lane++) {
    code.push(...get(LP), ...get(IDX), ...i32(lane), op.i32Add, op.i32Store, 2, 0);
    code.push(...get(LP), ...get(BM), ...i32(lane), op.i32ShrU, ...i32(1), op.i32And, ...i32(2), op.i32Shl, op.i32Add, ...set(LP));
  }
  code.push(op.end);
  for (const [ptr, bytes] of [[SUM, 16], [H, 16], [W, 16], [E, 16], [V1, 16], [ADM, 4], [LO, 16], [HI, 16], [IDX, 4], [G, 1]] as const) code.push(...next(ptr, bytes));
  code.push(op.br, 0, op.end, op.end);
  // listed = (lp - list) / 4
  code.push(...get(LP), ...get(LIST), op.i32Sub, ...i32(2), op.i32ShrU);
  code.push(op.end);
  const locals = [2, 3, I32, 14, V128];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

export type Dot8Fn = (rows: number, query: number, stride: number, count: number, sums: number) => void;

export type Bound4Fn = (
  sums: number,
  h: number,
  w: number,
  e: number,
  v1: number,
  admitted: number,
  lo: number,
  hi: number,
  groups: number,
  twoT: number,
  t: number,
  q1: number,
  rounding: number,
  qn: number,
  cut: number,
  list: number,
  first: number,
) => number;

let compiled: { dot8: WebAssembly.Module; bound4: WebAssembly.Module } | null | undefined;

/** Instantiates both kernels over a memory; null where this runtime has no WebAssembly SIMD. */
export function simdBound8(memory: WebAssembly.Memory): { dot8: Dot8Fn; bound4: Bound4Fn } | null {
  if (compiled === undefined) {
    const dot8 = compileKernel(oneFunctionModule('dot8', 5, dot8Body()));
    const bound4 = compileKernel(oneFunctionModule('bound4', [I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, F32, F32, F32, F32, F32, I32, I32], bound4Body(), [I32]));
    compiled = dot8 && bound4 ? { dot8, bound4 } : null;
  }
  if (!compiled) return null;
  const env = { env: { memory } };
  return {
    dot8: new WebAssembly.Instance(compiled.dot8, env).exports.dot8 as Dot8Fn,
    bound4: new WebAssembly.Instance(compiled.bound4, env).exports.bound4 as Bound4Fn,
  };
}
