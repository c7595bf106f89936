import { MnemosError } from '../domain/errors.ts';
import { contentHash } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { WriteOp } from '../ports/store.ts';
import type { ServiceContext } from '../services/context.ts';
import { refreshBuiltinModel, type ModelRefresh } from '../services/model-refresh.ts';
import type { LifecycleConfig } from './config.ts';
import { MID_TERM_THRESHOLD, currentImportance, lifecycleMove } from './importance.ts';
import { planMerges, type PlannedMerge } from './merge-plan.ts';

/**
 * The phases of one consolidation run. Each reads the store's current state
 * and writes in small all-or-nothing batches, so a run killed anywhere
 * leaves every memory either before or after its change, and redoing a
 * phase is safe.
 */
export interface ChangeNote {
  id: string;
  action: 'lifecycle' | 'merge' | 'purge' | 'rescue';
  from?: string;
  to?: string;
  reason: string;
  importance?: number;
}

export interface PhaseOutput {
  counts: Record<string, number>;
  changes: ChangeNote[];
}

const BATCH = 1000;

/** Every current version in the namespace, any lifecycle. */
export async function loadCurrent(ctx: ServiceContext, sys: Principal): Promise<Memory[]> {
  const out: Memory[] = [];
  const jobs = ctx.store.jobs;
  if (jobs?.scanCurrent) {
    let cursor: string | null = null;
    do {
      const page: { memories: Memory[]; cursor: string | null } = await jobs.scanCurrent(sys, cursor, 5000);
      out.push(...page.memories);
      cursor = page.cursor;
    } while (cursor !== null);
    return out;
  }
  let after: string | null = null;
  for (;;) {
    const page = await ctx.store.scan(sys, after, 5000);
    if (page.length === 0) break;
    for (const m of page) if (m.supersededAt === null) out.push(m);
    after = page[page.length - 1]!.id;
  }
  return out;
}

/** Applies ops in batches; a batch refused because something changed meanwhile is retried op by op, skipping the stale ones. */
export async function applyInBatches(ctx: ServiceContext, sys: Principal, ops: WriteOp[], size = BATCH, afterBatch?: () => Promise<void>): Promise<number> {
  let applied = 0;
  for (let i = 0; i < ops.length; i += size) {
    const chunk = ops.slice(i, i + size);
    try {
      await ctx.store.apply(sys, chunk);
      applied += chunk.length;
    } catch (err) {
      if (!MnemosError.is(err, 'conflict') && !MnemosError.is(err, 'not_found') && !MnemosError.is(err, 'read_only')) throw err;
      for (const op of chunk) {
        try {
          await ctx.store.apply(sys, [op]);
          applied++;
        } catch (e) {
          if (!MnemosError.is(e, 'conflict') && !MnemosError.is(e, 'not_found') && !MnemosError.is(e, 'read_only')) throw e;
        }
      }
    }
    if (afterBatch) await afterBatch();
  }
  return applied;
}

const STALE = (e: unknown) => MnemosError.is(e, 'conflict') || MnemosError.is(e, 'not_found') || MnemosError.is(e, 'read_only');

/** Applies groups of ops that must stay whole (a merge) in one batch; on a stale group, each group alone. Returns which groups were applied. */
export async function applyGroups(ctx: ServiceContext, sys: Principal, groups: WriteOp[][]): Promise<boolean[]> {
  if (groups.length === 0) return [];
  try {
    await ctx.store.apply(sys, groups.flat());
    return groups.map(() => true);
  } catch (err) {
    if (!STALE(err)) throw err;
  }
  const out: boolean[] = [];
  for (const g of groups) {
    try {
      await ctx.store.apply(sys, g);
      out.push(true);
    } catch (e) {
      if (!STALE(e)) throw e;
      out.push(false);
    }
  }
  return out;
}

/** The lineage a merge archived this memory into, or null. */
export function mergedIntoLineage(m: Memory): string | null {
  const into = m.metadata.mergedInto as { lineageId?: unknown } | undefined;
  return typeof into?.lineageId === 'string' ? into.lineageId : null;
}

/**
 * A merge loser (archived by the merge, or expired by an older build) whose
 * survivor still has a current version, of any lifecycle. It lives as long
 * as its survivor: scored, expired or purged on its own it would be lost
 * while the survivor's `mergedFrom` still points at it, and reverseMerge
 * could not bring it back.
 */
export function heldByMerge(m: Memory, lineages: ReadonlySet<string>): boolean {
  const into = mergedIntoLineage(m);
  return into !== null && (m.lifecycle === 'archived' || m.lifecycle === 'expired') && lineages.has(into);
}

/** Importance recalculation, threshold moves and TTL governance. */
/**
 * `expiredLineages`: lineages already expired (their retention date stays);
 * `newlyExpired`: lineages this run expires, whose retention starts now even
 * if an earlier expiry was listed (the owner gave the memory a new life).
 */
