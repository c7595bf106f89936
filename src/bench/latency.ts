import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openMemory } from '../surfaces/library/open-memory.ts';
import { latencySummary, SyntheticText } from './synthetic.ts';

export interface LatencyBenchResult {
  memories: number;
  ingestPerSecond: number;
  trainAndEmbedSeconds: number;
  hybridSearchMs: { p50: number; p95: number; p99: number; mean: number };
  keywordSearchMs: { p50: number; p95: number; p99: number; mean: number };
  queries: number;
  dbBytes: number | null;
  peakRssMiB: number;
}

/**
 * Hybrid search latency at scale on a synthetic corpus, with the default
 * (built-in) embedder: ingest with write-time vectors, one training and
 * backfill pass, then timed queries.
 */
export async function benchLatency(opts: { n: number; queries?: number; db?: string; onProgress?: (phase: string, done: number, total: number) => void }): Promise<LatencyBenchResult> {
  const dir = opts.db ? null : mkdtempSync(join(tmpdir(), 'mnemos-latency-'));
  const mem = await openMemory({ db: opts.db ?? join(dir!, 'bench.db') });
  try {
    const gen = new SyntheticText(11);
    const batch = 1000;
    const t0 = performance.now();
    for (let done = 0; done < opts.n; done += batch) {
      const size = Math.min(batch, opts.n - done);
      await mem.rememberMany(Array.from({ length: size }, (_, i) => ({ text: gen.sentence(), sessionId: `s${Math.floor((done + i) / 20)}` })));
      opts.onProgress?.('ingest', done + size, opts.n);
    }
    const ingestSeconds = (performance.now() - t0) / 1000;
    const t1 = performance.now();
    await mem.embedBackfill({ retrain: true, onProgress: (x) => opts.onProgress?.(x.phase, x.done, x.total) });
    const trainAndEmbedSeconds = (performance.now() - t1) / 1000;
    const queries = opts.queries ?? 500;
    const time = async (mode: 'hybrid' | 'keyword') => {
      for (let i = 0; i < 20; i++) await mem.search({ query: gen.query(), limit: 10, mode });
      const samples: number[] = [];
      for (let i = 0; i < queries; i++) {
        const q = gen.query(2 + (i % 3));
        const s = performance.now();
        await mem.search({ query: q, limit: 10, mode });
        samples.push(performance.now() - s);
      }
      return latencySummary(samples);
    };
    const hybridSearchMs = await time('hybrid');
    const keywordSearchMs = await time('keyword');
    const st = await mem.status();
    return {
      memories: opts.n,
      ingestPerSecond: Math.round(opts.n / ingestSeconds),
      trainAndEmbedSeconds: Math.round(trainAndEmbedSeconds * 10) / 10,
      hybridSearchMs,
      keywordSearchMs,
      queries,
      dbBytes: st.memories.bytes,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await mem.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
