import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { compileMatcher, type GlobMatcher } from './glob.ts';

/**
 * Salience decides what an agent remembers (seed 000). A key's base score is
 * the maximum of the default and every registry pattern it matches (fnmatch
 * globs): the seed starts at `base = 0.1` and takes `max(base, score)`, so the
 * default is a floor that a lower registry score cannot undercut. It decays
 * linearly with age in ticks.
 * Always-consolidate patterns mark safety events, which are consolidated
 * whatever their score and score at least `alwaysScore` (1.0): the seed says
 * these entries "always have salience 1.0", and a `safety.tool_call_blocked`
 * that no registry pattern names scored the 0.1 default, so its read-only
 * SafetyAudit episode fell below PERCEPTION's 0.6 and was never retrieved.
 */

/** The seed's registry. Order does not matter: the maximum wins. */
export const DEFAULT_SALIENCE_REGISTRY: Readonly<Record<string, number>> = Object.freeze({
  'safety.weight_update_blocked': 1.0,
  'safety.verification_blocked': 1.0,
  'safety.verification_passed': 0.8,
  'goal.achieved': 0.9,
  'learning.new_association.*': 0.7,
  'stigmergy.coalition_accept.*': 0.75,
  'stigmergy.handoff.*': 0.65,
});

export const DEFAULT_ALWAYS_CONSOLIDATE: readonly string[] = Object.freeze(['safety.*blocked*', 'safety.verification_blocked']);

export const salienceConfigSchema = z.strictObject({
  /** Replaces the default registry entirely (spread DEFAULT_SALIENCE_REGISTRY to extend it). */
  registry: z.record(z.string().min(1), z.number().min(0).max(1)).optional(),
  defaultScore: z.number().min(0).max(1).optional(),
  decayPerTick: z.number().min(0).optional(),
  alwaysConsolidate: z.array(z.string().min(1)).optional(),
  /** Least base score of a key matching an always-consolidate pattern (seed: safety entries always have salience 1.0). */
  alwaysScore: z.number().min(0).max(1).optional(),
  /** Minimum decayed score for an ordinary event to be buffered. */
  threshold: z.number().min(0).max(1).optional(),
});
export type SalienceConfig = z.input<typeof salienceConfigSchema>;

export interface ResolvedSalienceConfig {
  registry: Readonly<Record<string, number>>;
  defaultScore: number;
  decayPerTick: number;
  alwaysConsolidate: readonly string[];
  alwaysScore: number;
  threshold: number;
}

export function resolveSalienceConfig(config: SalienceConfig = {}): ResolvedSalienceConfig {
  const parsed = salienceConfigSchema.safeParse(config);
  if (!parsed.success) {
    throw new MnemosError('validation_failed', `invalid salience config: ${z.prettifyError(parsed.error)}`, { field: 'salience' });
  }
  const c = parsed.data;
  return {
    registry: c.registry ?? DEFAULT_SALIENCE_REGISTRY,
    defaultScore: c.defaultScore ?? 0.1,
    decayPerTick: c.decayPerTick ?? 0.05,
    alwaysConsolidate: c.alwaysConsolidate ?? DEFAULT_ALWAYS_CONSOLIDATE,
    alwaysScore: c.alwaysScore ?? 1.0,
    threshold: c.threshold ?? 0.7,
  };
}

/** `max(0, base - age * decay)`; ages below zero count as zero. */
export function decayed(base: number, ageTicks: number, decayPerTick: number): number {
  return Math.max(0, base - Math.max(0, ageTicks) * decayPerTick);
}

export interface KeyFacts {
  /** Score before decay. */
  readonly base: number;
  /** Matches an always-consolidate pattern. */
  readonly always: boolean;
}

const KEY_CACHE_LIMIT = 50_000;

/**
 * A compiled salience configuration. Patterns are compiled once and each key's
 * base score is cached, so the INTEGRATION scan costs a map lookup per entry
 * for keys it has seen before.
 */
export class SalienceModel {
  readonly config: ResolvedSalienceConfig;
  private readonly scored: Array<[GlobMatcher, number]>;
  private readonly always: GlobMatcher[];
  private readonly cache = new Map<string, KeyFacts>();

  constructor(config: SalienceConfig = {}) {
    this.config = resolveSalienceConfig(config);
    this.scored = Object.entries(this.config.registry).map(([p, s]) => [compileMatcher(p), s]);
    this.always = this.config.alwaysConsolidate.map(compileMatcher);
  }

  get threshold(): number {
    return this.config.threshold;
  }

  /** Score before decay: the maximum of the default, every matching pattern's score and, for an always-consolidate key, `alwaysScore`. */
  base(key: string): number {
    return this.facts(key).base;
  }

  score(key: string, ageTicks = 0): number {
    return decayed(this.facts(key).base, ageTicks, this.config.decayPerTick);
  }

  alwaysConsolidate(key: string): boolean {
    return this.facts(key).always;
  }

  /** Whether an event of this key and age belongs in the consolidation buffer. */
  shouldBuffer(key: string, ageTicks = 0): boolean {
    const f = this.facts(key);
    return f.always || decayed(f.base, ageTicks, this.config.decayPerTick) >= this.config.threshold;
  }

  /** Both facts about a key in one cached lookup (the INTEGRATION hot path). */
  facts(key: string): KeyFacts {
    let f = this.cache.get(key);
    if (f === undefined) {
      const always = this.always.some((m) => m(key));
      let base = always ? Math.max(this.config.defaultScore, this.config.alwaysScore) : this.config.defaultScore;
      for (const [matches, score] of this.scored) if (score > base && matches(key)) base = score;
      f = { base, always };
      // Keys are usually a small recurring set; a runaway set just restarts the cache.
      if (this.cache.size >= KEY_CACHE_LIMIT) this.cache.clear();
      this.cache.set(key, f);
    }
    return f;
  }
}

let defaultModel: SalienceModel | undefined;
function modelFor(config: SalienceConfig | undefined): SalienceModel {
  if (config !== undefined) return new SalienceModel(config);
  defaultModel ??= new SalienceModel();
  return defaultModel;
}

/** The seed's `compute_salience`; pass a config to score against another registry. */
export function computeSalience(key: string, ageTicks = 0, config?: SalienceConfig): number {
  return modelFor(config).score(key, ageTicks);
}

/** The seed's `always_consolidate`. */
export function alwaysConsolidate(key: string, config?: SalienceConfig): boolean {
  return modelFor(config).alwaysConsolidate(key);
}
