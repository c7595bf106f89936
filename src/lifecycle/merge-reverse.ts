import { MnemosError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { LIFECYCLES, type Lifecycle, type Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { ServiceContext } from '../services/context.ts';
import { getMemory } from '../services/memories.ts';
import type { KeptApart } from './merge-plan.ts';

/** A lifecycle a merge recorded, or undefined (merges made before it was recorded). */
function recorded(v: unknown): Lifecycle | undefined {
  return (LIFECYCLES as readonly unknown[]).includes(v) ? (v as Lifecycle) : undefined;
}

/** The metadata list of pairs kept apart, with one more. */
function keepApart(m: Memory, other: Memory, at: string): KeptApart[] {
  const prior = Array.isArray(m.metadata.keptApartFrom) ? (m.metadata.keptApartFrom as KeptApart[]) : [];
  return [...prior.filter((k) => k.lineageId !== other.lineageId), { lineageId: other.lineageId, hash: other.contentHash, ownHash: m.contentHash, at }];
}

/**
 * Undoes a merge: the archived memory comes back (its link removed) and the
 * survivor drops the merged provenance. Both as new versions in one batch,
 * so history shows the merge and its reversal. Each gets back the lifecycle
 * it had before the merge (recorded by the merge; a loser merged before that
 * was recorded comes back activated), and both remember the pair was taken
 * apart (`keptApartFrom`), so consolidation does not merge it again until a
 * text changes.
 */
export async function reverseMerge(ctx: ServiceContext, p: Principal, mergedId: string): Promise<{ restoredId: string; survivorId: string }> {
  const loserAny = await getMemory(ctx, p, mergedId);
  const loser = (await ctx.store.lineage(p, loserAny.lineageId)).find((v) => v.supersededAt === null);
  const into = loser?.metadata.mergedInto as { lineageId?: string; lifecycle?: unknown } | undefined;
  if (!loser || !into?.lineageId) throw new MnemosError('conflict', `memory ${mergedId} is not archived by a merge`, { id: mergedId });
  const survivor = (await ctx.store.lineage(p, into.lineageId)).find((v) => v.supersededAt === null);
  const now = ctx.now();
  const at = toIso(now);
  const base = { recordedAt: at, supersededAt: null, supersededBy: null };
  const { mergedInto: _drop, ...loserMeta } = loser.metadata;
  const restored: Memory = {
    ...loser,
    ...base,
    id: newId(now),
    version: loser.version + 1,
    lifecycle: recorded(into.lifecycle) ?? 'activated',
    metadata: { ...loserMeta, unmergedAt: at, ...(survivor ? { keptApartFrom: keepApart(loser, survivor, at) } : {}) },
  };
  const ops: Parameters<typeof ctx.store.apply>[1] = [{ kind: 'update', previousId: loser.id, next: restored, action: 'update', reason: `merge reversed: restored from ${into.lineageId}` }];
  if (survivor) {
    const from = Array.isArray(survivor.metadata.mergedFrom) ? (survivor.metadata.mergedFrom as { lineageId?: string; survivorLifecycle?: unknown }[]) : [];
    const rest = from.filter((f) => f.lineageId !== loser.lineageId);
    // Back to its lifecycle before this merge only if the merge's 'consolidated' still stands and no other merge made it a survivor too.
    const before = recorded(from.find((f) => f.lineageId === loser.lineageId)?.survivorLifecycle);
    const lifecycle = before && rest.length === 0 && survivor.lifecycle === 'consolidated' ? before : survivor.lifecycle;
    const { mergedFrom: _old, ...meta } = survivor.metadata;
    const kept = { ...meta, keptApartFrom: keepApart(survivor, loser, at) };
    const next: Memory = { ...survivor, ...base, id: newId(now), version: survivor.version + 1, lifecycle, metadata: rest.length ? { ...kept, mergedFrom: rest } : kept };
    ops.push({ kind: 'update', previousId: survivor.id, next, action: 'update', reason: `merge reversed: ${loser.lineageId} restored` });
    await ctx.store.apply(p, ops);
    return { restoredId: restored.id, survivorId: next.id };
  }
  await ctx.store.apply(p, ops);
  return { restoredId: restored.id, survivorId: into.lineageId };
}