export function planLifecycle(memories: readonly Memory[], now: number): { ops: WriteOp[]; notes: ChangeNote[]; expiredLineages: string[]; newlyExpired: string[]; counts: Record<string, number> } {
  const ops: WriteOp[] = [];
  const notes: ChangeNote[] = [];
  const expiredLineages: string[] = [];
  const newlyExpired: string[] = [];
  const counts: Record<string, number> = { scored: 0, consolidated: 0, archived: 0, expired: 0, ttlExpired: 0, heldByMerge: 0 };
  const lineages = new Set(memories.map((m) => m.lineageId));
  for (const m of memories) {
    if (m.lifecycle === 'expired') {
      expiredLineages.push(m.lineageId);
      continue;
    }
    if (m.readOnly) continue;
    if (m.expiresAt !== null && Date.parse(m.expiresAt) <= now && m.lifecycle !== 'frozen') {
      ops.push({ kind: 'lifecycle', id: m.id, from: m.lifecycle, to: 'expired', reason: 'ttl: expiresAt passed' });
      notes.push({ id: m.id, action: 'lifecycle', from: m.lifecycle, to: 'expired', reason: 'ttl' });
      newlyExpired.push(m.lineageId);
      counts.ttlExpired!++;
      continue;
    }
    // An owner-set TTL still applies (above); decay does not, while the survivor lives.
    if (heldByMerge(m, lineages)) {
      counts.heldByMerge!++;
      continue;
    }
    // Skills and long-term memories are never scored (formulas.md): counting them made `scored` overstate the work.
    if (m.lifecycle === 'frozen' || m.lifecycle === 'consolidated') continue;
    counts.scored!++;
    const importance = currentImportance(m, now);
    const move = lifecycleMove(m.lifecycle, importance);
    if (!move) continue;
    const rounded = Math.round(importance * 1e4) / 1e4;
    ops.push({ kind: 'lifecycle', id: m.id, from: m.lifecycle, to: move.to, reason: `${move.reason}: importance ${rounded}` });
    notes.push({ id: m.id, action: 'lifecycle', from: m.lifecycle, to: move.to, reason: move.reason, importance: rounded });
    if (move.to === 'expired') newlyExpired.push(m.lineageId);
    counts[move.to === 'consolidated' ? 'consolidated' : move.to === 'archived' ? 'archived' : 'expired']!++;
  }
  return { ops, notes, expiredLineages, newlyExpired, counts };
}

/**
 * Lineages due for purge that may really be forgotten now: not a memory
 * whose current version is no longer expired, and not a merge loser held by
 * its survivor (unless its own TTL ran out). Lineages with no current
 * version are left to the forget op.
 */
export function planPurge(due: readonly string[], memories: readonly Memory[], now: number): string[] {
  const byLineage = new Map(memories.map((m) => [m.lineageId, m]));
  const lineages = new Set(byLineage.keys());
  return due.filter((id) => {
    const m = byLineage.get(id);
    if (!m) return true;
    if (m.lifecycle !== 'expired') return false;
    const ttlPassed = m.expiresAt !== null && Date.parse(m.expiresAt) <= now;
    return ttlPassed || !heldByMerge(m, lineages);
  });
}

/** The two new versions of one merge: one batch, so a merge is all or nothing. */
export function mergeOps(survivor: Memory, loser: Memory, plan: PlannedMerge, now: number): WriteOp[] {
  const at = toIso(now);
  const nextSurvivorId = newId(now);
  // Each side's lifecycle before the merge, so reverseMerge can put it back.
  const provenance = { id: loser.id, lineageId: loser.lineageId, origin: loser.origin, source: loser.source, sourceKey: loser.sourceKey, similarity: plan.similarity, method: plan.method, at, survivorLifecycle: survivor.lifecycle };
  const prior = Array.isArray(survivor.metadata.mergedFrom) ? (survivor.metadata.mergedFrom as unknown[]) : [];
  const base = { recordedAt: at, supersededAt: null, supersededBy: null };
  const s: Memory = {
    ...survivor,
    ...base,
    id: nextSurvivorId,
    version: survivor.version + 1,
    lifecycle: 'consolidated',
    metadata: { ...survivor.metadata, mergedFrom: [...prior, provenance] },
  };
  const l: Memory = {
    ...loser,
    ...base,
    id: newId(now),
    version: loser.version + 1,
    lifecycle: 'archived',
    metadata: { ...loser.metadata, mergedInto: { id: nextSurvivorId, lineageId: survivor.lineageId, similarity: plan.similarity, method: plan.method, at, lifecycle: loser.lifecycle } },
  };
  s.contentHash = contentHash(s.text);
  return [
    { kind: 'update', previousId: survivor.id, next: s, action: 'update', reason: `merge: kept as survivor of ${loser.lineageId} (${plan.method} ${plan.similarity})` },
    { kind: 'update', previousId: loser.id, next: l, action: 'supersede', reason: `merge: archived into ${survivor.lineageId} (${plan.method} ${plan.similarity})` },
  ];
}

/**
 * Near-duplicates are judged on surface words (lower-cased, split on
 * non-letters), not stems: cheaper at 100k memories, and two texts that
 * differ in word forms are less likely to be true duplicates anyway.
 */
