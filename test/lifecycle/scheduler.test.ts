import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startScheduler } from '../../src/index.ts';
import type { ConsolidationReport } from '../../src/lifecycle/consolidate.ts';
import { lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

test(named('startScheduler runs consolidations on its interval, one at a time, and stops cleanly'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'scheduled work' });
    const reports: ConsolidationReport[] = [];
    // Waits for the second report rather than a fixed 400 ms, which a loaded machine could spend on the first
    // consolidation alone (this failed as "ran 1 times" with four test files sharing two cores); bounded at 30 s.
    let secondRun!: () => void;
    const twoRuns = new Promise<void>((r) => (secondRun = r));
    const sched = startScheduler(s.m, { intervalMs: 20, onReport: (r) => reports.push(r) >= 2 && secondRun() });
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([twoRuns, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
    clearTimeout(timer);
    await sched.stop();
    assert.ok(reports.length >= 2, `ran ${reports.length} times`);
    assert.equal(reports[0]!.status, 'done');
    assert.ok(reports.slice(1).every((r) => r.status === 'skipped'), 'nothing new: later ticks skip');
    const n = reports.length;
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(reports.length, n, 'no run after stop');
  } finally {
    await s.close();
  }
});

test('stopping the scheduler aborts the running consolidation (a long model training ends at once) and reports no error for it', async () => {
  let seen: AbortSignal | undefined;
  const errors: unknown[] = [];
  const engine = {
    consolidate(opts?: { signal?: AbortSignal }): Promise<ConsolidationReport> {
      seen = opts?.signal;
      // Ends only when aborted, as training on a worker thread does.
      return new Promise((_, reject) => opts?.signal?.addEventListener('abort', () => reject(new Error('stopped')), { once: true }));
    },
  };
  const sched = startScheduler(engine, { intervalMs: 10, onError: (e) => errors.push(e) });
  await new Promise((r) => setTimeout(r, 40));
  assert.ok(seen, 'a run started');
  assert.equal(seen.aborted, false);
  await sched.stop();
  assert.equal(seen.aborted, true);
  assert.deepEqual(errors, [], 'a run stopped by stop() is not reported as a failure');
});

/**
 * setInterval takes NaN, 0, a negative number, a string ('30m') or a delay
 * past 2^31-1 ms as 1 ms (the last with only a warning), so a mistyped
 * interval ran consolidation back to back. Refused, naming the field, before
 * any timer is set.
 */
test('startScheduler refuses an interval no timer keeps, naming intervalMs, and starts nothing', async () => {
  let runs = 0;
  const engine = { consolidate: async () => (runs++, { status: 'skipped' }) as unknown as ConsolidationReport };
  for (const intervalMs of [Number.NaN, 0, -5, '30m', Number.POSITIVE_INFINITY, 2 ** 31]) {
    assert.throws(
      () => startScheduler(engine, { intervalMs: intervalMs as number }),
      (e: Error & { code?: string; details?: { field?: string } }) => e.code === 'validation_failed' && e.details?.field === 'intervalMs' && /intervalMs must be a number of milliseconds from 1/.test(e.message),
      String(intervalMs),
    );
  }
  await new Promise((r) => setTimeout(r, 30));
  assert.equal(runs, 0, 'no consolidation ran');
});

/**
 * openMemory({ lifecycle: { consolidationIntervalMs } }) was read nowhere:
 * startScheduler ran every 30 minutes whatever the engine was opened with.
 * Without an intervalMs of its own it now takes the engine's setting.
 */
test(named("startScheduler without intervalMs runs at the engine's lifecycle.consolidationIntervalMs"), async () => {
  const s = await lifecycleStore({ lifecycle: { consolidationIntervalMs: 20 } });
  try {
    await s.m.remember({ text: 'scheduled by the engine setting' });
    let reports = 0;
    let secondRun!: () => void;
    const twoRuns = new Promise<void>((r) => (secondRun = r));
    const sched = startScheduler(s.m, { onReport: () => ++reports >= 2 && secondRun() });
    let timer: NodeJS.Timeout | undefined;
    // Bounded at 30 s, a wait for two runs (not a time), as the first test here: at 30 min, none would come.
    await Promise.race([twoRuns, new Promise((r) => (timer = setTimeout(r, 30_000)))]);
    clearTimeout(timer);
    await sched.stop();
    assert.ok(reports >= 2, `ran ${reports} times`);
  } finally {
    await s.close();
  }
});
