/**
 * Context assembly: the best memories packed into a token budget, whole items
 * only, each with its citation, never over the budget. Items are taken in
 * rank order; one that does not fit is skipped and smaller ones after it may
 * still fit (a long memory at rank 2 should not starve ranks 3..10).
 */
import { MnemosError } from '../domain/errors.ts';
import { estimateTokens } from './token-estimate.ts';

export interface PackItem {
  id: string;
  text: string;
  /** Where the memory came from, precise enough to read back (e.g. "notes.md:12-14", "mem 01J…"). */
  citation: string;
}

export interface PackedItem extends PackItem {
  /** Estimated tokens of the rendered item. */
  tokens: number;
}

export interface PackedContext {
  items: PackedItem[];
  /** Items left out because they did not fit, in rank order. */
  skipped: Array<{ id: string; tokens: number }>;
  /** The rendered items joined by the separator. */
  text: string;
  /** Estimated tokens used, <= budget; equals estimateTokens(text) or exceeds it slightly (sum of ceilings). */
  usedTokens: number;
  budget: number;
}

export interface PackOptions {
  /** How one item appears in the context. */
  render?: (item: PackItem) => string;
  separator?: string;
  estimate?: (text: string) => number;
}

export const renderWithCitation = (item: PackItem): string => `${item.text}\n[${item.citation}]`;

export function packContext(items: readonly PackItem[], budget: number, options: PackOptions = {}): PackedContext {
  if (!Number.isInteger(budget) || budget < 0) {
    throw new MnemosError('validation_failed', `token budget must be a whole number >= 0, got ${budget}`, { field: 'maxTokens' });
  }
  const render = options.render ?? renderWithCitation;
  const separator = options.separator ?? '\n\n';
  const estimate = options.estimate ?? estimateTokens;
  const separatorTokens = estimate(separator);
  const taken: PackedItem[] = [];
  const rendered: string[] = [];
  const skipped: Array<{ id: string; tokens: number }> = [];
  let used = 0;
  for (const item of items) {
    const text = render(item);
    const tokens = estimate(text);
    const cost = tokens + (taken.length > 0 ? separatorTokens : 0);
    if (used + cost > budget) {
      skipped.push({ id: item.id, tokens });
      continue;
    }
    used += cost;
    taken.push({ ...item, tokens });
    rendered.push(text);
  }
  return { items: taken, skipped, text: rendered.join(separator), usedTokens: used, budget };
}
