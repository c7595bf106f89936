import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { num, str, sym, type MettaAtom } from './metta/ast.ts';
import { Journal } from './journal.ts';
import { queryClusters, type JournalQuery } from './query.ts';
import { SCHEMA_VERSION } from './schema.ts';

/**
 * Measures the journal: validating and appending N clusters one append at a
 * time (each takes the lock and fsyncs, as a real writer does), reopening the
 * journal, then querying it. Returns figures; writes nothing but the journal
 * file in `dir`.
 */

export interface JournalBenchOptions {
  clusters: number;
  /** An existing directory; the journal file is created inside it. */
  dir: string;
  /** Queries to time after the appends. Default 1,000. */
  queries?: number;
  /** Clusters per append call. Default 1 (one lock + fsync per cluster). */
  batchSize?: number;
}

export interface JournalBenchResult {
  clusters: number;
  batchSize: number;
  journalBytes: number;
  appendTotalS: number;
  appendClustersPerS: number;
  openS: number;
  queries: number;
  queryP50Ms: number;
  queryP95Ms: number;
  queryMaxMs: number;
}

const TOPICS = 50;
const STATUSES = ['active', 'done', 'blocked', 'dropped'];
const ROLES = ['observation', 'decision', 'quoted-utterance', 'plan'];

export function benchCluster(i: number): MemoryCluster {
  const c = sym(`mc-bench-${i}`);
  const s = sym(`c-bench-${i}`);
  const a = (head: string, ...args: MettaAtom[]): MettaAtom => ({ kind: 'expr', items: [sym(head), ...args] });
  return {
    id: c.name,
    atoms: [
      a('MemoryCluster', c),
      a('SchemaVersion', c, sym(SCHEMA_VERSION)),
      a('ClusterType', c, sym('meeting')),
      a('ClusterOpenedAt', c, str(new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString())),
      a('ClusterSource', c, sym('bench')),
      a('Contains', c, s),
      a('Commitment', s),
      a('CommitmentText', s, str(`bench commitment ${i}: ship "part ${i % 97}" by Friday`)),
      a('About', s, sym(`topic-${i % TOPICS}`)),
      a('HasStatus', s, sym(STATUSES[i % STATUSES.length]!)),
      a('EpistemicRole', s, sym(ROLES[i % ROLES.length]!)),
      a('SalienceValue', s, num((i % 10) / 10)),
    ],
  };
}

export async function benchJournal(options: JournalBenchOptions): Promise<JournalBenchResult> {
  const n = options.clusters;
  const batch = options.batchSize ?? 1;
  const queryCount = options.queries ?? 1000;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(batch) || batch < 1) throw new MnemosError('validation_failed', 'clusters and batchSize must be positive integers');
  const path = join(options.dir, `bench-${n}.metta`);
  if (existsSync(path)) throw new MnemosError('conflict', `${path} already exists; bench in an empty directory`);

  const journal = await Journal.open(path);
  const t0 = performance.now();
  for (let i = 0; i < n; i += batch) {
    const group: MemoryCluster[] = [];
    for (let k = i; k < Math.min(n, i + batch); k++) group.push(benchCluster(k));
    await journal.appendMany(group);
  }
  const appendS = (performance.now() - t0) / 1000;

  const t1 = performance.now();
  const reopened = await Journal.open(path, { readOnly: true });
  const openS = (performance.now() - t1) / 1000;
  const view = reopened.view();
  const times: number[] = [];
  for (let q = 0; q < queryCount; q++) {
    const query = benchQuery(q, n);
    const start = performance.now();
    queryClusters(view, query);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return {
    clusters: n,
    batchSize: batch,
    journalBytes: statSync(path).size,
    appendTotalS: round(appendS, 3),
    appendClustersPerS: round(n / appendS, 1),
    openS: round(openS, 3),
    queries: queryCount,
    queryP50Ms: round(percentile(times, 0.5), 4),
    queryP95Ms: round(percentile(times, 0.95), 4),
    queryMaxMs: round(times[times.length - 1] ?? 0, 4),
  };
}

function benchQuery(q: number, n: number): JournalQuery {
  const i = (q * 7919) % n;
  switch (q % 6) {
    case 0:
      return { kind: 'id', value: `c-bench-${i}` };
    case 1:
      return { kind: 'cluster', value: `mc-bench-${i}` };
    case 2:
      return { kind: 'type', value: 'Commitment' };
    case 3:
      return { kind: 'about', value: `topic-${i % TOPICS}` };
    case 4:
      return { kind: 'status', value: STATUSES[i % STATUSES.length]! };
    default:
      return { kind: 'role', value: ROLES[i % ROLES.length]! };
  }
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
