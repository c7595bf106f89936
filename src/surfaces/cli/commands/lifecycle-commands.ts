import type { EntityView } from '../../../graph/graph-query.ts';
import type { ReindexGraphResult } from '../../../graph/graph-reindex.ts';
import { CONSOLIDATION_PHASES, type ConsolidationReport } from '../../../lifecycle/consolidate.ts';
import type { LedgerFact } from '../../../lifecycle/ledger-rules.ts';
import type { PinOutcome } from '../../../lifecycle/ledger.ts';
import type { LedgerPending } from '../../../ports/lifecycle.ts';
import { reportedFailure, type Command } from '../command.ts';
import { progressLine } from '../progress-line.ts';
import { num, positional, shortTime, str } from './options.ts';

/** CLI for the memory lifecycle: consolidation, pins and the ledger, the knowledge graph. Thin over `memory.lifecycle`. */

function renderReport(r: ConsolidationReport): string {
  if (r.status !== 'done') return `${r.status}: ${r.reason ?? ''}${r.openLoops.length ? `\nopen loops: ${r.openLoops.length}` : ''}`;
  const counts = Object.entries(r.counts)
    .filter(([, v]) => v)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
  return [
    `consolidation ${r.jobId} done in ${r.durationMs} ms${r.resumed ? ` (resumed, attempt ${r.attempts})` : ''}`,
    `  ${counts || 'nothing changed'}`,
    ...(r.model && r.model.status !== 'off' ? [`  embedding model ${r.model.status}: ${r.model.reason}${r.model.trainMs !== undefined ? ` (learned from ${r.model.learnedFrom} memories in ${(r.model.trainMs / 1000).toFixed(1)} s)` : ''}${r.model.model ? `; in use: ${r.model.model}` : ''}`] : []),
    ...r.changes.slice(0, 20).map((c) => `  ${c.action} ${c.id} ${c.from ?? ''}${c.to ? ` -> ${c.to}` : ''} (${c.reason}${c.importance !== undefined ? `, importance ${c.importance}` : ''})`),
    ...(r.changes.length > 20 ? [`  ... ${r.changes.length - 20} more (--json for all)`] : []),
    ...r.openLoops.map((l) => `  open loop ${l.id}: ${l.text} (untouched ${l.untouchedDays} days)`),
  ].join('\n');
}

/**
 * A run that found another holding the lease did nothing: it exits 6 (`busy`) with its report, as the
 * graph commands do, so a script or cron job does not take it for a consolidation that ran. The message
 * says when to try again; a run killed on this machine does not hold it up (lifecycle/holder.ts).
 */
function busyFails(r: ConsolidationReport): ConsolidationReport | (ConsolidationReport & { exitCode: number; error: ReturnType<typeof reportedFailure> }) {
  if (r.status !== 'busy') return r;
  return { ...r, exitCode: 6, error: reportedFailure('busy', `consolidation did not run: ${r.reason}; try again after that (a run killed on this machine is taken over at once)`) };
}

export const consolidateCmd: Command = {
  name: 'consolidate',
  needsExistingStore: (values) => values.status === true,
  usage: 'consolidate [--force] [--status]',
  summary: 'run one consolidation now (importance, forgetting, merges, TTL, goals, graph) and print its report',
  options: { force: { type: 'boolean' }, status: { type: 'boolean' } },
  async run(ctx) {
    const m = await ctx.open();
    if (ctx.values.status) return m.lifecycle.status();
    const line = progressLine(ctx);
    if (!line) return busyFails(await m.consolidate({ force: ctx.values.force === true }));
    // Loading the current memories comes before the first phase reports, and takes seconds on a large store.
    line.show('consolidating: loading memories', true);
    const steps = CONSOLIDATION_PHASES.length;
    try {
      return busyFails(
        await m.consolidate({
          force: ctx.values.force === true,
        onProgress: (phase, d) =>
            d.done !== undefined ? line.show(`consolidating: ${phase} done (${d.done} of ${steps} steps)`, true) : line.show(`consolidating: ${phase}, batch ${d.batches}`),
        }),
      );
    } finally {
      line.clear();
    }
  },
  human: (r: ConsolidationReport | { last: ConsolidationReport | null; runs: unknown[] }) =>
    'jobId' in r ? renderReport(r) : r.last ? `last run:\n${renderReport(r.last)}` : 'no consolidation has run yet',
};

