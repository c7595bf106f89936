import type { Lifecycle, Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryFilter, MemoryKey } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';
import { fileKeyPrefix, isFileKey } from '../domain/source-keys.ts';

const PAGE = 10_000;

/**
 * Every current memory the caller sees whose source key names this file (its
 * Markdown chunks, its JSONL lines), in key order, a page at a time, each page
 * continuing after the last row seen in the source-key index: a JSONL file can
 * have a million lines, and one list capped at some size missed the rest,
 * while offsets would re-read every earlier page for each new one. A file
 * costs what it holds, not what the store holds.
 */
export function eachFileMemory(ctx: ServiceContext, p: Principal, abs: string, lifecycles: Lifecycle[] | undefined, visit: (m: Memory) => void): Promise<void> {
  return byKeyPages((f) => ctx.store.list(p, f, { limit: PAGE }, 'source_key_asc'), fileFilter(abs, lifecycles), (m) => {
    if (isFileKey(abs, m.sourceKey)) visit(m);
  });
}

/**
 * The same walk with only each memory's id, owner, key and content hash: what
 * an import compares the file with, without reading a million texts. It
 * visits every key under the file's prefix, those of files named like
 * `<abs>#...` too, so a caller can note all it holds under the prefix; it
 * acts only on the keys for which `isFileKey` holds.
 */
export function eachFileKey(ctx: ServiceContext, p: Principal, abs: string, lifecycles: Lifecycle[] | undefined, visit: (m: MemoryKey) => void): Promise<void> {
  return eachKeyUnder(ctx, p, fileKeyPrefix(abs), lifecycles, visit);
}

/** The same walk under any key prefix (a deep path's keys as earlier versions wrote them: legacyFileKeyPrefix). */
export function eachKeyUnder(ctx: ServiceContext, p: Principal, prefix: string, lifecycles: Lifecycle[] | undefined, visit: (m: MemoryKey) => void): Promise<void> {
  return byKeyPages((f) => ctx.store.listKeys(p, f, { limit: PAGE }, 'source_key_asc'), prefixFilter(prefix, lifecycles), visit);
}

function fileFilter(abs: string, lifecycles: Lifecycle[] | undefined): MemoryFilter {
  return prefixFilter(fileKeyPrefix(abs), lifecycles);
}

function prefixFilter(prefix: string, lifecycles: Lifecycle[] | undefined): MemoryFilter {
  return { sourceKeyPrefix: prefix, ...(lifecycles ? { lifecycles } : {}) };
}

async function byKeyPages<T extends MemoryKey>(read: (filter: MemoryFilter) => Promise<T[]>, filter: MemoryFilter, visit: (m: T) => void): Promise<void> {
  for (let after: MemoryFilter['sourceKeyAfter']; ; ) {
    const page = await read(after ? { ...filter, sourceKeyAfter: after } : filter);
    for (const m of page) visit(m);
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = { sourceKey: last.sourceKey!, id: last.id };
  }
}
