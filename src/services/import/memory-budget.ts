import { getHeapStatistics } from 'node:v8';
import { MnemosError } from '../../domain/errors.ts';

/**
 * What one memory of an import holds on the heap until its file's single
 * transaction is written, besides its text: the memory object, its vector's
 * wrapper, its operation and result (measured: about 1.0 KB for the memory,
 * 0.2 KB for the vector's objects, the rest for the op and the result).
 */
const PER_MEMORY_BYTES = 1_200;
/** The share of the V8 heap an import's memories may take; the embedder, the store and the results need the rest. */
const HEAP_SHARE = 0.6;

/**
 * Keeps an import within the heap: a file is applied in one transaction, so
 * all its memories are held at once, and a 2.5-million-line JSONL file ran
 * out of heap after five minutes (V8's fatal error, nothing written). This
 * stops the import early, with the line it reached and what to do, before
 * anything is written.
 */
export class MemoryBudget {
  private used = 0;
  readonly limitBytes: number;

  constructor(
    private readonly path: string,
    limitBytes?: number,
  ) {
    this.limitBytes = limitBytes ?? Math.floor(getHeapStatistics().heap_size_limit * HEAP_SHARE);
  }

  /** Counts one memory (two bytes a character: the worst case of V8's strings). */
  add(text: string, where: string): void {
    this.used += PER_MEMORY_BYTES + 2 * text.length;
    if (this.used <= this.limitBytes) return;
    const mib = (b: number) => Math.round(b / 2 ** 20);
    throw new MnemosError(
      'limit_exceeded',
      `${this.path} is too large to import as one file: at ${where} its memories would need more than ${mib(this.limitBytes)} MiB of this process's memory, and a file is imported in one transaction, held in memory until it is written. Nothing was written. Split it into smaller files (a directory of them imports file by file), or give Node a larger heap (NODE_OPTIONS=--max-old-space-size=<MiB>)`,
      { path: this.path },
    );
  }
}
