import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../surfaces/library/open-memory.ts';
import { latencySummary, SyntheticText } from './synthetic.ts';

export interface IngestBenchOptions {
  n: number;
  batch?: number;
  queries?: number;
  /** Store location; a fresh temporary SQLite file when absent. */
  db?: string;
  onProgress?: (done: number, total: number) => void;
}

export interface IngestBenchResult {
  memories: number;
  batchSize: number;
  ingestPerSecond: number;
  ingestSeconds: number;
  keywordSearchMs: { p50: number; p95: number; p99: number; mean: number };
  queries: number;
  dbBytes: number | null;
  peakRssMiB: number;
}

/** Ingests n synthetic memories in batches, then times keyword searches over them. */
export async function benchIngest(opts: IngestBenchOptions): Promise<IngestBenchResult> {
  const batch = opts.batch ?? 1000;
  const dir = opts.db ? null : mkdtempSync(join(tmpdir(), 'mnemos-bench-'));
  const db = opts.db ?? join(dir!, 'bench.db');
  const mem = await openMemory({ db });
  try {
    const gen = new SyntheticText(7);
    const t0 = performance.now();
    for (let done = 0; done < opts.n; done += batch) {
      const size = Math.min(batch, opts.n - done);
      const inputs = Array.from({ length: size }, () => ({ text: gen.sentence(), type: 'fact' as const }));
      await mem.rememberMany(inputs);
      opts.onProgress?.(done + size, opts.n);
    }
    const ingestSeconds = (performance.now() - t0) / 1000;
    const queries = opts.queries ?? 1000;
    const samples: number[] = [];
    // Steady state: the in-process keyword index is built before timing (a server builds it in the background).
    await mem.prepareKeywordSearch();
    for (let i = 0; i < 50; i++) await mem.search({ query: gen.query(), limit: 10, mode: 'keyword' });
    for (let i = 0; i < queries; i++) {
      const q = gen.query(2 + (i % 3));
      const s = performance.now();
      await mem.search({ query: q, limit: 10, mode: 'keyword' });
      samples.push(performance.now() - s);
    }
    const st = await mem.status();
    return {
      memories: opts.n,
      batchSize: batch,
      ingestPerSecond: Math.round(opts.n / ingestSeconds),
      ingestSeconds: Math.round(ingestSeconds * 100) / 100,
      keywordSearchMs: latencySummary(samples),
      queries,
      dbBytes: st.memories.bytes ?? (opts.db ? null : statSync(db).size),
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await mem.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
