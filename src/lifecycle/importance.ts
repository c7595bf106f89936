import type { Lifecycle, MemoryType } from '../domain/memory.ts';

/**
 * Importance of a knowledge crystal (seed 002, formulas.md "Knowledge
 * crystals"): an Ebbinghaus curve with spacing. Pure functions only, so the
 * thresholds and the curve are tested as tables.
 */

/** Decay per millisecond since the last access. */
export const DECAY_LAMBDA_PER_MS = 5e-10;
export const LONG_TERM_THRESHOLD = 0.7;
export const MID_TERM_THRESHOLD = 0.4;
export const FORGOTTEN_THRESHOLD = 0.02;
/**
 * Not in the reference: below this a memory is archived (hidden from ordinary
 * search) before it drops under the forgotten threshold and expires. Between
 * the forgotten threshold and mid-term, so "archived, then expired" is a real
 * sequence for slowly fading memories.
 */
export const ARCHIVE_THRESHOLD = 0.05;

export const TYPE_WEIGHTS: Record<MemoryType, number> = {
  preference: 1.2,
  goal: 1.2,
  task_pattern: 1.1,
  insight: 1.1,
  relationship: 1.1,
  episode: 0.8,
  general: 0.8,
  fact: 1,
  skill: 1,
};

export interface ImportanceInput {
  /** Base strength S (the memory's stored importance), 0..1. */
  strength: number;
  accessCount: number;
  /** Milliseconds since the last access (or since it was recorded when never accessed). */
  sinceAccessMs: number;
  emotionalValence: number;
}

/** `I = S · (1 - e^(-0.2(n+1))) · e^(-λ_eff·Δt)`, `λ_eff = λ(1 - 0.5|valence|)`. */
export function ebbinghaus(i: ImportanceInput): number {
  const valence = Math.min(1, Math.abs(i.emotionalValence));
  const lambdaEff = DECAY_LAMBDA_PER_MS * (1 - 0.5 * valence);
  const spacing = 1 - Math.exp(-0.2 * (Math.max(0, i.accessCount) + 1));
  return i.strength * spacing * Math.exp(-lambdaEff * Math.max(0, i.sinceAccessMs));
}

export type Retention = 'long_term' | 'mid_term' | 'short_term' | 'forgotten';

export function retention(importance: number): Retention {
  if (importance >= LONG_TERM_THRESHOLD) return 'long_term';
  if (importance >= MID_TERM_THRESHOLD) return 'mid_term';
  if (importance < FORGOTTEN_THRESHOLD) return 'forgotten';
  return 'short_term';
}

export interface ScoredMemory {
  type: MemoryType;
  lifecycle: Lifecycle;
  importance: number;
  accessCount: number;
  lastAccessedAt: string | null;
  recordedAt: string;
  emotionalValence: number;
}

/** Weighted importance of a memory at `now`; skills are frozen and keep their strength. */
export function currentImportance(m: ScoredMemory, now: number): number {
  if (m.type === 'skill' || m.lifecycle === 'frozen') return m.importance;
  const since = now - Date.parse(m.lastAccessedAt ?? m.recordedAt);
  const raw = ebbinghaus({ strength: m.importance, accessCount: m.accessCount, sinceAccessMs: since, emotionalValence: m.emotionalValence });
  return Math.min(1, raw * TYPE_WEIGHTS[m.type]);
}

export type LifecycleMove = { to: Lifecycle; reason: 'strong' | 'weak' | 'forgotten' } | null;

/**
 * Where the thresholds move a memory: consolidated when strong, archived when
 * weak, expired when forgotten. Recall (activation) is not decided here; it
 * happens when a memory is used.
 *
 * A consolidated memory is long-term and is not scored again (formulas.md:
 * consolidation scores generated/activated chunks): once it had decayed for
 * three months unrecalled it was expired and then purged, so a preference
 * recalled often enough to be kept was deleted for good. It still leaves by
 * its TTL, a merge, or a forget.
 */
export function lifecycleMove(lifecycle: Lifecycle, importance: number): LifecycleMove {
  if (lifecycle === 'frozen' || lifecycle === 'expired' || lifecycle === 'consolidated') return null;
  if (importance < FORGOTTEN_THRESHOLD) return { to: 'expired', reason: 'forgotten' };
  if (importance < ARCHIVE_THRESHOLD) return lifecycle === 'archived' ? null : { to: 'archived', reason: 'weak' };
  if (importance >= LONG_TERM_THRESHOLD && (lifecycle === 'generated' || lifecycle === 'activated')) return { to: 'consolidated', reason: 'strong' };
  return null;
}

/** Importance boosts of reconsolidation (formulas.md). */
export const RECALL_BOOST = 0.02;
export const CONFIRMATION_BOOST = 0.05;

export function boosted(strength: number, boost: number): number {
  return Math.min(1, Math.round((strength + boost) * 1e6) / 1e6);
}
