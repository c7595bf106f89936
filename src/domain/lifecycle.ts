import type { Lifecycle, MemoryType } from './memory.ts';
import { MnemosError } from './errors.ts';

/**
 * Lifecycle of a knowledge crystal (seed 002):
 * generated -> activated -> consolidated -> archived -> expired, plus frozen
 * for skills, which never decay. Every allowed move is listed here; anything
 * else is refused, so a bug cannot silently resurrect an expired memory.
 */
const ALLOWED: Record<Lifecycle, readonly Lifecycle[]> = {
  generated: ['activated', 'consolidated', 'archived', 'expired'],
  activated: ['consolidated', 'archived', 'expired'],
  consolidated: ['activated', 'archived', 'expired'],
  // Orphan rescue brings a still-important archived memory back.
  archived: ['activated', 'expired'],
  expired: [],
  // Skills are frozen: only the owner may archive one explicitly.
  frozen: ['archived'],
};

export type LifecycleReason = 'recall' | 'strong' | 'weak' | 'forgotten' | 'rescue' | 'merged' | 'ttl' | 'owner';

export function canTransition(from: Lifecycle, to: Lifecycle, reason: LifecycleReason): boolean {
  if (from === 'frozen') return to === 'archived' && reason === 'owner';
  return ALLOWED[from].includes(to);
}

export function transition(from: Lifecycle, to: Lifecycle, reason: LifecycleReason): Lifecycle {
  if (!canTransition(from, to, reason)) {
    throw new MnemosError('conflict', `lifecycle cannot move from ${from} to ${to} (${reason})`, { from, to, reason });
  }
  return to;
}

/** The lifecycle a new memory starts in. */
export function initialLifecycle(type: MemoryType): Lifecycle {
  return type === 'skill' ? 'frozen' : 'generated';
}

/** Recall activates a freshly generated memory; other states keep theirs. */
export function onRecall(current: Lifecycle): Lifecycle {
  return current === 'generated' ? 'activated' : current;
}

/** States that ordinary search and listing include unless asked otherwise. */
export const LIVE_LIFECYCLES: readonly Lifecycle[] = ['generated', 'activated', 'consolidated', 'frozen'];
