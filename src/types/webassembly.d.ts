/**
 * The few WebAssembly globals the SIMD vector kernel uses. Node has them at
 * run time; TypeScript only declares them in its DOM libraries, which this
 * server-side project does not load.
 */
declare namespace WebAssembly {
  class Module {
    constructor(bytes: Uint8Array);
  }
  class Instance {
    constructor(module: Module, imports: Record<string, Record<string, unknown>>);
    readonly exports: Record<string, unknown>;
  }
  class Memory {
    constructor(descriptor: { initial: number; maximum?: number });
    readonly buffer: ArrayBuffer;
    grow(pages: number): number;
  }
  function validate(bytes: Uint8Array): boolean;
}
