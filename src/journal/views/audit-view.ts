import { clusterText, type MemoryCluster } from '../cluster.ts';
import { joinBounded, type BoundedText } from './bounded.ts';

/**
 * Complete canonical records, BEGIN and END lines included, for people and
 * review tools. The budget cuts between records, never inside one.
 */
export function auditView(clusters: Iterable<MemoryCluster>, options: { maxChars?: number } = {}): string {
  return auditViewBounded(clusters, options).text;
}

/** `auditView` with what the budget left out: how many records it holds, and whether it was cut. */
export function auditViewBounded(clusters: Iterable<MemoryCluster>, options: { maxChars?: number } = {}): BoundedText {
  return joinBounded(mapIter(clusters, clusterText), options.maxChars);
}

function* mapIter<T, U>(items: Iterable<T>, f: (t: T) => U): Iterable<U> {
  for (const item of items) yield f(item);
}
