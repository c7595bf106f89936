import { MnemosError } from '../domain/errors.ts';
import type { Lifecycle, Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { Extractor } from '../graph/extraction.ts';
import { indexGraph } from '../graph/graph-index.ts';
import { reindexGraph } from '../graph/graph-reindex.ts';
import { EXTRACTION_RULES_VERSION } from '../graph/extract-rules.ts';
import { embeddingsFor, embedMissing } from '../services/embeddings.ts';
import type { ModelRefresh } from '../services/model-refresh.ts';
import type { GraphStore, JobRecord, JobStore } from '../ports/lifecycle.ts';
import type { WriteOp } from '../ports/store.ts';
import type { ServiceContext } from '../services/context.ts';
import { lifecycleConfig } from './config.ts';
import {
  applyGroups,
  applyInBatches,
  loadCurrent,
  loopText,
  mergeOps,
  modelCounts,
  planAllMerges,
  planLifecycle,
  planOrphanRescue,
  planPurge,
  refreshModel,
  stalledGoals,
  type ChangeNote,
  type OpenLoop,
} from './consolidation-phases.ts';
import { holderDead, newHolder } from './holder.ts';
import { underGraphLease } from './graph-lease.ts';
import { lifecyclePrincipal } from './principals.ts';

export const CONSOLIDATE_JOB = 'consolidate';
export const CONSOLIDATION_PHASES = ['lifecycle', 'merge', 'purge', 'orphans', 'graph', 'vectors'] as const;
type Phase = (typeof CONSOLIDATION_PHASES)[number];
const MAX_CHANGES_IN_REPORT = 500;

export interface ConsolidationReport {
  jobId: string;
  status: 'done' | 'skipped' | 'busy';
  reason?: string;
  resumed: boolean;
  attempts: number;
  startedAt: string;
  finishedAt: string;
  durationMs: number;
  counts: Record<string, number>;
  /** What changed and why (the first 500 changes; counts cover all). */
  changes: ChangeNote[];
  merges: { survivorId: string; loserId: string; similarity: number; method: string }[];
  openLoops: OpenLoop[];
  /** Milliseconds per phase of this attempt. */
  timings: Record<string, number>;
  /** What the vectors phase of this attempt did with the built-in embedder's learned model. */
  model?: ModelRefresh;
}

export interface ConsolidateOptions {
  /** Run even when nothing is new since the last run. */
  force?: boolean;
  extractor?: Extractor;
  /** Called after each batch and each finished phase (`done`: phases finished); the CLI draws it, a test kills the process here. */
  onProgress?: (phase: string, detail: Record<string, number>) => void | Promise<void>;
  /** Stops a long step (training the built-in model) when aborted, e.g. by a server shutting down; the run then fails and the next one starts over. */
  signal?: AbortSignal;
}

export function requireJobs(ctx: ServiceContext): JobStore {
  if (!ctx.store.jobs) throw new MnemosError('unsupported', `the ${ctx.store.backend} store has no job table yet`);
  return ctx.store.jobs;
}

/**
 * One consolidation run of the caller's namespace (owner only): skipped
 * when nothing is new, refused while another process holds the lease,
 * resumed after a crash from the last completed phase.
 */
export async function consolidate(ctx: ServiceContext, p: Principal, opts: ConsolidateOptions = {}): Promise<ConsolidationReport> {
  if (p.role !== 'owner') throw new MnemosError('forbidden', 'only the owner can run a consolidation');
  const jobs = requireJobs(ctx);
  const cfg = lifecycleConfig(ctx);
  const sys = lifecyclePrincipal(p.namespace);
  const startMs = ctx.now();
  const clockStart = Date.now();
  const last = await jobs.last(sys, CONSOLIDATE_JOB);
  const head = (await ctx.store.audit.head())?.seq ?? 0;
  if (!opts.force && last?.status === 'done' && last.watermark === head && last.finishedAt && startMs - Date.parse(last.finishedAt) < cfg.maxIdleMs) {
    return emptyReport(last, 'skipped', `nothing new since the last run at ${last.finishedAt}`, startMs, await loopsNow(ctx, sys, last.report));
  }
  const holder = newHolder();
  const claim = await jobs.claim(sys, CONSOLIDATE_JOB, holder, cfg.leaseMs, startMs, holderDead);
  if ('busy' in claim) {
    const reason = `another runner (${claim.busy.holder}) holds the lease until ${claim.busy.leaseExpiresAt}`;
    return emptyReport(claim.busy, 'busy', reason, startMs, await loopsNow(ctx, sys, claim.busy.report));
  }
  const job = claim.claimed;
  const state = (job.state ?? {}) as { done?: Phase[]; counts?: Record<string, number>; changes?: ChangeNote[]; merges?: ConsolidationReport['merges'] };
  const done = new Set<Phase>(state.done ?? []);
  const counts: Record<string, number> = { ...(state.counts ?? {}) };
  const changes: ChangeNote[] = [...(state.changes ?? [])];
  const merges: ConsolidationReport['merges'] = [...(state.merges ?? [])];
  const note = (n: ChangeNote[]) => {
    for (const c of n) if (changes.length < MAX_CHANGES_IN_REPORT) changes.push(c);
  };
  const renew = async (phase: string) => {
    await jobs.checkpoint(sys, job.id, holder, phase, { done: [...done], counts, changes, merges }, cfg.leaseMs, ctx.now());
  };
  const progress = async (phase: string, detail: Record<string, number>) => {
    if (opts.onProgress) await opts.onProgress(phase, detail);
  };
  const now = ctx.now();
  const timings: Record<string, number> = {};
  let mark = performance.now();
  const lap = (name: string) => {
    const t = performance.now();
    timings[name] = Math.round((timings[name] ?? 0) + t - mark);
    mark = t;
  };
  let memories: Memory[] = await loadCurrent(ctx, sys);
  lap('load');
  let openLoops: OpenLoop[] = [];
  let model: ModelRefresh | undefined;

  try {
    for (const phase of CONSOLIDATION_PHASES) {
      if (done.has(phase)) continue;
      let batches = 0;
      const afterBatch = async () => {
        batches++;
        await renew(phase);
        await progress(phase, { batches });
      };
      if (phase === 'lifecycle') {
        const plan = planLifecycle(memories, now);
        const applied = await applyInBatches(ctx, sys, plan.ops, 1000, afterBatch);
        await jobs.markExpired(sys, plan.expiredLineages, now);
        // Expired again after a new life: the retention starts over (it kept the first expiry's date and purged at once).
        await jobs.markExpired(sys, plan.newlyExpired, now, true);
        // Keep the loaded list current instead of reading everything again; reload only if something was stale.
        if (applied === plan.ops.length) {
          const to = new Map<string, Lifecycle>();
          for (const o of plan.ops) if (o.kind === 'lifecycle') to.set(o.id, o.to);
          for (const m of memories) {
            const next = to.get(m.id);
            if (next) m.lifecycle = next; // the run's own copies: updated in place, no second list
          }
        } else memories = await loadCurrent(ctx, sys);
        for (const [k, v] of Object.entries(plan.counts)) counts[k] = (counts[k] ?? 0) + v;
        counts.lifecycleSkippedStale = (counts.lifecycleSkippedStale ?? 0) + plan.ops.length - applied;
        note(plan.notes);
      } else if (phase === 'merge') {
        const byId = new Map(memories.map((m) => [m.id, m]));
        const plans = planAllMerges(memories, cfg);
        const replaced = new Map<string, Memory>();
        // 200 merges per transaction; a merge's two new versions always commit together, and only committed merges are reported.
        for (let i = 0; i < plans.length; i += 200) {
          const group = plans.slice(i, i + 200);
          const groups = group.map((m) => mergeOps(byId.get(m.survivorId)!, byId.get(m.loserId)!, m, now));
          const applied = await applyGroups(ctx, sys, groups);
          for (const [k, m] of group.entries()) {
            if (!applied[k]) continue;
            for (const op of groups[k]!) if (op.kind === 'update') replaced.set(op.previousId, op.next);
            merges.push(m);
            counts.merged = (counts.merged ?? 0) + 1;
            note([{ id: m.loserId, action: 'merge', to: 'archived', reason: `near-duplicate of ${m.survivorId} (${m.method} ${m.similarity})` }]);
          }
          await afterBatch();
        }
        if (replaced.size > 0) memories = memories.map((m) => replaced.get(m.id) ?? m);
      } else if (phase === 'purge') {
        // `memories` is current here (the lifecycle and merge phases kept it so): held merge losers are spared.
        const due = planPurge(await jobs.dueForPurge(sys, now - cfg.purgeAfterMs, 100_000), memories, now);
        const ops: WriteOp[] = due.map((lineageId) => ({ kind: 'forget', lineageId, reason: `purge: expired more than ${Math.round(cfg.purgeAfterMs / 86_400_000)} days ago` }));
        counts.purged = (counts.purged ?? 0) + (await applyInBatches(ctx, sys, ops, 200, afterBatch));
        note(due.slice(0, 100).map((id) => ({ id, action: 'purge' as const, reason: 'expired past retention' })));
        // The row log gains an entry per memory written or forgotten (the purge's too); without this it only grows.
        if (ctx.store.pruneMemoryLog) counts.memoryLogPruned = (counts.memoryLogPruned ?? 0) + (await ctx.store.pruneMemoryLog(sys, cfg.memoryLogKeep));
      } else if (phase === 'orphans') {
        if (counts.purged) memories = await loadCurrent(ctx, sys);
        const r = planOrphanRescue(memories, now, cfg);
        counts.rescued = (counts.rescued ?? 0) + (await applyInBatches(ctx, sys, r.ops, 1000, afterBatch));
        note(r.notes);
        if (r.replaced.size > 0) memories = memories.map((m) => r.replaced.get(m.id) ?? m);
        openLoops = stalledGoals(memories, now, cfg);
        counts.openLoops = openLoops.length;
      } else if (phase === 'graph' && ctx.store.graph) {
        // Under the graph lease: while `mnemos graph index` or `graph reindex` runs, this run leaves the graph to it.
        const run = await underGraphLease(ctx, p.namespace, async (renew) => {
          const g = await indexGraph(ctx, sys, { limit: cfg.graphBatch, current: memories, onBatch: renew, ...(opts.extractor ? { extractor: opts.extractor } : {}) });
          // Then memories indexed under older extraction rules, a bounded number a run, so a new rules version
          // does not turn one run into a re-index of the whole store. A namespace no larger than that bound is
          // rebuilt instead (about the same work): re-indexed alone, stale memories resolve against the entities
          // the older rules made, and people those rules merged stayed merged (graph-reindex.ts).
          const rebuild = await rebuildAfterUpgrade(ctx.store.graph!, sys, cfg.graphReindexBatch);
          const r = await reindexGraph(ctx, sys, {
            ...(rebuild ? { all: true } : { limit: cfg.graphReindexBatch }),
            ...(opts.extractor ? { extractor: opts.extractor } : {}),
            onProgress: async () => {
              await renew();
              await afterBatch();
            },
          });
          return { g, r, rebuild };
        });
        if ('busy' in run) counts.graphBusy = (counts.graphBusy ?? 0) + 1;
        else {
          const { g, r, rebuild } = run.done;
          if (rebuild) counts.graphRebuilt = (counts.graphRebuilt ?? 0) + 1;
          counts.graphMemories = (counts.graphMemories ?? 0) + g.memories;
          counts.entitiesCreated = (counts.entitiesCreated ?? 0) + g.entitiesCreated;
          counts.relationsAdded = (counts.relationsAdded ?? 0) + g.relationsAdded;
          counts.relationsClosed = (counts.relationsClosed ?? 0) + g.relationsClosed;
          counts.graphReindexed = (counts.graphReindexed ?? 0) + r.memories;
          counts.entitiesCreated += r.entitiesCreated;
          counts.entitiesRemoved = (counts.entitiesRemoved ?? 0) + r.entitiesRemoved;
          counts.relationsAdded += r.relationsAdded;
          counts.relationsClosed += r.relationsClosed;
          counts.relationsRemoved = (counts.relationsRemoved ?? 0) + r.relationsRemoved;
        }
      } else if (phase === 'vectors') {
        model = await refreshModel(ctx, sys, cfg, opts.signal, afterBatch);
        for (const [k, v] of Object.entries(modelCounts(model))) counts[k] = (counts[k] ?? 0) + v;
        // Memories written without a vector (sleep-flushed episodes, merge survivors, an embedder outage) get one here.
        const svc = await embeddingsFor(ctx, sys).catch(() => null);
        if (svc) counts.embedded = (counts.embedded ?? 0) + (await embedMissing(ctx, sys, svc, cfg.vectorBatch, afterBatch));
        // The change log gains an entry per vector written or removed; without this it only grows.
        if (ctx.store.vectors) counts.vectorLogPruned = (counts.vectorLogPruned ?? 0) + (await ctx.store.vectors.pruneLog(sys, cfg.vectorLogKeep));
      }
      done.add(phase);
      lap(phase);
      await renew(phase);
      await progress(phase, { done: done.size });
    }
    if (openLoops.length === 0 && done.has('orphans') && state.done?.includes('orphans')) openLoops = stalledGoals(await loadCurrent(ctx, sys), now, cfg);
    counts.scanned = memories.length;
    const endMs = ctx.now();
    const report: ConsolidationReport = {
      jobId: job.id,
      status: 'done',
      resumed: claim.resumed,
      attempts: job.attempts,
      startedAt: job.startedAt,
      finishedAt: toIso(endMs),
      durationMs: Date.now() - clockStart,
      counts,
      changes,
      merges,
      openLoops,
      timings,
      ...(model ? { model } : {}),
    };
    // Stored without the goals' text, which a forget could not reach in a job row: read back, it is looked up again.
    const stored = { ...report, openLoops: openLoops.map(({ id, untouchedDays }) => ({ id, untouchedDays })) };
    await jobs.finish(sys, job.id, holder, 'done', stored as unknown as Record<string, unknown>, endMs);
    return report;
  } catch (err) {
    // A lost lease means another runner took over; leave the job to it.
    if (!MnemosError.is(err, 'conflict')) {
      await jobs.finish(sys, job.id, holder, 'failed', { error: String((err as Error).message), counts }, ctx.now()).catch(() => {});
    }
    throw err;
  }
}

/**
 * A stored report's open loops, each with its goal's text read now. Reports
 * kept the text itself, so a goal forgotten since stayed readable in the
 * job rows and came back in `consolidate --status`; now a report keeps ids,
 * and a goal that is gone (forgotten) is left out here. Reports written by
 * earlier versions are read the same way.
 */
async function loopsNow(ctx: ServiceContext, sys: Principal, report: unknown): Promise<OpenLoop[]> {
  const loops = (report as { openLoops?: unknown } | null)?.openLoops;
  if (!Array.isArray(loops)) return [];
  const out: OpenLoop[] = [];
  for (const l of loops as { id?: unknown; untouchedDays?: unknown }[]) {
    const goal = typeof l?.id === 'string' ? await ctx.store.get(sys, l.id) : null;
    if (goal) out.push({ id: goal.id, text: loopText(goal.text), untouchedDays: Number(l.untouchedDays) });
  }
  return out;
}

function emptyReport(job: JobRecord, status: 'skipped' | 'busy', reason: string, now: number, openLoops: OpenLoop[]): ConsolidationReport {
  return {
    jobId: job.id,
    status,
    reason,
    resumed: false,
    attempts: job.attempts,
    startedAt: toIso(now),
    finishedAt: toIso(now),
    durationMs: 0,
    counts: {},
    changes: [],
    merges: [],
    openLoops,
    timings: {},
  };
}

/** The last runs, newest first, and the open loops of the last completed one. */
export async function consolidationStatus(ctx: ServiceContext, p: Principal, limit = 5) {
  if (p.role !== 'owner') throw new MnemosError('forbidden', 'consolidation status is for the owner only');
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 1000)) throw new MnemosError('validation_failed', 'limit must be a whole number from 1 to 1000', { field: 'limit' });
  const jobs = requireJobs(ctx);
  const runs = await jobs.list(lifecyclePrincipal(p.namespace), CONSOLIDATE_JOB, limit);
  const lastDone = runs.find((r) => r.status === 'done');
  const stored = (lastDone?.report ?? null) as ConsolidationReport | null;
  const openLoops = await loopsNow(ctx, lifecyclePrincipal(p.namespace), stored);
  const report = stored ? { ...stored, openLoops } : null;
  return {
    // The engine runs no timer of its own: a server or an MCP session says what it runs (consolidation_status).
    intervalMs: null as number | null,
    running: runs.find((r) => r.status === 'running') ?? null,
    last: report,
    openLoops,
    runs: runs.map((r) => ({ id: r.id, status: r.status, startedAt: r.startedAt, finishedAt: r.finishedAt, attempts: r.attempts, phase: r.phase, counts: (r.report as { counts?: unknown } | null)?.counts ?? null })),
  };
}

/** Whether the graph step rebuilds the graph: some memory was indexed under older rules, and the namespace's current memories are few enough. */
async function rebuildAfterUpgrade(graph: GraphStore, p: Principal, bound: number): Promise<boolean> {
  if ((await graph.staleIndexedCount(p, { rulesVersion: EXTRACTION_RULES_VERSION, all: false })) === 0) return false;
  return (await graph.liveCount(p)) <= bound;
}
