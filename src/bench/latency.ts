import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VectorIndexConfig, VectorIndexUse } from '../ports/vectors.ts';
import { openMemory } from '../surfaces/library/open-memory.ts';
import { latencySummary, SyntheticText } from './synthetic.ts';

export interface LatencyBenchResult {
  memories: number;
  ingestPerSecond: number;
  trainAndEmbedSeconds: number;
  hybridSearchMs: { p50: number; p95: number; p99: number; mean: number };
  keywordSearchMs: { p50: number; p95: number; p99: number; mean: number };
  /** Hybrid searches each right after one write (an agent's turn: note, then recall); the write is not timed. */
  afterWriteSearchMs: { p50: number; p95: number; p99: number; mean: number };
  queries: number;
  /**
   * A handle opened afresh on the same store: its first hybrid search (what a
   * one-shot command such as `mnemos search` pays once the code is loaded:
   * the model's load and one read of the stored vectors) and its second (the
   * vector copy's load); the process's start is not included.
   */
  freshHandle: { firstSearchMs: number; secondSearchMs: number; firstIndexReason: string | null };
  /** Which vector index answered the timed hybrid queries (the last one's explain), and the configuration. */
  vectorIndex: { config: VectorIndexConfig; kind: VectorIndexUse['kind'] | null; reason: string | null; fallbacks: number; buildSeconds: number };
  dbBytes: number | null;
  peakRssMiB: number;
}

/**
 * Hybrid search latency at scale on a synthetic corpus, with the default
 * (built-in) embedder: ingest with write-time vectors, one training and
 * backfill pass, the vector index brought up to date (an approximate index,
 * when it applies, is built before timing: searches would otherwise be
 * answered by the exact scan while it builds), then timed queries.
 */
export async function benchLatency(opts: {
  n: number;
  queries?: number;
  db?: string;
  vectorIndex?: VectorIndexConfig;
  onProgress?: (phase: string, done: number, total: number) => void;
}): Promise<LatencyBenchResult> {
  const dir = opts.db ? null : mkdtempSync(join(tmpdir(), 'mnemos-latency-'));
  const db = opts.db ?? join(dir!, 'bench.db');
  const mem = await openMemory({ db, ...(opts.vectorIndex ? { config: { vectorIndex: opts.vectorIndex } } : {}) });
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
    opts.onProgress?.('index', 0, 1);
    const t2 = performance.now();
    await mem.prepareVectorIndex();
    await mem.prepareKeywordSearch();
    const buildSeconds = Math.round((performance.now() - t2) / 100) / 10;
    const queries = opts.queries ?? 500;
    let last: VectorIndexUse | null = null;
    let fallbacks = 0;
    const time = async (mode: 'hybrid' | 'keyword', afterWrite = false) => {
      for (let i = 0; i < 20; i++) await mem.search({ query: gen.query(), limit: 10, mode });
      const samples: number[] = [];
      for (let i = 0; i < queries; i++) {
        const q = gen.query(2 + (i % 3));
        if (afterWrite) await mem.remember({ text: gen.sentence(), sessionId: 'after-write' });
        const s = performance.now();
        const r = await mem.search({ query: q, limit: 10, mode });
        samples.push(performance.now() - s);
        // The index report describes the plain hybrid run (its denominator is `queries`).
        if (mode === 'hybrid' && !afterWrite) {
          last = r.explain.vectorIndex ?? last;
          if (r.explain.vectorIndex?.fallback) fallbacks++;
        }
      }
      return latencySummary(samples);
    };
    const hybridSearchMs = await time('hybrid');
    const keywordSearchMs = await time('keyword');
    // Last: these writes add memories the other figures should not see.
    const afterWriteSearchMs = await time('hybrid', true);
    const freshHandle = await timeFreshHandle(db, opts.vectorIndex, gen);
    const st = await mem.status();
    return {
      memories: opts.n,
      ingestPerSecond: Math.round(opts.n / ingestSeconds),
      trainAndEmbedSeconds: Math.round(trainAndEmbedSeconds * 10) / 10,
      hybridSearchMs,
      keywordSearchMs,
      afterWriteSearchMs,
      queries,
      freshHandle,
      vectorIndex: {
        config: mem.context.config.vectorIndex,
        kind: (last as VectorIndexUse | null)?.kind ?? null,
        reason: (last as VectorIndexUse | null)?.reason ?? null,
        fallbacks,
        buildSeconds,
      },
      dbBytes: st.memories.bytes,
      peakRssMiB: Math.round(process.resourceUsage().maxRSS / 1024),
    };
  } finally {
    await mem.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}

async function timeFreshHandle(db: string, vectorIndex: VectorIndexConfig | undefined, gen: SyntheticText): Promise<LatencyBenchResult['freshHandle']> {
  const fresh = await openMemory({ db, ...(vectorIndex ? { config: { vectorIndex } } : {}) });
  try {
    const round = (ms: number) => Math.round(ms * 10) / 10;
    let t = performance.now();
    const first = await fresh.search({ query: gen.query(3), limit: 10 });
    const firstSearchMs = round(performance.now() - t);
    t = performance.now();
    await fresh.search({ query: gen.query(3), limit: 10 });
    return { firstSearchMs, secondSearchMs: round(performance.now() - t), firstIndexReason: first.explain.vectorIndex?.reason ?? null };
  } finally {
    await fresh.close();
  }
}
