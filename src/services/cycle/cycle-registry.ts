import type { DurableEventLog } from '../../cognition/durable-log.ts';
import { createMemoryCycle, type CognitionConfig, type MemoryCycle } from '../../cognition/memory-cycle.ts';
import type { TickResult } from '../../cognition/cycle.ts';
import type { Principal } from '../../domain/principal.ts';
import type { MemoryStore } from '../../ports/store.ts';
import { openSafetyLog } from './safety-log.ts';
import { StoreEpisodes } from './store-episodes.ts';

export interface AgentCycle extends MemoryCycle {
  key: string;
  principal: Principal;
  ticks: number;
  lastTick: TickResult | null;
  log: DurableEventLog;
}

export interface CycleRegistryOptions {
  /** Folder for each agent's durable safety-event log (named by agent and store: services/cycle/safety-log.ts). */
  logDir: string;
  /** Where a legacy log that could not be adopted is reported; default: a process warning. */
  onNotice?: (message: string) => void;
  config?: CognitionConfig;
}

/**
 * One cognitive cycle per agent (namespace + principal + agent), created on
 * first use. Ticking is explicit (`tickAll`), and only `start` creates a
 * timer, so a server that doesn't enable the cycle pays nothing.
 */
export class CycleRegistry {
  private readonly cycles = new Map<string, Promise<AgentCycle>>();
  private timer: NodeJS.Timeout | undefined;
  private ticking = false;

  constructor(
    private readonly store: MemoryStore,
    private readonly opts: CycleRegistryOptions,
  ) {}

  static keyOf(p: Principal): string {
    return `${p.namespace}/${p.role}:${p.id}${p.agentId ? `@${p.agentId}` : ''}`;
  }

  get(p: Principal): Promise<AgentCycle> {
    const key = CycleRegistry.keyOf(p);
    let c = this.cycles.get(key);
    if (!c) {
      c = this.create(key, p);
      this.cycles.set(key, c);
      // A failed creation (an unreadable safety log, a store error) is not kept: it was
      // repeated to every later call until a restart, even after the cause was fixed.
      c.catch(() => {
        if (this.cycles.get(key) === c) this.cycles.delete(key);
      });
    }
    return c;
  }

  private async create(key: string, principal: Principal): Promise<AgentCycle> {
    const episodes = new StoreEpisodes(this.store);
    const { log, notice } = await openSafetyLog(this.store, this.opts.logDir, key);
    if (notice) (this.opts.onNotice ?? ((m) => process.emitWarning(m, 'MnemosSafetyLog')))(notice);
    const cycle = createMemoryCycle({ principal, sink: episodes, source: episodes, log, ...(this.opts.config ? { config: this.opts.config } : {}) });
    // Safety events logged before a crash are consolidated on the next sleep.
    await cycle.consolidator.recover();
    return { ...cycle, key, principal, ticks: 0, lastTick: null, log };
  }

  async tick(p: Principal): Promise<TickResult> {
    const c = await this.get(p);
    const r = await c.cycle.tick();
    c.ticks++;
    c.lastTick = r;
    return r;
  }

  /**
   * Ticks every agent once. One agent's failure is reported (to `onError`, or
   * thrown after the others have ticked) and never keeps the agents after it
   * from ticking: the first failure used to end the round for all of them.
   * An agent whose tick is already running (a `cycle_tick` call) is skipped.
   */
  async tickAll(onError?: (err: unknown, agent: string) => void): Promise<void> {
    if (this.ticking) return; // a slow tick is never overlapped by the next
    this.ticking = true;
    let first: unknown;
    let failed = false;
    try {
      for (const [key, c] of [...this.cycles]) {
        try {
          const agent = await c;
          if (agent.cycle.isRunning) continue;
          await this.tick(agent.principal);
        } catch (err) {
          if (onError) onError(err, key);
          else if (!failed) [first, failed] = [err, true];
        }
      }
    } finally {
      this.ticking = false;
    }
    if (failed) throw first;
  }

  start(intervalMs: number, onError: (err: unknown) => void): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tickAll((err) => onError(err)).catch(onError), intervalMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    const cycles = [...this.cycles.values()];
    this.cycles.clear();
    // An agent whose cycle never came to be has no log to close; it must not stop the others' closing.
    for (const c of cycles) {
      const agent = await c.catch(() => null);
      if (agent) await agent.log.close();
    }
  }
}
