import { rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { MEMORY_TYPES } from '../domain/memory.ts';
import { prng, SyntheticText } from '../bench/synthetic.ts';
import type { RememberInput } from '../services/inputs.ts';
import { openMemory, type Mnemos } from '../surfaces/library/open-memory.ts';
import type { ConsolidationReport } from './consolidate.ts';

/**
 * `mnemos bench consolidate`: one full consolidation pass over n synthetic
 * memories of mixed types and ages (0-60 days), with 2% near-duplicates,
 * 1% goals, 1% past TTLs and named people in a fifth of them, so every
 * phase has work: importance and lifecycle moves, TTL, merges, graph.
 * The built-in embedder's model is trained before the pass and timed on its
 * own: a store that has consolidated before has one, and training is due
 * again only once the store has doubled, not on a typical pass.
 */
export interface ConsolidateBenchResult {
  memories: number;
  seconds: number;
  /** CPU time of this process during the pass: the figure to trust on a busy machine. */
  cpuSeconds: number;
  /** 1-minute load average when the pass ended. */
  loadAverage: number;
  memoriesPerSecond: number;
  counts: Record<string, number>;
  timings: Record<string, number>;
  peakRssMiB: number;
  ingestSeconds: number;
  /** Training the built-in model from the seeded store (on a worker thread) and giving every memory its vector, before the pass; null when embeddings are off. */
  modelSeconds: number | null;
}

const FIRST = ['Ana', 'Ben', 'Chen', 'Dara', 'Emil', 'Farah', 'Goran', 'Hana', 'Ivo', 'Jun'];
const LAST = ['Silva', 'Okafor', 'Lind', 'Moreau', 'Patel', 'Kowalski', 'Tanaka', 'Haddad'];
const ORGS = ['Acme Corp', 'Globex Labs', 'Initech Systems', 'Umbrella Foods'];

/** Seeds n synthetic memories (ages spread over 60 days through the clock). */
export async function seedConsolidateBench(m: Mnemos, clock: { t: number }, n: number, onProgress?: (done: number, total: number) => void): Promise<void> {
  const real = clock.t;
  const text = new SyntheticText(7);
  const rand = prng(11);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)]!;
  const batch = 2000;
  let prev = '';
  for (let done = 0; done < n; done += batch) {
    clock.t = real - Math.floor(rand() * 60) * 86_400_000;
    const inputs: RememberInput[] = [];
    for (let i = 0; i < Math.min(batch, n - done); i++) {
      const r = rand();
      let t = text.sentence();
      if (r < 0.02 && prev) t = `${prev}.`;
      else if (r < 0.22) t = `${pick(FIRST)} ${pick(LAST)} works at ${pick(ORGS)}; ${t}`;
      prev = t;
      const type = r > 0.98 ? 'goal' : pick(MEMORY_TYPES.filter((x) => x !== 'skill' && x !== 'goal'));
      inputs.push({
        text: t,
        type,
        importance: Math.round((0.2 + rand() * 0.8) * 100) / 100,
        ...(r > 0.97 && r <= 0.98 ? { expiresAt: new Date(clock.t + 86_400_000).toISOString() } : {}),
      });
    }
    await m.rememberMany(inputs);
    onProgress?.(Math.min(done + batch, n), n);
  }
  clock.t = real;
}

export async function benchConsolidate(opts: { n: number; db?: string; onProgress?: (done: number, total: number) => void }): Promise<ConsolidateBenchResult> {
  const db = opts.db ?? join(tmpdir(), `mnemos-bench-consolidate-${process.pid}.db`);
  const own = opts.db === undefined;
  const clock = { t: Date.now() };
  const m = await openMemory({ db, now: () => clock.t });
  let peak = process.memoryUsage().rss;
  try {
    const t0 = Date.now();
    await seedConsolidateBench(m, clock, opts.n, opts.onProgress);
    const ingestSeconds = (Date.now() - t0) / 1000;
    const t1 = Date.now();
    const trained = await m.embedBackfill({ retrain: true }).then(
      () => true,
      () => false,
    );
    const modelSeconds = trained ? Math.round((Date.now() - t1) / 100) / 10 : null;
    const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 100);
    const start = performance.now();
    const cpu0 = process.cpuUsage();
    let report: ConsolidationReport;
    try {
      report = await m.consolidate({ force: true });
    } finally {
      clearInterval(timer);
    }
    const seconds = (performance.now() - start) / 1000;
    const cpu = process.cpuUsage(cpu0);
    peak = Math.max(peak, process.memoryUsage().rss);
    return {
      memories: opts.n,
      seconds: Math.round(seconds * 100) / 100,
      cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
      loadAverage: Math.round(loadavg()[0]! * 10) / 10,
      memoriesPerSecond: Math.round(opts.n / seconds),
      counts: report.counts,
      timings: report.timings,
      peakRssMiB: Math.round(peak / 2 ** 20),
      ingestSeconds: Math.round(ingestSeconds * 10) / 10,
      modelSeconds,
    };
  } finally {
    await m.close();
    if (own) for (const f of [db, `${db}-wal`, `${db}-shm`]) rmSync(f, { force: true });
  }
}
