import type { JsonValue } from './json.ts';

/** Milliseconds since the epoch. Injected everywhere so tests control time. */
export type Clock = () => number;

export const PRIORITIES = ['low', 'normal', 'high', 'critical'] as const;
export type Priority = (typeof PRIORITIES)[number];

export const ENTRY_STATUSES = ['active', 'consumed', 'superseded', 'expired', 'retracted'] as const;
export type EntryStatus = (typeof ENTRY_STATUSES)[number];

/**
 * One write to the blackboard. Every write creates a new entry (a new id); a
 * write to a key that already has an active entry supersedes it, so the
 * history of a key stays visible until `sweep()`.
 */
export interface BlackboardEntry {
  readonly id: string;
  /** Write order, strictly increasing; consumers keep a cursor on it. */
  readonly seq: number;
  readonly key: string;
  readonly value: JsonValue;
  readonly priority: Priority;
  readonly status: EntryStatus;
  readonly sourceModule: string;
  readonly tags: readonly string[];
  readonly confidence: number;
  readonly parentId: string | null;
  /** The cycle tick during which it was written. */
  readonly tick: number;
  readonly createdAt: number;
  /** When the status last changed (equals createdAt while active). */
  readonly updatedAt: number;
  readonly ttlSeconds: number | null;
  readonly expiresAt: number | null;
}

export interface WriteOptions {
  /** Seconds until the entry expires; omitted or null = no expiry. */
  ttl?: number | null;
  priority?: Priority;
  /** Defaults to the first dotted segment of the key. */
  sourceModule?: string;
  tags?: readonly string[];
  /** 0..1, default 1. */
  confidence?: number;
  parentId?: string | null;
}

export type StatusFilter = EntryStatus | readonly EntryStatus[] | 'any';

export interface QueryOptions {
  limit?: number;
  /** Default `active`. */
  status?: StatusFilter;
  /** Default false: oldest write first. */
  newestFirst?: boolean;
}

export const BLACKBOARD_EVENT_TYPES = [
  'blackboard.entry.added',
  'blackboard.entry.updated',
  'blackboard.entry.removed',
  'blackboard.entry.expired',
] as const;
export type BlackboardEventType = (typeof BLACKBOARD_EVENT_TYPES)[number];

export type RemovalReason = 'retracted' | 'consumed' | 'evicted';

export interface BlackboardEvent {
  readonly type: BlackboardEventType;
  readonly entry: BlackboardEntry;
  /** For `updated`: the entry this write superseded. */
  readonly previous?: BlackboardEntry;
  /** For `removed`. */
  readonly reason?: RemovalReason;
  readonly at: number;
}

export type BlackboardListener = (event: BlackboardEvent) => void | Promise<void>;

export interface SubscriberFailure {
  readonly pattern: string;
  readonly event: BlackboardEventType;
  readonly key: string;
  readonly error: unknown;
}

export interface BlackboardOptions {
  clock?: Clock;
  /** Entries retained (all statuses) before eviction starts. Default 10,000. */
  capacity?: number;
  /**
   * JSON characters of values (with their keys) retained, all statuses, before eviction starts. Default 20,000,000.
   * Entries alone did not bound memory: a value may hold 200,000 characters, so 10,000 of them were 2 GB per board,
   * reached by rewriting one key (superseded entries stay until evicted).
   */
  capacityChars?: number;
  /** Called when a subscriber throws or rejects; the write itself never fails for it. */
  onSubscriberError?: (failure: SubscriberFailure) => void;
}

export interface BlackboardStats {
  total: number;
  active: number;
  /** Superseded, consumed, expired or retracted entries still retained. */
  inactive: number;
  capacity: number;
  /** JSON characters of the retained entries' keys and values, and the most kept before eviction. */
  retainedChars: number;
  capacityChars: number;
  evicted: number;
  subscriberErrors: number;
}

/** The first dotted segment of a key: the module that owns the namespace. */
export function moduleOf(key: string): string {
  const dot = key.indexOf('.');
  return dot === -1 ? key : key.slice(0, dot);
}