function factLine(f: LedgerFact & { score?: number }): string {
  return `${f.key} = ${f.value}  [${f.source}, confidence ${f.confidence}, mentions ${f.mentions}${f.score !== undefined ? `, score ${f.score}` : ''}, ${f.status}]  ${f.id}`;
}

const pinSet: Command = {
  name: 'set',
  usage: 'set <key> <value> [--statement s] [--category c]',
  summary: 'pin a fact (confidence 0.95); replacing an owner pin as an agent waits for confirmation',
  options: { statement: { type: 'string' }, category: { type: 'string' } },
  async run(ctx) {
    const m = await ctx.open();
    return m.lifecycle.pin({ key: positional(ctx, 0, 'key'), value: positional(ctx, 1, 'value'), ...(str(ctx, 'statement') ? { statement: str(ctx, 'statement')! } : {}), ...(str(ctx, 'category') ? { category: str(ctx, 'category')! } : {}) });
  },
  human: (r: PinOutcome) => (r.status === 'pending_confirmation' ? r.message : r.status === 'rejected' ? `rejected: ${r.reason}` : `${r.status}: ${factLine(r.fact)}`),
};

const pinList: Command = {
  name: 'list',
  needsExistingStore: true,
  usage: 'list',
  summary: 'pinned and settled facts, best first, and pending changes',
  async run(ctx) {
    return (await ctx.open()).lifecycle.facts();
  },
  human: (r: { facts: LedgerFact[]; pending: LedgerPending[] }) =>
    [...r.facts.map(factLine), ...r.pending.map((q) => `pending ${q.id}: ${q.key} -> ${q.proposed.value} (by ${q.proposer}; mnemos pin confirm ${q.id})`)].join('\n') || 'no facts',
};

const pinGet: Command = {
  name: 'get',
  needsExistingStore: true,
  usage: 'get <key|id>',
  summary: 'one fact',
  async run(ctx) {
    return (await ctx.open()).lifecycle.fact(positional(ctx, 0, 'key'));
  },
  human: (f: LedgerFact) => `${factLine(f)}${f.statement ? `\n  ${f.statement}` : ''}\n  valid ${shortTime(f.validFrom)} .. ${shortTime(f.validUntil)}`,
};

const pinRetire: Command = {
  name: 'retire',
  needsExistingStore: true,
  usage: 'retire <key|id>',
  summary: 'retire a fact (closes its validity)',
  async run(ctx) {
    return (await ctx.open()).lifecycle.retire(positional(ctx, 0, 'key'));
  },
  human: (f: LedgerFact) => `retired ${factLine(f)}`,
};

const pinConfirm: Command = {
  name: 'confirm',
  needsExistingStore: true,
  usage: 'confirm <pending-id>',
  summary: 'apply a pending change to an owner pin',
  async run(ctx) {
    return (await ctx.open()).lifecycle.confirmPin(positional(ctx, 0, 'pending id'));
  },
  human: (r: { status: string; fact?: LedgerFact }) => `${r.status}${r.fact ? `: ${factLine(r.fact)}` : ''}`,
};

const pinReject: Command = {
  name: 'reject',
  needsExistingStore: true,
  usage: 'reject <pending-id>',
  summary: 'refuse a pending change to an owner pin',
  async run(ctx) {
    return (await ctx.open()).lifecycle.rejectPin(positional(ctx, 0, 'pending id'));
  },
  human: (r: { status: string }) => r.status,
};

export const pinCmd: Command = {
  name: 'pin',
  usage: 'pin <set|list|get|retire|confirm|reject>',
  summary: 'pinned facts in the canonical ledger',
  subcommands: [pinSet, pinList, pinGet, pinRetire, pinConfirm, pinReject],
  async run() {
    return undefined;
  },
};

