/**
 * A WebAssembly SIMD kernel for the exact vector scan: dot products of one
 * query against every row of a matrix, four float32 lanes at a time with four
 * accumulators. Plain JavaScript does one multiply-add per step; this does
 * sixteen, which is what makes an exact scan of 100k+ vectors fit in a few
 * milliseconds without an approximate index (and without its recall loss).
 *
 * The module is tiny, so it is assembled here from its instructions rather
 * than shipped as an opaque binary: what runs is what this file says. It is
 * built on first use, never at import time.
 *
 * Exported function: scan(matrix, query, dims, rows, out) — byte offsets into
 * the imported memory; dims is a multiple of 16 floats; out receives one
 * float32 score per row.
 */

import { I32, V128, compileKernel, get, i32, oneFunctionModule, op, set, simd, tee, uleb } from './wasm-asm.ts';

// Parameters and locals of scan, by index.
const M = 0, Q = 1, DIMS = 2, N = 3, OUT = 4; // prettier-ignore
const ROW = 5, END = 6, J = 7, ROW_BYTES = 8, ACC = 9; // ACC..ACC+3 are v128 accumulators // prettier-ignore

function scanBody(): number[] {
  const load = (offset: number) => [...simd.v128Load, 2, ...uleb(offset)]; // align hint 2^2: rows are float-aligned
  const code: number[] = [];
  // rowBytes = dims * 4; row = matrix; end = matrix + rows * rowBytes
  code.push(...get(DIMS), ...i32(2), op.i32Shl, ...set(ROW_BYTES));
  code.push(...get(M), ...set(ROW));
  code.push(...get(M), ...get(N), ...get(ROW_BYTES), op.i32Mul, op.i32Add, ...set(END));
  code.push(op.block, op.empty, op.loop, op.empty);
  code.push(...get(ROW), ...get(END), op.i32GeU, op.brIf, 1);
  code.push(...simd.v128Const, ...new Array(16).fill(0), ...tee(ACC), ...tee(ACC + 1), ...tee(ACC + 2), ...set(ACC + 3));
  code.push(...i32(0), ...set(J));
  code.push(op.loop, op.empty);
  for (let k = 0; k < 4; k++) {
    code.push(...get(ACC + k));
    code.push(...get(ROW), ...get(J), op.i32Add, ...load(16 * k));
    code.push(...get(Q), ...get(J), op.i32Add, ...load(16 * k));
    code.push(...simd.f32x4Mul, ...simd.f32x4Add, ...set(ACC + k));
  }
  code.push(...get(J), ...i32(64), op.i32Add, ...tee(J), ...get(ROW_BYTES), op.i32LtU, op.brIf, 0);
  code.push(op.end);
  // out[row] = sum of the four lanes of (acc0 + acc1 + acc2 + acc3)
  code.push(...get(OUT));
  code.push(...get(ACC), ...get(ACC + 1), ...simd.f32x4Add, ...get(ACC + 2), ...simd.f32x4Add, ...get(ACC + 3), ...simd.f32x4Add, ...tee(ACC));
  code.push(...simd.f32x4ExtractLane, 0);
  for (let lane = 1; lane < 4; lane++) code.push(...get(ACC), ...simd.f32x4ExtractLane, lane, op.f32Add);
  code.push(op.f32Store, 2, 0);
  code.push(...get(OUT), ...i32(4), op.i32Add, ...set(OUT));
  code.push(...get(ROW), ...get(ROW_BYTES), op.i32Add, ...set(ROW));
  code.push(op.br, 0, op.end, op.end, op.end);
  const locals = [2, 4, I32, 4, V128];
  const body = [...locals, ...code];
  return [...uleb(body.length), ...body];
}

export type ScanFn = (matrix: number, query: number, dims: number, rows: number, out: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD (callers fall back to JavaScript). */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) {
    compiled = compileKernel(oneFunctionModule('scan', 5, scanBody()));
  }
  return compiled;
}

/** Instantiates the kernel over a memory; null when SIMD is unavailable. */
export function simdScan(memory: WebAssembly.Memory): ScanFn | null {
  const mod = kernel();
  if (!mod) return null;
  const instance = new WebAssembly.Instance(mod, { env: { memory } });
  return instance.exports.scan as ScanFn;
}

/** Dimensions padded so every row is a whole number of 16-float blocks (the padding is zeros and adds nothing to a dot product). */
export function paddedDims(dims: number): number {
  return Math.ceil(dims / 16) * 16;
}
