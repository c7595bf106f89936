import type { AuditEntry } from '../domain/audit.ts';
import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { Tombstone } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';
import { served } from './memories.ts';
import { assertMemoryId } from './validate.ts';

/**
 * An audit entry as history shows it. The owner gets the whole entry; a guest
 * or agent gets it without its place in the store-wide chain (`seq`,
 * `prevHash`, `hash`): the sequence number counted every write of every
 * namespace, so two looks told a guest how busy the others were.
 */
export type HistoryEntry = Omit<AuditEntry, 'seq' | 'prevHash' | 'hash'> & Partial<Pick<AuditEntry, 'seq' | 'prevHash' | 'hash'>>;

export interface History {
  lineageId: string;
  versions: Memory[];
  audit: HistoryEntry[];
  tombstone: Tombstone | null;
}

function withoutChain(e: AuditEntry): HistoryEntry {
  const { seq: _seq, prevHash: _prev, hash: _hash, ...rest } = e;
  return rest;
}

/**
 * Every version of a memory and every audit entry about it, including after a
 * forget (then only the tombstone). Past its expiresAt a memory keeps its
 * history for the owner: `get` stops serving it (as search and list hide
 * it), but the owner updates or forgets it by that id and needs to see what
 * it said and who changed it. A guest or agent, for whom an expired memory is
 * no longer served anywhere, gets not_found, as from `get`.
 */
export async function history(ctx: ServiceContext, p: Principal, id: string): Promise<History> {
  assertMemoryId(id);
  const owner = p.role === 'owner';
  const m = await ctx.store.get(p, id);
  if (m) {
    if (!owner) await served(ctx, p, m, id);
    const versions = await ctx.store.lineage(p, m.lineageId);
    if (owner) return { lineageId: m.lineageId, versions, audit: await ctx.store.audit.forMemories(p, [m.lineageId, ...versions.map((v) => v.id)]), tombstone: null };
    // A lineage's id is its first version's; a guest who sees only a later, shared version
    // must not get the entries of the owner-only ones before it, nor, in the entry that
    // replaced one, its id and content hash (a hash lets a guesser test candidate texts).
    const visible = new Set(versions.map((v) => v.id));
    const audit = (await ctx.store.audit.forMemories(p, [...visible])).map((entry) => {
      const e = withoutChain(entry);
      const previousId = (e.details as { previousId?: unknown }).previousId;
      if (typeof previousId !== 'string' || visible.has(previousId)) return e;
      const { previousId: _hidden, ...details } = e.details as Record<string, unknown>;
      return { ...e, beforeHash: null, details };
    });
    return { lineageId: m.lineageId, versions, audit, tombstone: null };
  }
  const t = await ctx.store.tombstone(p, id);
  if (!t) throw new MnemosError('not_found', `no memory with id ${id} is visible to you`, { id });
  if (!owner) {
    // Others learn that it was forgotten and when; the versions, hashes, actor and reason stay the owner's.
    return { lineageId: t.lineageId, versions: [], audit: [], tombstone: { ...t, versionIds: [], contentHash: '', actor: '', reason: '' } };
  }
  const audit = await ctx.store.audit.forMemories(p, [t.lineageId, ...t.versionIds]);
  return { lineageId: t.lineageId, versions: [], audit, tombstone: t };
}
