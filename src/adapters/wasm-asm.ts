/**
 * The few pieces of the WebAssembly binary format our hand-assembled SIMD
 * kernels need (simd-dot.ts, simd-dot-i8.ts): LEB128 numbers, sections,
 * names and the opcodes used. Kernels are assembled in code so that what runs
 * is what the source says, with no opaque binary shipped.
 */

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;

export const op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  f32Store: 0x38,
  f32Load: 0x2a,
  i32Store: 0x36,
  i32Sub: 0x6b,
  i32And: 0x71,
  i32ShrU: 0x76,

  i32Load8U: 0x2d,
  i32Eqz: 0x45,
  f32Eq: 0x5b,
  f32Abs: 0x8b,
  f32Sub: 0x93,
  f32Mul: 0x94,
  f32ConvertI32S: 0xb2,
  f32Const: 0x43,
  if: 0x04,
  else: 0x05,
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
export const simd = {
  v128Load: [0xfd, 0x00],
  v128Store: [0xfd, 0x0b],
  v128Load32Zero: [0xfd, 0x5c],
  f32x4Splat: [0xfd, 0x13],
  i32x4Ne: [0xfd, 0x38],
  f32x4Eq: [0xfd, 0x41],
  f32x4Ge: [0xfd, 0x46],
  v128And: [0xfd, 0x4e],
  v128Bitselect: [0xfd, 0x52],
  i16x8ExtendLowI8x16U: [0xfd, 0x89, 0x01],
  i32x4Bitmask: [0xfd, 0xa4, 0x01],
  i32x4ExtendLowI16x8U: [0xfd, 0xa9, 0x01],
  f32x4Abs: [0xfd, 0xe0, 0x01],
  f32x4Sub: [0xfd, 0xe5, 0x01],
  f32x4Min: [0xfd, 0xe8, 0x01],
  f32x4ConvertI32x4S: [0xfd, 0xfa, 0x01],
  v128Const: [0xfd, 0x0c],
  i32x4ExtractLane: [0xfd, 0x1b],
  f32x4ExtractLane: [0xfd, 0x1f],
  i16x8ExtendLowI8x16S: [0xfd, 0x87, 0x01],
  i16x8ExtendHighI8x16S: [0xfd, 0x88, 0x01],
  i32x4Add: [0xfd, 0xae, 0x01],
  i32x4DotI16x8S: [0xfd, 0xba, 0x01],
  f32x4Add: [0xfd, 0xe4, 0x01],
  f32x4Mul: [0xfd, 0xe6, 0x01],
} as const;

export function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

export function sleb(n: number): number[] {
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

export const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const name = (s: string) => [...uleb(s.length), ...Array.from(s, (c) => c.charCodeAt(0))];

/** Instruction helpers for a function body. */
export const get = (i: number) => [op.localGet, i];
export const set = (i: number) => [op.localSet, i];
export const tee = (i: number) => [op.localTee, i];
export const i32 = (v: number) => [op.i32Const, ...sleb(v)];
export const f32 = (v: number) => {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, v, true); // WebAssembly is little-endian whatever the host is
  return [op.f32Const, ...new Uint8Array(b.buffer)];
};

/**
 * A module of one exported function `exportName` with `params` parameters
 * (a count of i32 ones, or their value types) and `results` (none unless
 * given) over an imported memory env.memory; `body` is the function's code
 * entry (locals and instructions, length-prefixed).
 */
export function oneFunctionModule(exportName: string, params: number | number[], body: number[], results: number[] = []): Uint8Array {
  const types_ = typeof params === 'number' ? new Array<number>(params).fill(I32) : params;
  const types = section(1, [1, 0x60, types_.length, ...types_, results.length, ...results]);
  const imports = section(2, [1, ...name('env'), ...name('memory'), 0x02, 0x00, 1]);
  const funcs = section(3, [1, 0]);
  const exports = section(7, [1, ...name(exportName), 0x00, 0]);
  const code = section(10, [1, ...body]);
  return new Uint8Array([0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, ...types, ...imports, ...funcs, ...exports, ...code]);
}

/** Compiles once per process (callers cache the result); null where the runtime cannot validate the bytes (no SIMD). */
export function compileKernel(bytes: Uint8Array): WebAssembly.Module | null {
  return typeof WebAssembly === 'object' && WebAssembly.validate(bytes) ? new WebAssembly.Module(bytes) : null;
}
