import { MnemosError } from '../domain/errors.ts';
import type { JobRecord } from '../ports/lifecycle.ts';
import type { ServiceContext } from '../services/context.ts';
import { lifecycleConfig } from './config.ts';
import { holderDead, newHolder } from './holder.ts';
import { lifecyclePrincipal } from './principals.ts';

/**
 * One graph indexer per namespace across processes. Indexing resolves names
 * against the entities it loaded when it began and closes relations from the
 * open ones it read: two runs at once (`mnemos graph index` beside a
 * consolidation, two `graph reindex`) each made their own entity for every new
 * name (two "Alice Smith"s, each with half the evidence, and later mentions
 * ambiguous between them) and left two employers current. Consolidation's
 * graph step, `graph index` and `graph reindex` all run under this lease.
 */
export const GRAPH_JOB = 'graph';

/**
 * Runs `work` holding the namespace's graph lease (renewed by the `renew` it is given, which a long run calls
 * between its transactions), or answers `busy` with the run that holds it. A store without a job table runs it as is.
 */
export async function underGraphLease<T extends object>(
  ctx: ServiceContext,
  namespace: string,
  work: (renew: () => Promise<void>) => Promise<T>,
): Promise<{ done: T } | { busy: JobRecord }> {
  const jobs = ctx.store.jobs;
  if (!jobs) return { done: await work(async () => {}) };
  const sys = lifecyclePrincipal(namespace);
  const { leaseMs } = lifecycleConfig(ctx);
  const holder = newHolder();
  const claim = await jobs.claim(sys, GRAPH_JOB, holder, leaseMs, ctx.now(), holderDead);
  if ('busy' in claim) return claim;
  const job = claim.claimed;
  try {
    const done = await work(() => jobs.checkpoint(sys, job.id, holder, GRAPH_JOB, {}, leaseMs, ctx.now()));
    await jobs.finish(sys, job.id, holder, 'done', { counts: done }, ctx.now());
    return { done };
  } catch (err) {
    // A lost lease means another runner took over; the job is its own now.
    if (!MnemosError.is(err, 'conflict')) await jobs.finish(sys, job.id, holder, 'failed', { error: String((err as Error).message) }, ctx.now()).catch(() => {});
    throw err;
  }
}

/** `underGraphLease` for a caller that asked for the run: another one running is a `busy` error. */
export async function graphRunOrBusy<T extends object>(ctx: ServiceContext, namespace: string, work: (renew: () => Promise<void>) => Promise<T>): Promise<T> {
  const r = await underGraphLease(ctx, namespace, work);
  if ('busy' in r) {
    throw new MnemosError('busy', `the knowledge graph is being indexed by another run (${r.busy.holder}, its lease until ${r.busy.leaseExpiresAt}); try again when it is done`, {
      holder: r.busy.holder,
      leaseExpiresAt: r.busy.leaseExpiresAt,
    });
  }
  return r.done;
}
