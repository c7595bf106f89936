import { MnemosError } from '../domain/errors.ts';
import type { Blackboard } from './blackboard.ts';
import type { Clock } from './blackboard-types.ts';
import { SignalBioState, type BioSnapshot, type BioStateSource } from './bio-state.ts';

export const CYCLE_PHASES = ['PERCEPTION', 'REASONING', 'ACTION', 'LEARNING', 'EVALUATION', 'INTEGRATION', 'SLEEP_PHASE'] as const;
export type CyclePhase = (typeof CYCLE_PHASES)[number];
/** Run every tick, in this order; SLEEP_PHASE follows only while the bio state says sleep. */
export const AWAKE_PHASES: readonly CyclePhase[] = CYCLE_PHASES.slice(0, 6);

export interface PhaseContext {
  readonly tick: number;
  readonly phase: CyclePhase;
  readonly blackboard: Blackboard;
  /** Clock time at the start of the tick (ms). */
  readonly now: number;
  readonly bio: BioSnapshot;
}

export type PhaseHandler = (ctx: PhaseContext) => unknown;

/** A participant in the cycle: handlers for the phases it cares about. */
export interface CycleModule {
  readonly name: string;
  readonly phases: Partial<Record<CyclePhase, PhaseHandler>>;
}

export interface ModuleFailure {
  tick: number;
  phase: CyclePhase;
  module: string;
  code: string;
  message: string;
}

export interface ModuleRun {
  module: string;
  durationMs: number;
  ok: boolean;
}

export interface PhaseRun {
  phase: CyclePhase;
  durationMs: number;
  modules: ModuleRun[];
}

export interface TickResult {
  tick: number;
  startedAt: string;
  bio: BioSnapshot;
  sleeping: boolean;
  phases: PhaseRun[];
  errors: ModuleFailure[];
  durationMs: number;
}

export interface PhaseTiming {
  runs: number;
  totalMs: number;
  maxMs: number;
  lastMs: number;
}

export interface CycleOptions {
  blackboard: Blackboard;
  /** Default: the external signal on `bio_inspired.cognitive_state`. */
  bio?: BioStateSource;
  clock?: Clock;
  /** Monotonic milliseconds for timings; default `performance.now`. */
  timer?: () => number;
  modules?: readonly CycleModule[];
}

/**
 * The cognitive cycle (seed 000): each tick runs PERCEPTION, REASONING,
 * ACTION, LEARNING, EVALUATION and INTEGRATION, then SLEEP_PHASE when the bio
 * state sampled at the start of the tick says sleep. Within a phase, modules
 * run one after another in registration order. A module that throws is
 * recorded in the tick result; the rest of the tick goes on.
 */
export class CognitiveCycle {
  readonly blackboard: Blackboard;
  private readonly bio: BioStateSource;
  private readonly clock: Clock;
  private readonly timer: () => number;
  private modules: CycleModule[] = [];
  private tickNo = 0;
  private running = false;
  private sleepTicks = 0;
  private failures = 0;
  private readonly timings = new Map<CyclePhase, PhaseTiming>();
  private last: TickResult | null = null;

  constructor(options: CycleOptions) {
    this.blackboard = options.blackboard;
    this.bio = options.bio ?? new SignalBioState();
    this.clock = options.clock ?? Date.now;
    this.timer = options.timer ?? (() => performance.now());
    for (const m of options.modules ?? []) this.register(m);
    // Writes made before the first tick belong to tick 1, as writes between ticks belong to the next one.
    // Stamped 0, they had already decayed a step when tick 1 scored them, and a 0.7 event missed the threshold.
    if (this.blackboard.currentTick < 1) this.blackboard.setTick(1);
  }

