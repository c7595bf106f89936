import type { Principal } from '../domain/principal.ts';
import { packContext, type PackedContext } from '../retrieval/context-pack.ts';
import type { ServiceContext } from './context.ts';
import type { SearchInput } from './inputs.ts';
import { runSearch } from './search.ts';

export interface ContextResult extends PackedContext {
  query: string;
  /** Settled ledger facts, which lead the context when they match. */
  ledger: number;
}

/**
 * The best memories for a query, packed whole into a token budget, each with
 * its citation. Never exceeds the budget: an item that does not fit is
 * skipped (and listed), never cut.
 */
export async function assembleContext(ctx: ServiceContext, p: Principal, input: SearchInput & { maxTokens: number }, cite: (m: import('../domain/memory.ts').Memory) => string): Promise<ContextResult> {
  const { maxTokens, ...search } = input;
  const r = await runSearch(ctx, p, { limit: 50, ...search });
  // A fact pinned without a statement has an empty one: it reads as its key and value, not as nothing.
  const items = [
    ...r.ledger.map((f) => ({ id: `ledger:${f.key}`, text: f.statement || `${f.key}: ${f.value}`, citation: `ledger ${f.key}` })),
    ...r.hits.map((h) => ({ id: h.memory.id, text: h.memory.text, citation: `${cite(h.memory)} (${h.memory.id})` })),
  ];
  return { query: r.query, ledger: r.ledger.length, ...packContext(items, maxTokens) };
}
