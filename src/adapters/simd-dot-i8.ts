/**
 * A WebAssembly SIMD kernel for the first pass of the exact vector scan:
 * integer dot products of a 16-bit query with 8-bit rows (i32x4.dot_i16x8_s,
 * sixteen dimensions a step, sixty-four an iteration). A row is a quarter of
 * its float32 size, so the pass reads a quarter of the memory and does fewer
 * instructions than the float kernel (simd-dot.ts); vector-matrix.ts turns
 * the sums into score estimates with an error bound, and only rows the bound
 * cannot rule out are scored again in float32.
 *
 * Exported function: scan8(rows, query, stride, count, out) — byte offsets
 * into the imported memory; stride (bytes a row = dimensions, padded) is a
 * multiple of 64; out receives one int32 sum per row. The caller keeps every
 * sum inside int32 by its choice of query scale.
 */
import { V128, I32, compileKernel, get, i32, oneFunctionModule, op, set, simd, tee, uleb } from './wasm-asm.ts';

/** Row stride of the 8-bit matrix: whole 64-byte blocks (the kernel's unrolled step). */
export function int8Stride(dims: number): number {
  return Math.ceil(dims / 64) * 64;
}

// Parameters and locals of scan8, by index.
const ROWS = 0, Q = 1, STRIDE = 2, N = 3, OUT = 4; // prettier-ignore
const ROW = 5, END = 6, J = 7, QP = 8, V = 9, ACC = 10; // ACC, ACC+1 are v128 accumulators // prettier-ignore

function scan8Body(): number[] {
  const load = (align: number, offset: number) => [...simd.v128Load, align, ...uleb(offset)];
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
  // out[row] = sum of the four lanes of (acc0 + acc1)
  code.push(...get(OUT));
  code.push(...get(ACC), ...get(ACC + 1), ...simd.i32x4Add, ...tee(ACC));
  code.push(...simd.i32x4ExtractLane, 0);
  for (let lane = 1; lane < 4; lane++) code.push(...get(ACC), ...simd.i32x4ExtractLane, lane, op.i32Add);
  code.push(op.i32Store, 2, 0);
  code.push(...get(OUT), ...i32(4), op.i32Add, ...set(OUT));
  code.push(...get(ROW), ...get(STRIDE), op.i32Add, ...set(ROW));
  code.push(op.br, 0, op.end, op.end, op.end);
  const locals = [2, 4, I32, 3, V128];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

export type Scan8Fn = (rows: number, query: number, stride: number, count: number, out: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** Instantiates the kernel over a memory; null where this runtime has no WebAssembly SIMD. */
export function simdScan8(memory: WebAssembly.Memory): Scan8Fn | null {
  compiled ??= compileKernel(oneFunctionModule('scan8', 5, scan8Body()));
  if (!compiled) return null;
  return new WebAssembly.Instance(compiled, { env: { memory } }).exports.scan8 as Scan8Fn;
}
