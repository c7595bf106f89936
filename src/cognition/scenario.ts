import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { charCount } from '../domain/unicode.ts';
import type { Principal } from '../domain/principal.ts';
import { SignalBioState } from './bio-state.ts';
import { PRIORITIES, type Priority } from './blackboard-types.ts';
import type { FlushResult } from './consolidator.ts';
import type { ModuleFailure } from './cycle.ts';
import type { DurableEventLog } from './durable-log.ts';
import { checkWrite } from './blackboard-rules.ts';
import { renderEpisodeText, type EpisodeDraft, type EpisodeSink, type EpisodeSource } from './episode.ts';
import { freezeJson, type JsonValue } from './json.ts';
import { BIO_STATE_KEY } from './keys.ts';
import { createMemoryCycle, type CognitionConfig } from './memory-cycle.ts';
import { RuleBasedSafetyVerifier, type BlockedRecord, type SafetyVerifier } from './safety.ts';

/**
 * Scenario replay (`mnemos cycle run`): a JSONL file of timed stimuli.
 *
 *   {"tick": 1, "write": {"key": "goal.achieved", "value": {...}, "ttl": 60, "priority": "high"}}
 *   {"tick": 3, "state": "sleep"}          writes bio_inspired.cognitive_state = SLEEP (or AWAKE)
 *   {"tick": 2, "veto": "stigmergy.*"}     the rule-based verifier blocks matching keys from then on
 *
 * Ticks run from 1 to the highest tick named; the lines of tick t are applied,
 * in file order, just before tick t runs (tick 0 lines before tick 1).
 */
export type ScenarioStep =
  | { line: number; tick: number; kind: 'write'; key: string; value: JsonValue; ttl?: number; priority?: Priority }
  | { line: number; tick: number; kind: 'state'; state: 'sleep' | 'awake' }
  | { line: number; tick: number; kind: 'veto'; glob: string };

const tick = z.number().int().min(0).max(1_000_000);
const schemas = {
  write: z.strictObject({
    tick,
    write: z.strictObject({
      key: z.string().min(1),
      value: z.json(),
      ttl: z.number().positive().optional(),
      priority: z.enum(PRIORITIES).optional(),
    }),
  }),
  state: z.strictObject({ tick, state: z.enum(['sleep', 'awake']) }),
  veto: z.strictObject({ tick, veto: z.string().min(1) }),
};
const KINDS = Object.keys(schemas) as Array<keyof typeof schemas>;

export interface ScenarioLimits {
  /**
   * Longest episode text (`<key> = <json value>`) a write may lead to; the
   * engine passes its memory text limit. A value too big to become an episode
   * is refused up front, not found out at sleep after earlier ticks persisted.
   */
  maxEpisodeChars?: number;
}

/**
 * Parses and validates every line; throws on the first bad one, naming its
 * line number. A write gets the blackboard's own checks (key, JSON depth), so
 * a line the blackboard would refuse fails here, before any tick has run.
 */
export function parseScenario(input: string | readonly string[], limits: ScenarioLimits = {}): ScenarioStep[] {
  const lines = typeof input === 'string' ? input.split(/\r?\n/) : input;
  const steps: ScenarioStep[] = [];
  lines.forEach((text, i) => {
    const line = i + 1;
    if (text.trim() === '') return;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw bad(line, `not JSON (${(err as Error).message})`);
    }
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad(line, 'expected a JSON object');
    const kinds = KINDS.filter((k) => k in raw);
    if (kinds.length !== 1) throw bad(line, `expected exactly one of "write", "state", "veto", found ${kinds.length === 0 ? 'none' : kinds.join(', ')}`);
    const kind = kinds[0]!;
    const parsed = schemas[kind].safeParse(raw);
    if (!parsed.success) throw bad(line, z.prettifyError(parsed.error).replace(/\n/g, '; '));
    const d = parsed.data as Record<string, unknown> & { tick: number };
    if (kind === 'write') {
      const w = (d as z.infer<typeof schemas.write>).write;
      const value = checkedWrite(line, w.key, w.value, w.ttl, w.priority, limits);
      steps.push({ line, tick: d.tick, kind, key: w.key, value, ...(w.ttl !== undefined ? { ttl: w.ttl } : {}), ...(w.priority ? { priority: w.priority } : {}) });
    } else if (kind === 'state') steps.push({ line, tick: d.tick, kind, state: (d as z.infer<typeof schemas.state>).state });
    else steps.push({ line, tick: d.tick, kind, glob: (d as z.infer<typeof schemas.veto>).veto });
  });
  return steps;
}

