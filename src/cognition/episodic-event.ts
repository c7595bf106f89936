import type { BlackboardEntry } from './blackboard-types.ts';
import { moduleOf } from './blackboard-types.ts';
import type { JsonValue } from './json.ts';

/**
 * A blackboard write selected for long-term memory (the seed's
 * `EpisodicEvent`). The id is the blackboard entry's id, so the same write can
 * never become two events, and a re-run after a crash maps to the same
 * episode (`sourceKey = cycle:<eventId>`).
 */
export interface EpisodicEvent {
  eventId: string;
  blackboardKey: string;
  /** The value as written; frozen, safe to share. */
  valueSnapshot: JsonValue;
  salience: number;
  /** Tick during which the entry was written. */
  tick: number;
  /** ISO time of the write: the episode's valid time. */
  timestamp: string;
  /** First dotted segment of the key. */
  sourceModule: string;
  tags: readonly string[];
  /** Matched an always-consolidate (safety) pattern: never evicted, durable before sleep. */
  alwaysConsolidate: boolean;
  consolidated: boolean;
}

export function eventFromEntry(entry: BlackboardEntry, salience: number, always: boolean): EpisodicEvent {
  return {
    eventId: entry.id,
    blackboardKey: entry.key,
    valueSnapshot: entry.value,
    salience,
    tick: entry.tick,
    timestamp: new Date(entry.createdAt).toISOString(),
    sourceModule: moduleOf(entry.key),
    tags: entry.tags,
    alwaysConsolidate: always,
    consolidated: false,
  };
}