  /** Adds a module; returns a function that removes it. Names must be unique. */
  register(module: CycleModule): () => void {
    if (this.modules.some((m) => m.name === module.name)) {
      throw new MnemosError('conflict', `a cycle module named "${module.name}" is already registered; give each module a unique name`, { module: module.name });
    }
    this.modules = [...this.modules, module];
    return () => {
      this.modules = this.modules.filter((m) => m !== module);
    };
  }

  get currentTick(): number {
    return this.tickNo;
  }

  /** Whether a tick is in progress (a second `tick()` now would be refused with `conflict`). */
  get isRunning(): boolean {
    return this.running;
  }

  get lastTick(): TickResult | null {
    return this.last;
  }

  async tick(): Promise<TickResult> {
    if (this.running) throw new MnemosError('conflict', 'a tick is already running; await the previous tick() before starting another');
    this.running = true;
    try {
      const tick = ++this.tickNo;
      this.blackboard.setTick(tick);
      const now = this.clock();
      const t0 = this.timer();
      const errors: ModuleFailure[] = [];
      const bio = this.sampleBio(now, tick, errors);
      const phases: CyclePhase[] = bio.sleeping ? [...AWAKE_PHASES, 'SLEEP_PHASE'] : [...AWAKE_PHASES];
      const runs: PhaseRun[] = [];
      for (const phase of phases) runs.push(await this.runPhase({ tick, phase, blackboard: this.blackboard, now, bio }, errors));
      if (bio.sleeping) this.sleepTicks += 1;
      this.failures += errors.length;
      this.last = { tick, startedAt: new Date(now).toISOString(), bio, sleeping: bio.sleeping, phases: runs, errors, durationMs: this.timer() - t0 };
      return this.last;
    } finally {
      // Writes made between ticks belong to the next tick, the first that can react to them.
      this.blackboard.setTick(this.tickNo + 1);
      this.running = false;
    }
  }

  stats(): { ticks: number; sleepTicks: number; moduleErrors: number; modules: string[]; phases: Partial<Record<CyclePhase, PhaseTiming>> } {
    return {
      ticks: this.tickNo,
      sleepTicks: this.sleepTicks,
      moduleErrors: this.failures,
      modules: this.modules.map((m) => m.name),
      phases: Object.fromEntries([...this.timings].map(([p, t]) => [p, { ...t }])),
    };
  }

  /** A failing bio source is recorded like a module error; the tick then runs awake. */
  private sampleBio(now: number, tick: number, errors: ModuleFailure[]): BioSnapshot {
    try {
      return this.bio.sample({ blackboard: this.blackboard, now, tick });
    } catch (err) {
      errors.push({ tick, phase: 'PERCEPTION', module: 'bio', code: MnemosError.is(err) ? err.code : 'internal', message: err instanceof Error ? err.message : String(err) });
      return { sleeping: false, state: 'unknown', source: 'error' };
    }
  }

  private async runPhase(ctx: PhaseContext, errors: ModuleFailure[]): Promise<PhaseRun> {
    const start = this.timer();
    const modules: ModuleRun[] = [];
    for (const m of this.modules) {
      const handler = m.phases[ctx.phase];
      if (!handler) continue;
      const t = this.timer();
      let ok = true;
      try {
        await handler(ctx);
      } catch (err) {
        ok = false;
        errors.push({
          tick: ctx.tick,
          phase: ctx.phase,
          module: m.name,
          code: MnemosError.is(err) ? err.code : 'internal',
          message: err instanceof Error ? err.message : String(err),
        });
      }
      modules.push({ module: m.name, durationMs: this.timer() - t, ok });
    }
    const durationMs = this.timer() - start;
    const timing = this.timings.get(ctx.phase) ?? { runs: 0, totalMs: 0, maxMs: 0, lastMs: 0 };
    timing.runs += 1;
    timing.totalMs += durationMs;
    timing.maxMs = Math.max(timing.maxMs, durationMs);
    timing.lastMs = durationMs;
    this.timings.set(ctx.phase, timing);
    return { phase: ctx.phase, durationMs, modules };
  }
}
