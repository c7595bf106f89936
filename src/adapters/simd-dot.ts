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

const I32 = 0x7f;
const V128 = 0x7b;

const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  f32Store: 0x38,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Mul: 0x6c,
  i32Shl: 0x74,
  f32Add: 0x92,
  empty: 0x40,
} as const;

/** SIMD instructions: the 0xfd prefix, then the opcode as unsigned LEB128. */
const simd = {
  v128Load: [0xfd, 0x00],
  v128Const: [0xfd, 0x0c],
  f32x4ExtractLane: [0xfd, 0x1f],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
} as const;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

// Parameters and locals of scan, by index.
const M = 0, Q = 1, DIMS = 2, N = 3, OUT = 4; // prettier-ignore
const ROW = 5, END = 6, J = 7, ROW_BYTES = 8, ACC = 9; // ACC..ACC+3 are v128 accumulators // prettier-ignore

function scanBody(): number[] {
  const get = (i: number) => [op.localGet, i];
  const set = (i: number) => [op.localSet, i];
  const tee = (i: number) => [op.localTee, i];
  const i32 = (v: number) => [op.i32Const, ...sleb(v)];
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

function moduleBytes(): Uint8Array {
  const types = section(1, [1, 0x60, 5, I32, I32, I32, I32, I32, 0]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]);
  const funcs = section(3, [1, 0]);
  const exports = section(7, [1, ...name('scan'), 0x00, 0]);
  const code = section(10, [1, ...scanBody()]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...imports, ...funcs, ...exports, ...code]);
}

export type ScanFn = (matrix: number, query: number, dims: number, rows: number, out: number) => void;

let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or null where this runtime has no WebAssembly SIMD (callers fall back to JavaScript). */
function kernel(): WebAssembly.Module | null {
  if (compiled === undefined) {
    const bytes = moduleBytes();
    compiled = typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
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
