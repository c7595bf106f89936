import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Blackboard } from './blackboard.ts';
import { BIO_STATE_KEY } from './keys.ts';

/** States of the built-in model (ASI:BUILD's bio_inspired module). */
export type SleepModelState = 'awake_active' | 'awake_resting' | 'nrem_sleep' | 'rem_sleep';

export interface BioSnapshot {
  sleeping: boolean;
  /** Model state, or the raw signal value (`AWAKE` when the key is absent). */
  state: string;
  source: 'signal' | 'model' | 'error';
  /** Model only: sleep pressure and the drive it decided on. */
  pressure?: number;
  drive?: number;
  /** Model only: NREM 0.9, REM 0.7, resting 0.4, active 0. */
  consolidationStrength?: number;
}

export interface BioSampleContext {
  blackboard: Blackboard;
  now: number;
  tick: number;
}

/** Decides, once per tick, whether the agent sleeps. */
export interface BioStateSource {
  sample(ctx: BioSampleContext): BioSnapshot;
}

/** Sleep is whatever another module says on the blackboard (the seed's gating). */
export class SignalBioState implements BioStateSource {
  private readonly key: string;
  private readonly sleepValues: ReadonlySet<string>;

  constructor(options: { key?: string; sleepValues?: readonly string[] } = {}) {
    this.key = options.key ?? BIO_STATE_KEY;
    this.sleepValues = new Set(options.sleepValues ?? ['SLEEP']);
  }

  sample({ blackboard }: BioSampleContext): BioSnapshot {
    const value = blackboard.read(this.key)?.value;
    const state = typeof value === 'string' ? value : 'AWAKE';
    return { sleeping: this.sleepValues.has(state), state, source: 'signal' };
  }
}

export const sleepModelSchema = z.strictObject({
  sleepThreshold: z.number().default(0.8),
  wakeThreshold: z.number().default(0.2),
  /** Pressure gained per awake tick and lost per sleeping tick. */
  pressureRise: z.number().min(0).default(1e-4),
  pressureFall: z.number().min(0).default(1e-3),
  initialPressure: z.number().min(0).max(1).default(0),
  circadianAmplitude: z.number().min(0).default(0.5),
  circadianPeriodMs: z.number().positive().default(86_400_000),
  /** Fraction of a period added to the clock's phase (0..1). */
  circadianOffset: z.number().min(0).max(1).default(0),
  nremProbability: z.number().min(0).max(1).default(0.8),
});
export type SleepModelConfig = z.input<typeof sleepModelSchema>;

const STRENGTH: Record<SleepModelState, number> = { nrem_sleep: 0.9, rem_sleep: 0.7, awake_resting: 0.4, awake_active: 0 };

/** `pressure + amplitude·sin(2π·phase)`. */
export function sleepDrive(pressure: number, circadianPhase: number, amplitude = 0.5): number {
  return pressure + amplitude * Math.sin(2 * Math.PI * circadianPhase);
}

/**
 * The built-in sleep-drive model. Each tick: pressure rises while awake and
 * falls while asleep; drive = pressure + 0.5·sin(2π·circadian phase), with the
 * phase taken from the clock. Above the sleep threshold an awake agent falls
 * asleep (NREM with probability 0.8, else REM); below the wake threshold a
 * sleeping agent wakes up active. In between the state holds (hysteresis),
 * an awake agent counting as resting.
 */
export class SleepDriveModel implements BioStateSource {
  private readonly cfg: z.output<typeof sleepModelSchema>;
  private readonly rng: () => number;
  private pressure: number;
  private state: SleepModelState = 'awake_active';

  constructor(config: SleepModelConfig = {}, rng: () => number = Math.random) {
    const parsed = sleepModelSchema.safeParse(config);
    if (!parsed.success) throw new MnemosError('validation_failed', `invalid sleep model config: ${z.prettifyError(parsed.error)}`, { field: 'bio' });
    if (parsed.data.wakeThreshold >= parsed.data.sleepThreshold) {
      throw new MnemosError('validation_failed', 'sleep model wakeThreshold must be below sleepThreshold', { field: 'bio' });
    }
    this.cfg = parsed.data;
    this.rng = rng;
    this.pressure = parsed.data.initialPressure;
  }

  get current(): { state: SleepModelState; pressure: number } {
    return { state: this.state, pressure: this.pressure };
  }

  sample({ now }: BioSampleContext): BioSnapshot {
    const c = this.cfg;
    const asleep = isAsleep(this.state);
    this.pressure = clamp01(this.pressure + (asleep ? -c.pressureFall : c.pressureRise));
    const phase = (((now / c.circadianPeriodMs + c.circadianOffset) % 1) + 1) % 1;
    const drive = sleepDrive(this.pressure, phase, c.circadianAmplitude);
    if (!asleep && drive > c.sleepThreshold) this.state = this.rng() < c.nremProbability ? 'nrem_sleep' : 'rem_sleep';
    else if (asleep && drive < c.wakeThreshold) this.state = 'awake_active';
    else if (!asleep) this.state = drive < c.wakeThreshold ? 'awake_active' : 'awake_resting';
    return {
      sleeping: isAsleep(this.state),
      state: this.state,
      source: 'model',
      pressure: this.pressure,
      drive,
      consolidationStrength: STRENGTH[this.state],
    };
  }
}

function isAsleep(s: SleepModelState): boolean {
  return s === 'nrem_sleep' || s === 'rem_sleep';
}

function clamp01(x: number): number {
  return Math.min(1, Math.max(0, x));
}

export const bioConfigSchema = z.discriminatedUnion('mode', [
  z.strictObject({ mode: z.literal('signal'), key: z.string().min(1).optional(), sleepValues: z.array(z.string()).optional() }),
  z.strictObject({ mode: z.literal('model'), model: sleepModelSchema.partial().optional() }),
]);
export type BioConfig = z.input<typeof bioConfigSchema>;

/** The bio source a configuration selects; `rng` only matters to the model. */
export function createBioStateSource(config: BioConfig = { mode: 'signal' }, rng?: () => number): BioStateSource {
  const parsed = bioConfigSchema.safeParse(config);
  if (!parsed.success) throw new MnemosError('validation_failed', `invalid bio config: ${z.prettifyError(parsed.error)}`, { field: 'bio' });
  const c = parsed.data;
  if (c.mode === 'signal') return new SignalBioState({ ...(c.key ? { key: c.key } : {}), ...(c.sleepValues ? { sleepValues: c.sleepValues } : {}) });
  return new SleepDriveModel(config.mode === 'model' ? (config.model ?? {}) : {}, rng);
}
