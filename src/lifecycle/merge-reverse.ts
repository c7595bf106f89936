import { MnemosError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { ServiceContext } from '../services/context.ts';
import { getMemory } from '../services/memories.ts';

/**
 * Undoes a merge: the archived memory comes back (activated, its link
 * removed) and the survivor drops the merged provenance. Both as new
 * versions in one batch, so history shows the merge and its reversal.
 */
export async function reverseMerge(ctx: ServiceContext, p: Principal, mergedId: string): Promise<{ restoredId: string; survivorId: string }> {
  const loserAny = await getMemory(ctx, p, mergedId);
  const loser = (await ctx.store.lineage(p, loserAny.lineageId)).find((v) => v.supersededAt === null);
  const into = loser?.metadata.mergedInto as { lineageId?: string } | undefined;
  if (!loser || !into?.lineageId) throw new MnemosError('conflict', `memory ${mergedId} is not archived by a merge`, { id: mergedId });
  const survivor = (await ctx.store.lineage(p, into.lineageId)).find((v) => v.supersededAt === null);
  const now = ctx.now();
  const at = toIso(now);
  const base = { recordedAt: at, supersededAt: null, supersededBy: null };
  const { mergedInto: _drop, ...loserMeta } = loser.metadata;
  const restored: Memory = { ...loser, ...base, id: newId(now), version: loser.version + 1, lifecycle: 'activated', metadata: { ...loserMeta, unmergedAt: at } };
  const ops: Parameters<typeof ctx.store.apply>[1] = [{ kind: 'update', previousId: loser.id, next: restored, action: 'update', reason: `merge reversed: restored from ${into.lineageId}` }];
  if (survivor) {
    const from = Array.isArray(survivor.metadata.mergedFrom) ? (survivor.metadata.mergedFrom as { lineageId?: string }[]) : [];
    const rest = from.filter((f) => f.lineageId !== loser.lineageId);
    const { mergedFrom: _old, ...meta } = survivor.metadata;
    const next: Memory = { ...survivor, ...base, id: newId(now), version: survivor.version + 1, metadata: rest.length ? { ...meta, mergedFrom: rest } : meta };
    ops.push({ kind: 'update', previousId: survivor.id, next, action: 'update', reason: `merge reversed: ${loser.lineageId} restored` });
    await ctx.store.apply(p, ops);
    return { restoredId: restored.id, survivorId: next.id };
  }
  await ctx.store.apply(p, ops);
  return { restoredId: restored.id, survivorId: into.lineageId };
}
