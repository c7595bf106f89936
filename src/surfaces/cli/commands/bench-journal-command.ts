import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_FILE, machineNote, writeBenchSection } from '../../../bench/report.ts';
import { MnemosError } from '../../../domain/errors.ts';
import { benchJournal, type JournalBenchResult } from '../../../journal/bench.ts';
import type { Command } from '../command.ts';
import { num } from './options.ts';

/** Clusters per append in the batched run: big enough to amortise lock + fsync, small enough to be a realistic import. */
const BATCH = 1000;

/**
 * `mnemos bench journal`: validate + append N clusters one append at a time
 * (lock + fsync each, as an interactive writer does) and in batches, reopen
 * the journal, and time queries on it. Runs in fresh temp directories, so
 * it never touches a real journal.
 */
export const benchJournalCmd: Command = {
  name: 'journal',
  usage: 'journal [--clusters 10000] [--no-write]',
  summary: 'MeTTa journal: validate+append rate (one by one and batched), open time, query latency',
  options: { clusters: { type: 'string' }, 'no-write': { type: 'boolean' } },
  async run(ctx) {
    const n = num(ctx, 'clusters') ?? 10_000;
    if (!Number.isInteger(n) || n < 1) throw new MnemosError('validation_failed', `--clusters must be a positive integer, got ${n}`, { field: 'clusters' });
    const single = await inTemp((dir) => benchJournal({ clusters: n, dir, batchSize: 1 }));
    const batched = await inTemp((dir) => benchJournal({ clusters: n, dir, batchSize: Math.min(BATCH, n) }));
    if (!ctx.values['no-write']) {
      writeBenchSection(
        BENCH_FILE,
        'journal',
        'MeTTa journal (validate, append, open, query)',
        [
          `Command: \`mnemos bench journal --clusters ${n}\` on ${machineNote()}.`,
          '',
          `Synthetic MemoryCluster records of 12 atoms (a Commitment with text, topic, status, role, salience), ${(batched.journalBytes / 2 ** 20).toFixed(1)} MiB for ${n.toLocaleString('en')}. Appends validate every rule, take the lock, catch up with other writers and fsync.`,
          '',
          '| figure | measured |',
          '|---|---|',
          `| validate + append, one cluster per append (lock + fsync each) | ${single.appendClustersPerS.toLocaleString('en')} clusters/s (${single.appendTotalS} s for ${n.toLocaleString('en')}) |`,
          `| validate + append, ${batched.batchSize.toLocaleString('en')} clusters per append | ${batched.appendClustersPerS.toLocaleString('en')} clusters/s (${batched.appendTotalS} s) |`,
          `| open (read + re-validate + index) a ${n.toLocaleString('en')}-cluster journal | ${batched.openS} s |`,
          `| query p50 / p95 / max (${batched.queries.toLocaleString('en')} queries: id, cluster, type, about, status, role; limit 20) | ${batched.queryP50Ms} / ${batched.queryP95Ms} / ${batched.queryMaxMs} ms |`,
        ].join('\n'),
      );
    }
    return { clusters: n, oneByOne: single, batched };
  },
  human: (r: { clusters: number; oneByOne: JournalBenchResult; batched: JournalBenchResult }) =>
    [
      `validate+append ${r.clusters} clusters: one by one ${r.oneByOne.appendClustersPerS}/s (${r.oneByOne.appendTotalS}s), batches of ${r.batched.batchSize} ${r.batched.appendClustersPerS}/s (${r.batched.appendTotalS}s)`,
      `open ${r.batched.openS}s; query p50 ${r.batched.queryP50Ms} ms, p95 ${r.batched.queryP95Ms} ms, max ${r.batched.queryMaxMs} ms`,
    ].join('\n'),
};

async function inTemp<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-bench-journal-'));
  try {
    return await fn(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
