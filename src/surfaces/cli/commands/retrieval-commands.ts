import type { BackfillResult } from '../../../services/embeddings.ts';
import { assembleContext, type ContextResult } from '../../../services/context-assembly.ts';
import { citation } from '../../tools/citation.ts';
import type { Command, CommandContext } from '../command.ts';
import { FILTER_OPTIONS, filterFrom, num, positional } from './options.ts';
import { MnemosError } from '../../../domain/errors.ts';

function progress(ctx: CommandContext) {
  if (!ctx.isTTY || ctx.json) return undefined;
  return (x: { phase: string; done: number; total: number }) => ctx.stderr(`\r${x.phase.padEnd(9)} ${x.done}/${x.total}`.padEnd(40) + (x.phase === 'done' ? '\n' : ''));
}

export const embed: Command = {
  name: 'embed',
  usage: 'embed --backfill [--retrain]',
  summary: 'give every memory a vector of the current model (trains the built-in model first when needed)',
  options: { backfill: { type: 'boolean' }, retrain: { type: 'boolean' } },
  async run(ctx) {
    if (!ctx.values.backfill) throw new MnemosError('validation_failed', 'nothing to do: pass --backfill (and --retrain to relearn the built-in model from the store)', { field: 'backfill' });
    const m = await ctx.open();
    const onProgress = progress(ctx);
    return m.embedBackfill({ retrain: !!ctx.values.retrain, ...(onProgress ? { onProgress } : {}) });
  },
  human: (r: BackfillResult) =>
    `${r.trained ? 'trained a new model; ' : ''}embedded ${r.embedded} of ${r.total} memories with ${r.model}${r.droppedVectors ? `; deleted ${r.droppedVectors} vectors of the models it replaced` : ''}`,
};

export const context: Command = {
  name: 'context',
  needsExistingStore: true,
  usage: 'context <query> [--max-tokens n] (default 1000)',
  summary: 'the best memories for a query, whole and cited, packed into a token budget',
  options: { 'max-tokens': { type: 'string' }, ...FILTER_OPTIONS },
  async run(ctx) {
    const maxTokens = num(ctx, 'max-tokens') ?? 1000;
    if (!(maxTokens >= 1) || !Number.isInteger(maxTokens) || maxTokens > 200_000) throw new MnemosError('validation_failed', '--max-tokens must be an integer from 1 to 200000', { field: 'max-tokens' });
    const m = await ctx.open();
    return assembleContext(m.context, m.principal, { query: positional(ctx, 0, 'query'), filter: filterFrom(ctx), maxTokens }, (x) => citation(x).cite);
  },
  human: (r: ContextResult) => `${r.text}\n\n(${r.items.length} items, ${r.usedTokens}/${r.budget} tokens${r.skipped.length ? `, ${r.skipped.length} left out` : ''})`,
};