export const ledgerCmd: Command = {
  name: 'ledger',
  needsExistingStore: true,
  usage: 'ledger [--all] [--tokens n]',
  summary: 'the canonical ledger, ranked, and the prompt block it yields',
  options: { all: { type: 'boolean' }, tokens: { type: 'string' } },
  async run(ctx) {
    const m = await ctx.open();
    const facts = await m.lifecycle.facts(ctx.values.all ? { status: ['active', 'retired', 'superseded'] } : {});
    return { ...facts, promptBlock: await m.lifecycle.promptBlock(num(ctx, 'tokens')) };
  },
  human: (r: { facts: LedgerFact[]; promptBlock: { text: string; facts: number; tokens: number } }) =>
    [...r.facts.map(factLine), '', `prompt block: ${r.promptBlock.facts} facts, ~${r.promptBlock.tokens} tokens`].join('\n'),
};

const graphEntity: Command = {
  name: 'entity',
  needsExistingStore: true,
  usage: 'entity <name> [--as-of iso]',
  summary: 'an entity, its relations (as of a time) and neighbours',
  options: { 'as-of': { type: 'string' } },
  async run(ctx) {
    return (await ctx.open()).lifecycle.entity(positional(ctx, 0, 'name'), str(ctx, 'as-of'));
  },
  human: (r: { name: string; asOf: string | null; entities: EntityView[] }) =>
    r.entities.length === 0
      ? `no entity named "${r.name}" is visible to you (run mnemos consolidate to index new memories)`
      : r.entities
          .map((v) =>
            [
              `${v.entity.name} (${v.entity.type}, ${v.entity.mentions} mentions, seen ${shortTime(v.entity.firstSeen)} .. ${shortTime(v.entity.lastSeen)})${v.entity.aliases.length ? `  aka ${v.entity.aliases.join(', ')}` : ''}`,
              ...v.relations.map((x) => `  ${x.holds ? '*' : ' '} ${x.subject} ${x.predicate} ${x.object}  [${shortTime(x.validFrom)} .. ${shortTime(x.validTo)}]`),
              `  memories: ${v.memoryIds.join(', ') || '-'}`,
            ].join('\n'),
          )
          .join('\n'),
};

const graphIndex: Command = {
  name: 'index',
  usage: 'index [--limit n]',
  summary: 'extract entities and relations from memories not yet indexed (consolidation does this too)',
  options: { limit: { type: 'string' } },
  async run(ctx) {
    const limit = num(ctx, 'limit');
    return (await ctx.open()).lifecycle.indexGraph(limit !== undefined ? { limit } : {});
  },
};

const graphReindex: Command = {
  name: 'reindex',
  usage: 'reindex [--all]',
  summary: 'index again the memories indexed under older extraction rules (--all: rebuild the graph from every current memory)',
  options: { all: { type: 'boolean' } },
  async run(ctx) {
    const m = await ctx.open();
    const all = ctx.values.all === true;
    const line = progressLine(ctx);
    if (!line) return m.lifecycle.reindexGraph({ all });
    line.show('re-indexing the graph', true);
    try {
      return await m.lifecycle.reindexGraph({ all, onProgress: (done, total) => line.show(`re-indexing the graph: ${done} of ${total} memories`) });
    } finally {
      line.clear();
    }
  },
  human: (r: ReindexGraphResult) =>
    r.memories === 0
      ? r.all
        ? 'nothing to re-index: the namespace has no current memory'
        : `nothing to re-index: every memory is indexed under extraction rules version ${r.rulesVersion} (--all re-indexes them anyway)`
      : [
          `re-indexed ${r.memories} ${r.memories === 1 ? 'memory' : 'memories'} under extraction rules version ${r.rulesVersion}`,
          `  entities: ${r.entitiesCreated} added, ${r.entitiesRemoved} removed`,
          `  mentions: ${r.mentions} found, ${r.mentionsRemoved} of the old extraction removed`,
          `  relations: ${r.relationsAdded} added, ${r.relationsClosed} closed, ${r.relationsRemoved} removed`,
          // Stale memories resolve against the entities the others hold up: a merge older rules made stays.
          ...(r.all ? [] : ['people older rules merged into one entity stay merged: mnemos graph reindex --all rebuilds the graph']),
        ].join('\n'),
};

export const graphCmd: Command = {
  name: 'graph',
  usage: 'graph <entity|index|reindex>',
  summary: 'the knowledge graph',
  subcommands: [graphEntity, graphIndex, graphReindex],
  async run() {
    return undefined;
  },
};
