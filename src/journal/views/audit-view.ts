import { clusterText, type MemoryCluster } from '../cluster.ts';
import { joinBounded } from './bounded.ts';

/**
 * Complete canonical records, BEGIN and END lines included, for people and
 * review tools. The budget cuts between records, never inside one.
 */
export function auditView(clusters: Iterable<MemoryCluster>, options: { maxChars?: number } = {}): string {
  return joinBounded(mapIter(clusters, clusterText), options.maxChars).text;
}

function* mapIter<T, U>(items: Iterable<T>, f: (t: T) => U): Iterable<U> {
  for (const item of items) yield f(item);
}