export function surfaceWords(text: string): string[] {
  return text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 0);
}

export function planAllMerges(memories: readonly Memory[], cfg: LifecycleConfig): PlannedMerge[] {
  return planMerges(memories, surfaceWords, { textThreshold: cfg.textDuplicateThreshold, vectorThreshold: cfg.vectorDuplicateThreshold });
}

/**
 * Archived merge losers whose survivor is gone (no current version: forgotten
 * or purged; an archived or expired survivor still exists), still strong and
 * long unused: back to activated. `memories` must be the state after the
 * lifecycle and purge phases. The rescue is a new version that trades
 * `mergedInto` for `rescuedFrom`: the memory is an ordinary one again, so
 * when it decays and is archived later, it is not rescued again (no
 * archive/rescue flip-flop every run).
 */
export function planOrphanRescue(memories: readonly Memory[], now: number, cfg: LifecycleConfig): { ops: WriteOp[]; notes: ChangeNote[]; replaced: Map<string, Memory> } {
  const lineages = new Set(memories.map((m) => m.lineageId));
  const ops: WriteOp[] = [];
  const notes: ChangeNote[] = [];
  const replaced = new Map<string, Memory>();
  for (const m of memories) {
    if (m.lifecycle !== 'archived' || m.importance <= MID_TERM_THRESHOLD) continue;
    const into = mergedIntoLineage(m);
    if (into === null || lineages.has(into)) continue;
    if (now - Date.parse(m.lastAccessedAt ?? m.recordedAt) < cfg.orphanUnusedMs) continue;
    const at = toIso(now);
    const { mergedInto, ...meta } = m.metadata;
    const next: Memory = { ...m, id: newId(now), version: m.version + 1, recordedAt: at, supersededAt: null, supersededBy: null, lifecycle: 'activated', metadata: { ...meta, rescuedFrom: { ...(mergedInto as object), rescuedAt: at } } };
    ops.push({ kind: 'update', previousId: m.id, next, action: 'update', reason: `rescue: merged into ${into}, which is gone` });
    notes.push({ id: m.id, action: 'rescue', from: 'archived', to: 'activated', reason: 'orphaned by its merge survivor' });
    replaced.set(m.id, next);
  }
  return { ops, notes, replaced };
}

export interface OpenLoop {
  id: string;
  text: string;
  untouchedDays: number;
}

/** An open loop shows the start of its goal's text. */
export function loopText(text: string): string {
  return text.length > 160 ? `${text.slice(0, 159)}…` : text;
}

const CLOSED_GOAL = new Set(['done', 'closed', 'achieved', 'abandoned', 'cancelled']);

/** Open goals nobody touched for the configured time. */
export function stalledGoals(memories: readonly Memory[], now: number, cfg: LifecycleConfig): OpenLoop[] {
  const out: OpenLoop[] = [];
  for (const m of memories) {
    // A weak goal may already be archived; it is still an open loop until it is closed or expires.
    if (m.type !== 'goal' || m.lifecycle === 'expired') continue;
    if (CLOSED_GOAL.has(String(m.metadata.status ?? '').toLowerCase())) continue;
    const since = now - Date.parse(m.lastAccessedAt ?? m.recordedAt);
    if (since < cfg.stalledGoalMs) continue;
    out.push({ id: m.id, text: loopText(m.text), untouchedDays: Math.floor(since / 86_400_000) });
  }
  return out.sort((a, b) => b.untouchedDays - a.untouchedDays);
}

/**
 * The vectors phase's first step: keep the built-in embedder's learned model
 * fresh. A failure leaves the current model in use and is reported, not
 * thrown, so it never stops the rest of consolidation; being stopped (the
 * signal) does stop the run.
 */
export async function refreshModel(ctx: ServiceContext, sys: Principal, cfg: LifecycleConfig, signal: AbortSignal | undefined, heartbeat: () => Promise<void>): Promise<ModelRefresh> {
  try {
    return await refreshBuiltinModel(ctx, sys, { minTexts: cfg.modelMinTexts, growth: cfg.modelGrowth, heartbeat, heartbeatMs: cfg.leaseMs / 4, ...(signal ? { signal } : {}) });
  } catch (err) {
    // A lost lease is not swallowed for long: the phase's own checkpoint right after fails with it.
    if (signal?.aborted) throw err;
    const model = (await ctx.store.vectors?.modelId(sys, 'builtin').catch(() => null)) ?? null;
    return { status: 'failed', reason: (err as Error).message, model, embedded: 0, droppedVectors: 0 };
  }
}

/** The report's counts for a model refresh. */
export function modelCounts(r: ModelRefresh): Record<string, number> {
  const out: Record<string, number> = {};
  if (r.status === 'trained') out.modelTrained = 1;
  if (r.status === 'trained' || r.status === 'resumed') out.modelSwitched = 1;
  if (r.status === 'failed') out.modelFailed = 1;
  if (r.embedded) out.modelEmbedded = r.embedded;
  if (r.droppedVectors) out.modelDroppedVectors = r.droppedVectors;
  return out;
}
