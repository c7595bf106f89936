import { clusterText, type MemoryCluster } from '../cluster.ts';
import { charCount } from '../../domain/unicode.ts';
import { checkBudget, type BoundedText } from './bounded.ts';

/**
 * Complete canonical records, BEGIN and END lines included, for people and
 * review tools. The budget cuts between records, never inside one, and it
 * keeps the newest records that fit (printed in journal order): a review of
 * an append-only journal is about what was added lately, and keeping the
 * oldest instead showed the same first records forever once the journal
 * outgrew the budget.
 */
export function auditView(clusters: Iterable<MemoryCluster>, options: { maxChars?: number } = {}): string {
  return auditViewBounded(clusters, options).text;
}

/** `auditView` with what the budget left out: how many records it holds, and whether older ones were cut. */
export function auditViewBounded(clusters: Iterable<MemoryCluster>, options: { maxChars?: number } = {}): BoundedText {
  const maxChars = options.maxChars;
  checkBudget(maxChars);
  const all = Array.isArray(clusters) ? (clusters as readonly MemoryCluster[]) : [...clusters];
  const kept: string[] = [];
  let used = 0;
  for (let i = all.length - 1; i >= 0; i--) {
    const record = clusterText(all[i]!);
    const chars = charCount(record);
    if (maxChars !== undefined && used + chars > maxChars) break;
    kept.push(record);
    used += chars;
  }
  return { text: kept.reverse().join(''), included: kept.length, truncated: kept.length < all.length };
}
