import type { Memory } from '../domain/memory.ts';
import { LIFECYCLES } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryKey, WriteOp } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

const PAGE = 500;

/**
 * The content hashes the store holds for a batch's source keys and ids, read
 * before the batch writes, so that inserts the store will find unchanged are
 * not embedded again. The store's own check in the transaction still decides;
 * should a concurrent writer change a key in between, the insert writes
 * without a vector and the backfill adds it, as after a provider failure.
 */
export class StoredContent {
  /** Only the caller's own current memories: the write path looks a source key up under the memory's owner. */
  private readonly bySource = new Map<string, string>();
  private readonly byId = new Map<string, string>();
  /** Source-key prefixes whose current memories were all noted: a key under one that was not noted has none to look up. */
  private readonly complete: string[] = [];

  constructor(private readonly ownerId: string) {}

  /** Every current memory under `prefix` was (or is being) noted: a first import of a million lines would otherwise look each of its keys up for nothing. */
  noteAllUnder(prefix: string): void {
    this.complete.push(prefix);
  }

  /** A current (not superseded) memory the caller already read: an import's pass over its file. */
  note(m: MemoryKey): void {
    if (m.ownerId === this.ownerId && m.sourceKey !== null) this.bySource.set(m.sourceKey, m.contentHash);
  }

  /**
   * Reads what the batch's source keys hold now, a page at a time, skipping
   * keys already noted; and what the ids of the inserts `byId` names hold
   * (memory records, restored by id: fresh memories have fresh ids, and
   * looking those up would cost a query per 500 for nothing).
   */
  async lookUp(ctx: ServiceContext, p: Principal, ops: readonly WriteOp[], byId: (op: Extract<WriteOp, { kind: 'insert' }>) => boolean = () => false): Promise<void> {
    const keys: string[] = [];
    const ids: string[] = [];
    for (const op of ops) {
      if (op.kind !== 'insert' || op.memory.supersededAt !== null) continue;
      const m = op.memory;
      const key = m.sourceKey;
      if (key !== null && m.ownerId === this.ownerId && !this.bySource.has(key) && !this.complete.some((prefix) => key.startsWith(prefix))) keys.push(key);
      if (byId(op)) ids.push(m.id);
    }
    for (let i = 0; i < keys.length; i += PAGE) {
      const page = keys.slice(i, i + PAGE);
      const found = await ctx.store.listKeys(p, { sourceKeys: { ownerId: this.ownerId, keys: page }, lifecycles: [...LIFECYCLES] }, { limit: page.length }, 'recorded_asc');
      for (const m of found) this.note(m);
    }
    for (let i = 0; i < ids.length; i += PAGE) {
      for (const m of await ctx.store.getMany(p, ids.slice(i, i + PAGE))) this.byId.set(m.id, m.contentHash);
    }
  }

  /** True when the store will find this insert unchanged and keep the vector it has. */
  holds(m: Memory): boolean {
    if (this.byId.get(m.id) === m.contentHash) return true;
    return m.sourceKey !== null && m.ownerId === this.ownerId && this.bySource.get(m.sourceKey) === m.contentHash;
  }
}
