import type { ConsolidationReport } from './consolidate.ts';
import { DEFAULT_LIFECYCLE_CONFIG } from './config.ts';

/** What the scheduler needs from the engine: the facade's consolidate. */
export interface Consolidating {
  consolidate(opts?: { signal?: AbortSignal }): Promise<ConsolidationReport>;
}

export interface SchedulerOptions {
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
  const interval = opts.intervalMs ?? DEFAULT_LIFECYCLE_CONFIG.consolidationIntervalMs;
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
