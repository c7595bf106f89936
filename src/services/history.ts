import type { AuditEntry } from '../domain/audit.ts';
import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { Tombstone } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

export interface History {
  lineageId: string;
  versions: Memory[];
  audit: AuditEntry[];
  tombstone: Tombstone | null;
}

/** Every version of a memory and every audit entry about it, including after a forget (then only the tombstone). */
export async function history(ctx: ServiceContext, p: Principal, id: string): Promise<History> {
  const m = await ctx.store.get(p, id);
  if (m) {
    const versions = await ctx.store.lineage(p, m.lineageId);
    const audit = await ctx.store.audit.forMemories(p, [m.lineageId, ...versions.map((v) => v.id)]);
    return { lineageId: m.lineageId, versions, audit, tombstone: null };
  }
  const t = await ctx.store.tombstone(p, id);
  if (!t) throw new MnemosError('not_found', `no memory with id ${id} is visible to you`, { id });
  const audit = await ctx.store.audit.forMemories(p, [t.lineageId, ...t.versionIds]);
  return { lineageId: t.lineageId, versions: [], audit, tombstone: t };
}