/** The blackboard's checks of one write, and the episode size limit; errors name the line. */
function checkedWrite(line: number, key: string, raw: unknown, ttl: number | undefined, priority: Priority | undefined, limits: ScenarioLimits): JsonValue {
  let value: JsonValue;
  try {
    checkWrite(key, { ...(ttl !== undefined ? { ttl } : {}), ...(priority ? { priority } : {}) });
    value = freezeJson(raw, `value of "${key}"`);
  } catch (err) {
    if (err instanceof MnemosError) throw bad(line, err.message);
    throw err;
  }
  const max = limits.maxEpisodeChars;
  if (max !== undefined) {
    const chars = charCount(renderEpisodeText(key, value));
    if (chars > max) throw new MnemosError('limit_exceeded', `scenario line ${line}: the episode text of "${key}" would be ${chars} characters; at most ${max}`, { line, field: 'value' });
  }
  return value;
}

function bad(line: number, why: string): MnemosError {
  return new MnemosError('validation_failed', `scenario line ${line}: ${why}`, { line });
}

/** A verifier that `veto` lines can extend. */
export interface VetoableVerifier extends SafetyVerifier {
  veto(glob: string): void;
}

export interface ScenarioDeps {
  principal: Principal;
  sink: EpisodeSink;
  source?: EpisodeSource;
  log?: DurableEventLog;
  /** Default: a fresh rule-based verifier. */
  verifier?: VetoableVerifier;
  /**
   * Clock time of tick 1 (ms). Each tick advances by `tickMs` (default 1000).
   * Default: the replay ends now (tick 1 is `(ticks - 1) · tickMs` ago), so no
   * event is dated in the future, and episodes get the real time they were
   * written as their transaction time. A replay starting now dated a tick-7200
   * event two hours ahead and stamped its episode as recorded then.
   */
  startMs?: number;
  tickMs?: number;
  timer?: () => number;
  config?: CognitionConfig;
  limits?: ScenarioLimits;
}

export interface ScenarioResult {
  ticks: number;
  buffered: number;
  consolidated: number;
  blocked: number;
  evicted: number;
  /** Salient writes that decayed below the threshold waiting behind a scan backlog (ConsolidatorStats.faded). */
  faded: number;
  episodes: EpisodeDraft[];
  blockedEvents: BlockedRecord[];
  errors: ModuleFailure[];
}

export async function runScenario(input: string | readonly string[], deps: ScenarioDeps): Promise<ScenarioResult> {
  const steps = parseScenario(input, deps.limits);
  const verifier = deps.verifier ?? new RuleBasedSafetyVerifier();
  const tickMs = deps.tickMs ?? 1000;
  const ticks = steps.length === 0 ? 0 : steps.reduce((m, s) => Math.max(m, s.tick), 1);
  const start = deps.startMs ?? Date.now() - Math.max(0, ticks - 1) * tickMs;
  let now = start;
  const { blackboard, cycle, consolidator } = createMemoryCycle({
    principal: deps.principal,
    sink: deps.sink,
    verifier,
    bio: new SignalBioState(),
    clock: () => now,
    // A chosen start is a simulated timeline throughout; the default one records at the real time.
    ...(deps.startMs === undefined ? { recordClock: Date.now } : {}),
    ...(deps.source ? { source: deps.source } : {}),
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.timer ? { timer: deps.timer } : {}),
    ...(deps.config ? { config: deps.config } : {}),
  });
  const byTick = new Map<number, ScenarioStep[]>();
  for (const s of steps) byTick.set(Math.max(1, s.tick), [...(byTick.get(Math.max(1, s.tick)) ?? []), s]);
  const episodes: EpisodeDraft[] = [];
  const blockedEvents: BlockedRecord[] = [];
  const errors: ModuleFailure[] = [];
  try {
    for (let t = 1; t <= ticks; t++) {
      now = start + (t - 1) * tickMs;
      // Stamp this tick's stimuli with its number, so their salience is not decayed by one.
      blackboard.setTick(t);
      for (const s of byTick.get(t) ?? []) {
        if (s.kind === 'write') blackboard.write(s.key, s.value, { ...(s.ttl !== undefined ? { ttl: s.ttl } : {}), ...(s.priority ? { priority: s.priority } : {}) });
        else if (s.kind === 'state') blackboard.write(BIO_STATE_KEY, s.state === 'sleep' ? 'SLEEP' : 'AWAKE', { sourceModule: 'bio_inspired' });
        else verifier.veto(s.glob);
      }
      consolidator.lastFlush = null;
      const result = await cycle.tick();
      errors.push(...result.errors);
      // Re-read through a widened type: the tick above may have set it.
      const flush = consolidator.lastFlush as FlushResult | null;
      if (flush) {
        episodes.push(...flush.episodes);
        blockedEvents.push(...flush.blocked);
      }
    }
  } finally {
    consolidator.close();
  }
  const s = consolidator.stats();
  return { ticks, buffered: s.buffered, consolidated: s.consolidated, blocked: s.blocked, evicted: s.evicted, faded: s.faded, episodes, blockedEvents, errors };
}
