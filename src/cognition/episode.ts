import { contentHash } from '../domain/hash.ts';
import { initialLifecycle } from '../domain/lifecycle.ts';
import { CYCLE_KEY_PREFIX, SAFETY_AUDIT_LABEL, type Memory } from '../domain/memory.ts';
import { defaultVisibility, type Principal } from '../domain/principal.ts';
import type { EpisodicEvent } from './episodic-event.ts';
import type { JsonValue } from './json.ts';
import type { BlockedRecord } from './safety.ts';

export const EPISODE_LABEL = 'Episode';
/** Every episode's source key is this prefix and its event id, so a store can find episodes by key range. */
export const EPISODE_KEY_PREFIX = CYCLE_KEY_PREFIX;
export const SAFETY_EPISODE_LABELS: readonly string[] = Object.freeze([EPISODE_LABEL, SAFETY_AUDIT_LABEL]);

/** An approved event on its way to the persistent store (the seed's `:Episode` node). */
export interface EpisodeDraft {
  eventId: string;
  blackboardKey: string;
  valueSnapshot: JsonValue;
  salience: number;
  tick: number;
  sourceModule: string;
  tags: readonly string[];
  /** Valid time: when the event happened on the blackboard. */
  validFrom: string;
  /** Transaction time: when it was consolidated. */
  transactionTime: string;
  /** `['Episode']`, or `['Episode', 'SafetyAudit']` for safety events. */
  labels: readonly string[];
  /** Safety episodes are read-only: update, edit and forget must be refused. */
  readOnly: boolean;
}

export interface PersistedEpisode {
  eventId: string;
  memoryId: string;
  /** `unchanged` when the episode already existed (a flush re-run after a crash). */
  status: 'created' | 'unchanged';
}

/**
 * Where consolidated episodes go. The engine implements it over the store
 * port (one `apply` of inserts keyed on `sourceKey`).
 */
export interface EpisodeSink {
  /**
   * Persists the whole batch in ONE transaction: all of it or none of it.
   * Must be idempotent per eventId, since a crash between this call and the
   * durable log's marker makes the next flush send the same events again.
   */
  persistEpisodes(principal: Principal, episodes: readonly EpisodeDraft[]): Promise<PersistedEpisode[]>;
  /** Optional durable record of events the safety gate refused. */
  recordBlocked?(principal: Principal, blocked: readonly BlockedRecord[]): Promise<void>;
}

export interface EpisodeQuery {
  minSalience: number;
  /** ISO lower bound on validFrom (inclusive). */
  since: string;
  limit: number;
}

export interface RetrievedEpisode extends EpisodeDraft {
  memoryId: string;
}

export interface EpisodeSource {
  /**
   * Episodes the principal may read with salience >= minSalience and
   * validFrom >= since, by salience descending (then newest first), at most limit.
   */
  recentEpisodes(principal: Principal, query: EpisodeQuery): Promise<RetrievedEpisode[]>;
}

/** A Memory without the identity fields the store assigns. */
export type EpisodeMemoryDraft = Omit<Memory, 'id' | 'lineageId' | 'version'>;

/** `<key> = <json value>`: the full value, never truncated. */
export function renderEpisodeText(key: string, value: JsonValue): string {
  return `${key} = ${JSON.stringify(value)}`;
}

/** `consolidatedAt` is the transaction time (a Date or an ISO string). */
export function toEpisodeDraft(event: EpisodicEvent, consolidatedAt: Date | string): EpisodeDraft {
  return {
    eventId: event.eventId,
    blackboardKey: event.blackboardKey,
    valueSnapshot: event.valueSnapshot,
    salience: event.salience,
    tick: event.tick,
    sourceModule: event.sourceModule,
    tags: event.tags,
    validFrom: event.timestamp,
    transactionTime: typeof consolidatedAt === 'string' ? consolidatedAt : consolidatedAt.toISOString(),
    labels: event.alwaysConsolidate ? SAFETY_EPISODE_LABELS : [EPISODE_LABEL],
    readOnly: event.alwaysConsolidate,
  };
}

/** The memory record for an episode, owned by the consolidating principal. */
export function episodeDraftToMemory(draft: EpisodeDraft, principal: Principal): EpisodeMemoryDraft {
  const { id: _id, lineageId: _lineage, version: _version, ...rest } = episodeMemory(draft, principal, '');
  return rest;
}

/**
 * The whole memory an episode is stored as, first version of its own lineage.
 * Built as one literal: a SLEEP flush makes a thousand of these, and a copy
 * made by spreading a draft and adding the identity fields came out as a
 * dictionary-mode object four times the size.
 */
export function episodeMemory(draft: EpisodeDraft, principal: Principal, id: string): Memory {
  const text = renderEpisodeText(draft.blackboardKey, draft.valueSnapshot);
  return {
    id,
    lineageId: id,
    version: 1,
    text,
    contentHash: contentHash(text),
    type: 'episode',
    importance: draft.salience,
    accessCount: 0,
    lastAccessedAt: null,
    emotionalValence: 0,
    salience: draft.salience,
    lifecycle: initialLifecycle('episode'),
    validFrom: draft.validFrom,
    validTo: null,
    recordedAt: draft.transactionTime,
    supersededAt: null,
    supersededBy: null,
    origin: 'cycle',
    source: { key: draft.blackboardKey },
    sourceKey: `${EPISODE_KEY_PREFIX}${draft.eventId}`,
    namespace: principal.namespace,
    ownerId: principal.id,
    agentId: principal.agentId ?? null,
    sessionId: null,
    visibility: defaultVisibility(principal),
    labels: [...draft.labels],
    readOnly: draft.readOnly,
    tags: [...draft.tags],
    metadata: {
      eventId: draft.eventId,
      blackboardKey: draft.blackboardKey,
      valueSnapshot: draft.valueSnapshot,
      tick: draft.tick,
      sourceModule: draft.sourceModule,
      salience: draft.salience,
    },
    expiresAt: null,
  };
}

export function episodeToMemoryDraft(event: EpisodicEvent, principal: Principal, now: Date): EpisodeMemoryDraft {
  return episodeDraftToMemory(toEpisodeDraft(event, now), principal);
}

/** Reads an episode back from its memory record (for EpisodeSource adapters); null if it is not one. */
export function episodeFromMemory(memory: Memory): RetrievedEpisode | null {
  const m = memory.metadata;
  if (memory.type !== 'episode' || memory.origin !== 'cycle' || typeof m['eventId'] !== 'string' || typeof m['blackboardKey'] !== 'string') return null;
  return {
    memoryId: memory.id,
    eventId: m['eventId'],
    blackboardKey: m['blackboardKey'],
    valueSnapshot: (m['valueSnapshot'] ?? null) as JsonValue,
    salience: memory.salience,
    tick: typeof m['tick'] === 'number' ? m['tick'] : 0,
    sourceModule: typeof m['sourceModule'] === 'string' ? m['sourceModule'] : '',
    tags: memory.tags,
    validFrom: memory.validFrom,
    transactionTime: memory.recordedAt,
    labels: memory.labels,
    readOnly: memory.readOnly,
  };
}
