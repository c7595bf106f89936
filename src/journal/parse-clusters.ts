import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { readRecords } from './record-reader.ts';
import { DEFAULT_LIMITS } from './schema.ts';

/**
 * Reads MemoryCluster records from caller-supplied text (a file to import, a
 * cluster to append). Envelope and syntax errors are `validation_failed` with
 * the line; content rules are checked separately by validate.ts.
 */
export function parseClusters(text: string, options: { maxDepth?: number } = {}): MemoryCluster[] {
  const { records } = readRecords(text, { code: 'validation_failed', maxDepth: options.maxDepth ?? DEFAULT_LIMITS.maxDepth });
  return records.map((r) => ({ id: r.id, atoms: r.atoms, lines: r.lines }));
}

/** Exactly one record. */
export function parseCluster(text: string, options: { maxDepth?: number } = {}): MemoryCluster {
  const clusters = parseClusters(text, options);
  if (clusters.length !== 1) throw new MnemosError('validation_failed', `expected exactly one MemoryCluster record, found ${clusters.length}`, { found: clusters.length });
  return clusters[0]!;
}
