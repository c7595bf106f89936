import type { ConsolidationReport } from './consolidate.ts';
import { DEFAULT_LIFECYCLE_CONFIG, MAX_TIMER_MS, lifecycleConfig } from './config.ts';
import { MnemosError } from '../domain/errors.ts';

/** What the scheduler needs from the engine: the facade's consolidate. */
export interface Consolidating {
  consolidate(opts?: { signal?: AbortSignal }): Promise<ConsolidationReport>;
}

export interface SchedulerOptions {
  /** Default: the engine's lifecycle.consolidationIntervalMs (openMemory), else 30 min. */
  intervalMs?: number;
  /** Called with each run's report (including skipped and busy ones). */
  onReport?: (r: ConsolidationReport) => void;
  /** Called when a run fails; the scheduler keeps going. */
  onError?: (err: unknown) => void;
}

/**
 * Runs consolidation every interval. The timer is only a trigger: the job
 * itself lives in the database, so several servers scheduling at once still
 * run one consolidation at a time, and a run lost to a crash is picked up by
 * the next tick. Timers exist only inside this function, never at import.
 */
export function startScheduler(engine: Consolidating, opts: SchedulerOptions = {}): { stop(): Promise<void> } {
  // An engine opened with lifecycle.consolidationIntervalMs runs at that interval unless the call names one: the
  // setting was read nowhere, and the scheduler ran every 30 min whatever it said.
  const configured = 'context' in engine ? lifecycleConfig((engine as { context: object }).context).consolidationIntervalMs : undefined;
  const interval = opts.intervalMs ?? configured ?? DEFAULT_LIFECYCLE_CONFIG.consolidationIntervalMs;
  // setInterval takes NaN, 0, a negative number, a string such as '30m' or more than 2^31-1 ms (24.8 days) as 1 ms:
  // consolidation ran back to back.
  if (typeof interval !== 'number' || !(interval >= 1 && interval <= MAX_TIMER_MS)) {
    const shown = typeof interval === 'string' ? JSON.stringify(interval) : String(interval);
    throw new MnemosError('validation_failed', `the scheduler's intervalMs must be a number of milliseconds from 1 to ${MAX_TIMER_MS} (default 30 min), not ${shown}`, { field: 'intervalMs' });
  }
  let running: Promise<void> | null = null;
  let stopped = false;
  // Stopping cuts a long step short (training the built-in model can take a minute on a large store) rather than
  // holding a shutting-down server until it ends; the job lives in the database, so the next start runs it again.
  const stopping = new AbortController();
  const tick = () => {
    if (stopped || running) return;
    running = engine
      .consolidate({ signal: stopping.signal })
      .then((r) => opts.onReport?.(r))
      .catch((err) => {
        if (!stopped) opts.onError?.(err);
      })
      .finally(() => {
        running = null;
      });
  };
  const timer = setInterval(tick, interval);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      stopping.abort();
      if (running) await running;
    },
  };
}
