import type { Principal } from '../domain/principal.ts';
import { entityView, graphCandidates } from '../graph/graph-query.ts';
import { indexGraph, requireGraph } from '../graph/graph-index.ts';
import { checkReindex, reindexGraph, type ReindexGraphOptions } from '../graph/graph-reindex.ts';
import { graphRunOrBusy } from './graph-lease.ts';
import type { Extractor } from '../graph/extraction.ts';
import type { ServiceContext } from '../services/context.ts';
import { consolidate, consolidationStatus, type ConsolidateOptions } from './consolidate.ts';
import { getFact, ledgerExactHits, ledgerPromptBlock, listFacts, resolvePending, retireFact, settleFact, type FactInput } from './ledger.ts';
import { reverseMerge } from './merge-reverse.ts';
import { confirmMemory, correctMemory, recallMemory } from './recall.ts';
import { lifecycleConfig } from './config.ts';
import { checkOptions } from '../domain/option-object.ts';
import { MnemosError } from '../domain/errors.ts';

/**
 * The lifecycle part of the library facade (`memory.lifecycle`): a thin
 * object over the services, bound to one principal like the facade itself.
 */
export class LifecycleApi {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly p: Principal,
  ) {}

  /** A recall: activation, access statistics, +0.02; the memory is labile for the window. */
  recall(id: string) {
    return recallMemory(this.ctx, this.p, id);
  }

  confirm(id: string) {
    return confirmMemory(this.ctx, this.p, id);
  }

  /** In place while labile, else a new memory that supersedes the old one. */
  correct(id: string, text: string) {
    return correctMemory(this.ctx, this.p, id, text);
  }

  async consolidate(opts?: ConsolidateOptions) {
    return consolidate(this.ctx, this.p, checkOptions(opts, 'consolidate options', { force: 'boolean', extractor: 'function', onProgress: 'function', signal: 'object' }));
  }

  status(limit?: number) {
    return consolidationStatus(this.ctx, this.p, limit);
  }

  reverseMerge(mergedId: string) {
    return reverseMerge(this.ctx, this.p, mergedId);
  }

  pin(input: FactInput) {
    return settleFact(this.ctx, this.p, input, 'pin');
  }

  /** Background learning: never replaces a pin. */
  learn(input: FactInput) {
    return settleFact(this.ctx, this.p, input, 'learn');
  }

  async facts(opts?: { status?: string[]; limit?: number }) {
    return listFacts(this.ctx, this.p, checkOptions(opts, 'facts options', { status: 'array', limit: 'number' }));
  }

  fact(keyOrId: string) {
    return getFact(this.ctx, this.p, keyOrId);
  }

  retire(keyOrId: string) {
    return retireFact(this.ctx, this.p, keyOrId);
  }

  confirmPin(pendingId: string) {
    return resolvePending(this.ctx, this.p, pendingId, true);
  }

  rejectPin(pendingId: string) {
    return resolvePending(this.ctx, this.p, pendingId, false);
  }

  ledgerHits(query: string) {
    return ledgerExactHits(this.ctx, this.p, query);
  }

  promptBlock(maxTokens?: number) {
    return ledgerPromptBlock(this.ctx, this.p, maxTokens);
  }

  entity(name: string, asOf?: string) {
    return entityView(this.ctx, this.p, name, asOf);
  }

  graphCandidates(query: string, limit = 20) {
    return graphCandidates(this.ctx, this.p, query, limit);
  }

  /** A `busy` error while another process indexes the graph (graph-lease.ts). */
  async indexGraph(given: { limit?: number; extractor?: Extractor } | null = {}) {
    const opts: { limit?: number; extractor?: Extractor } = checkOptions(given, 'indexGraph options', { limit: 'number', extractor: 'function' });
    const limit = opts.limit ?? lifecycleConfig(this.ctx).graphBatch;
    // 0, a negative number or NaN indexed nothing and said so as a success; 1.5 was the driver's datatype error.
    if (!(Number.isSafeInteger(limit) && limit >= 1)) throw new MnemosError('validation_failed', `limit must be a whole number of at least 1, not ${limit}`, { field: 'limit' });
    requireGraph(this.ctx);
    return graphRunOrBusy(this.ctx, this.p.namespace, (renew) => indexGraph(this.ctx, this.p, { limit, onBatch: renew, ...(opts.extractor ? { extractor: opts.extractor } : {}) }));
  }

  /** Owner only: memories indexed under older extraction rules indexed again now (with `all`, a rebuild of the graph from every current memory); `busy` as indexGraph. */
  async reindexGraph(given: ReindexGraphOptions | null = {}) {
    const opts: ReindexGraphOptions = checkOptions(given, 'reindexGraph options', { limit: 'number', all: 'boolean', extractor: 'function', batch: 'number', onProgress: 'function' });
    checkReindex(this.p, opts);
    requireGraph(this.ctx);
    return graphRunOrBusy(this.ctx, this.p.namespace, (renew) =>
      reindexGraph(this.ctx, this.p, {
        ...opts,
        onProgress: async (done, total) => {
          await renew();
          await opts.onProgress?.(done, total);
        },
      }),
    );
  }
}
