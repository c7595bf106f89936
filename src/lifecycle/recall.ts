import { MnemosError } from '../domain/errors.ts';
import { contentHash } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import { onRecall } from '../domain/lifecycle.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { ServiceContext } from '../services/context.ts';
import { getMemory } from '../services/memories.ts';
import { patchSchema } from '../services/inputs.ts';
import { parseInput } from '../services/validate.ts';
import { lifecycleConfig } from './config.ts';
import { CONFIRMATION_BOOST, RECALL_BOOST, boosted } from './importance.ts';
import { lifecyclePrincipal } from './principals.ts';
import { isLabile } from './reconsolidation.ts';
import { OWNER_MARKED_LABEL } from './merge-plan.ts';

export interface RecallResult {
  memory: Memory;
  /** Until when a correction updates this memory in place. */
  labileUntil: string;
}

/**
 * A recall: access count and time, activation of a generated memory, and the
 * +0.02 boost. Anyone who can read the memory causes it; the change is made
 * by the lifecycle principal because readers may not write others' memories.
 */
export async function recallMemory(ctx: ServiceContext, p: Principal, id: string): Promise<RecallResult> {
  const now = ctx.now();
  const m = await readThenMove(ctx, p, id, (m) => {
    const ops: Parameters<typeof ctx.store.apply>[1] = [{ kind: 'touch', ids: [m.id], at: toIso(now) }];
    if (m.supersededAt === null && m.lifecycle !== 'expired') {
      ops.push({ kind: 'lifecycle', id: m.id, from: m.lifecycle, to: onRecall(m.lifecycle), reason: 'recall', importance: boosted(m.importance, RECALL_BOOST), fromImportance: m.importance });
    }
    return ops;
  });
  return { memory: await getMemory(ctx, p, m.id), labileUntil: toIso(now + lifecycleConfig(ctx).labileWindowMs) };
}

/** The user confirmed the memory is right: +0.05 strength. */
export async function confirmMemory(ctx: ServiceContext, p: Principal, id: string): Promise<Memory> {
  const m = await readThenMove(ctx, p, id, (m) => {
    if (m.supersededAt !== null) throw new MnemosError('conflict', `memory ${id} is an old version; confirm the current one (${m.supersededBy})`, { id });
    return [{ kind: 'lifecycle', id: m.id, from: m.lifecycle, to: m.lifecycle, reason: 'confirmation', importance: boosted(m.importance, CONFIRMATION_BOOST), fromImportance: m.importance }];
  });
  return getMemory(ctx, p, m.id);
}

/** Attempts of a read-then-move before a conflict is the caller's (each round at least one of the racers gets through). */
const MOVE_ATTEMPTS = 32;

/**
 * Reads the memory and applies the writes computed from what was read. Two
 * recalls of one memory at once both read it before either writes; the
 * second's move then names a state or strength that is gone, the store says
 * `conflict`, and it reads again: each recall counts, none overwrites the
 * other's boost, and neither fails (with SQLite and PostgreSQL alike).
 */
async function readThenMove(ctx: ServiceContext, p: Principal, id: string, ops: (m: Memory) => Parameters<typeof ctx.store.apply>[1]): Promise<Memory> {
  for (let attempt = 1; ; attempt++) {
    const m = await getMemory(ctx, p, id);
    const writes = ops(m); // its own refusals are final, not retried
    try {
      await ctx.store.apply(lifecyclePrincipal(p.namespace), writes);
      return m;
    } catch (err) {
      if (!MnemosError.is(err, 'conflict') || attempt >= MOVE_ATTEMPTS) throw err;
      // A random pause of up to `attempt` ms, so racers that read together do not retry together.
      await new Promise((r) => setTimeout(r, Math.random() * attempt));
    }
  }
}

export interface CorrectionResult {
  mode: 'in_place' | 'superseded';
  id: string;
  previousId: string;
  labile: boolean;
}

/**
 * A correction: inside the labile window the memory is updated in place (a
 * new version of the same lineage); after it, the correction becomes a new
 * memory that supersedes the old one, whose valid time is closed.
 */
export async function correctMemory(ctx: ServiceContext, p: Principal, id: string, text: string): Promise<CorrectionResult> {
  if (typeof text !== 'string' || text.trim().length === 0) throw new MnemosError('validation_failed', 'a correction needs the corrected text', { field: 'text' });
  // The same bounds as any text a memory stores (a correction took 300,000 characters).
  parseInput(patchSchema, { text }, 'correction');
  const m = await getMemory(ctx, p, id);
  if (m.supersededAt !== null) throw new MnemosError('conflict', `memory ${id} is an old version; correct the current one (${m.supersededBy})`, { id });
  if (m.labels.includes(OWNER_MARKED_LABEL) && p.role !== 'owner') throw new MnemosError('read_only', `memory ${id} is owner-marked text and is kept verbatim`, { id });
  const now = ctx.now();
  const at = toIso(now);
  const labile = isLabile(m.lastAccessedAt, now, lifecycleConfig(ctx).labileWindowMs);
  const base = { ...m, recordedAt: at, supersededAt: null, supersededBy: null };
  if (labile) {
    const next: Memory = { ...base, id: newId(now), version: m.version + 1, text, contentHash: contentHash(text), metadata: { ...m.metadata, reconsolidatedAt: at } };
    await ctx.store.apply(p, [{ kind: 'update', previousId: m.id, next, action: 'update', reason: 'reconsolidation: corrected while labile' }]);
    return { mode: 'in_place', id: next.id, previousId: m.id, labile };
  }
  const freshId = newId(now);
  const fresh: Memory = {
    ...base,
    id: freshId,
    lineageId: freshId,
    version: 1,
    text,
    contentHash: contentHash(text),
    accessCount: 0,
    lastAccessedAt: null,
    lifecycle: m.lifecycle === 'frozen' ? 'frozen' : 'generated',
    validFrom: at,
    validTo: null,
    sourceKey: null,
    ownerId: p.id,
    metadata: { ...m.metadata, supersedes: { id: m.id, lineageId: m.lineageId } },
  };
  // Closed now, never later than it already ended (a fact that ended in 2021 is not stretched to today),
  // and never before it began (a memory valid only from a future time ends where it would have begun).
  const ended = m.validTo !== null && m.validTo < at ? m.validTo : at;
  const closedAt = ended < m.validFrom ? m.validFrom : ended;
  const closed: Memory = { ...base, id: newId(now), version: m.version + 1, validTo: closedAt, metadata: { ...m.metadata, supersededByMemory: { id: freshId, lineageId: freshId } } };
  await ctx.store.apply(p, [
    { kind: 'insert', memory: fresh, onExistingSource: 'conflict', audit: { details: { reason: 'correction after the labile window', supersedes: m.lineageId } } },
    { kind: 'update', previousId: m.id, next: closed, action: 'supersede', reason: `corrected by ${freshId} after the labile window` },
  ]);
  return { mode: 'superseded', id: freshId, previousId: m.id, labile };
}
