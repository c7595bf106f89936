import type { Lifecycle, Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryFilter } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

const PAGE = 10_000;

/** The start of every source key an import gives a file's chunks and lines (`file:<path>#L3`, `file:<path>#L3-L9`). */
export function fileKeyPrefix(abs: string): string {
  return `file:${abs}#`;
}

/**
 * Every current memory the caller sees whose source key names this file (its
 * Markdown chunks, its JSONL lines), in key order, a page at a time, each page
 * continuing after the last row seen in the source-key index: a JSONL file can
 * have a million lines, and one list capped at some size missed the rest,
 * while offsets would re-read every earlier page for each new one. A file
 * costs what it holds, not what the store holds.
 */
export async function eachFileMemory(ctx: ServiceContext, p: Principal, abs: string, lifecycles: Lifecycle[] | undefined, visit: (m: Memory) => void): Promise<void> {
  const filter: MemoryFilter = { sourceKeyPrefix: fileKeyPrefix(abs), ...(lifecycles ? { lifecycles } : {}) };
  for (let after: MemoryFilter['sourceKeyAfter']; ; ) {
    const page = await ctx.store.list(p, after ? { ...filter, sourceKeyAfter: after } : filter, { limit: PAGE }, 'source_key_asc');
    for (const m of page) visit(m);
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { sourceKey: last.sourceKey!, id: last.id };
  }
}
