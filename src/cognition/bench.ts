import { cpus, loadavg } from 'node:os';
import type { Principal } from '../domain/principal.ts';
import { Blackboard } from './blackboard.ts';
import { MemoryConsolidator } from './consolidator.ts';
import { VolatileEventLog, type DurableEventLog } from './durable-log.ts';
import type { EpisodeSink } from './episode.ts';
import { SalienceModel } from './salience.ts';

export interface BenchCycleOptions {
  /** The sink the SLEEP flush writes to (the figure is only as real as the sink). */
  sink: EpisodeSink;
  /** Name of the sink in the report, e.g. `memory` or `sqlite`. */
  sinkName?: string;
  principal?: Principal;
  /** Used for the flush; default a volatile log (no fsync in the figure). */
  log?: () => DurableEventLog;
  entries?: number;
  scanRuns?: number;
  flushEvents?: number;
  flushRuns?: number;
  /** Unmeasured runs first, so the figures are the JIT-optimised steady state. Default 20 (3 for flushes). */
  warmupRuns?: number;
  timer?: () => number;
}

export interface Percentiles {
  runs: number;
  /** Wall-clock time. */
  p50Ms: number;
  p95Ms: number;
  maxMs: number;
  /** CPU time of this process: what the wall figures would be on an idle machine. */
  cpuP95Ms: number;
}

interface Sample {
  wallMs: number;
  cpuMs: number;
}

function start(timer: () => number): () => Sample {
  const w = timer();
  const c = process.cpuUsage();
  return () => {
    const d = process.cpuUsage(c);
    return { wallMs: timer() - w, cpuMs: (d.user + d.system) / 1000 };
  };
}

export interface BenchCycleReport {
  integration: Percentiles & {
    entries: number;
    /** Events buffered per scan. */
    buffered: number;
    targetMs: number;
    withinTarget: boolean;
    /** Same scan with a fresh salience model each run (no key cache). */
    cold: Percentiles;
  };
  flush: Percentiles & { events: number; sink: string; targetMs: number; withinTarget: boolean };
  node: string;
  /** Context for the wall figures: a loaded machine inflates them, not the CPU ones. */
  host: { cpus: number; loadAverage1m: number };
}

/**
 * `mnemos bench cycle`: p95 of an INTEGRATION scan over a blackboard of
 * `entries` writes (target 2 ms for 10,000) and of a SLEEP flush of
 * `flushEvents` buffered events through the given sink (target 100 ms for 1,000).
 * The key mix is mostly routine writes with a few salient and safety ones.
 */
export async function benchCycle(options: BenchCycleOptions): Promise<BenchCycleReport> {
  const timer = options.timer ?? (() => performance.now());
  const principal = options.principal ?? { role: 'owner', namespace: 'bench', id: 'bench' };
  const entries = options.entries ?? 10_000;
  const scanRuns = options.scanRuns ?? 30;
  const flushEvents = options.flushEvents ?? 1000;
  // Twenty samples: with ten, the "p95" is simply the slowest run.
  const flushRuns = options.flushRuns ?? 20;
  const warmupRuns = options.warmupRuns ?? 20;
  let clockMs = Date.UTC(2025, 0, 1);
  const clock = (): number => clockMs;

  const board = new Blackboard({ clock, capacity: entries + 10 });
  board.setTick(1);
  for (let i = 0; i < entries; i++) board.write(keyFor(i), { i, note: 'bench' });

  const warm = new SalienceModel();
  const scan = async (salience: SalienceModel): Promise<Sample & { buffered: number }> => {
    const c = new MemoryConsolidator({ blackboard: board, principal, sink: options.sink, salience, clock, config: { scanLimit: entries } });
    const m = start(timer);
    const r = await c.integrate(1);
    const sample = m();
    c.close();
    return { ...sample, buffered: r.buffered };
  };
  // Warm-up: let the JIT optimise the hot path and fill the warm model's key cache.
  for (let r = 0; r < warmupRuns; r++) await scan(warm);
  const warmTimes: Sample[] = [];
  const coldTimes: Sample[] = [];
  let buffered = 0;
  for (let r = 0; r < scanRuns; r++) {
    const sample = await scan(warm);
    warmTimes.push(sample);
    buffered = sample.buffered;
  }
  // Cold runs after the warm ones, so their garbage does not land in the warm figures.
  for (let r = 0; r < scanRuns; r++) coldTimes.push(await scan(new SalienceModel()));

  const flushTimes: Sample[] = [];
  const flushWarmup = Math.min(3, warmupRuns);
  for (let r = 0; r < flushRuns + flushWarmup; r++) {
    clockMs += 1000;
    const fb = new Blackboard({ clock, capacity: flushEvents + 10 });
    fb.setTick(1);
    const c = new MemoryConsolidator({
      blackboard: fb,
      principal,
      sink: options.sink,
      clock,
      log: options.log ? options.log() : new VolatileEventLog(),
      config: { scanLimit: flushEvents, bufferCapacity: flushEvents },
    });
    for (let i = 0; i < flushEvents; i++) fb.write(i % 20 === 0 ? `safety.weight_update_blocked.r${r}.${i}` : `learning.new_association.r${r}.${i}`, { i, run: r }, {});
    await c.integrate(1);
    const m = start(timer);
    await c.flush(1);
    const sample = m();
    if (r >= flushWarmup) flushTimes.push(sample);
    c.close();
  }

  const integration = percentiles(warmTimes);
  const flush = percentiles(flushTimes);
  return {
    integration: { ...integration, entries, buffered, targetMs: 2, withinTarget: integration.p95Ms <= 2, cold: percentiles(coldTimes) },
    flush: { ...flush, events: flushEvents, sink: options.sinkName ?? 'custom', targetMs: 100, withinTarget: flush.p95Ms <= 100 },
    node: process.version,
    host: { cpus: cpus().length, loadAverage1m: round(loadavg()[0] ?? 0) },
  };
}

/** ~94% routine, 3% learning (buffered), 2% handoffs (below threshold), 1% goals, 0.2% safety. */
function keyFor(i: number): string {
  if (i % 500 === 0) return `safety.verification_blocked.${i}`;
  if (i % 100 === 1) return 'goal.achieved';
  if (i % 50 === 2) return `stigmergy.handoff.${i}`;
  if (i % 33 === 3) return `learning.new_association.${i}`;
  return `perception.observation.${i}`;
}

export function percentiles(samples: readonly (number | Sample)[]): Percentiles {
  const wall = samples.map((x) => (typeof x === 'number' ? x : x.wallMs));
  const cpu = samples.map((x) => (typeof x === 'number' ? x : x.cpuMs));
  return { runs: samples.length, p50Ms: quantile(wall, 0.5), p95Ms: quantile(wall, 0.95), maxMs: quantile(wall, 1), cpuP95Ms: quantile(cpu, 0.95) };
}

/** Nearest-rank quantile, rounded to the microsecond. */
function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return 0;
  const s = [...values].sort((a, b) => a - b);
  return round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!);
}

function round(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}
