import type { Principal } from '../domain/principal.ts';
import type { Blackboard } from './blackboard.ts';
import type { Clock } from './blackboard-types.ts';
import type { DurableEventLog } from './durable-log.ts';
import type { EpisodeDraft, EpisodeSink, PersistedEpisode } from './episode.ts';
import type { BlockedRecord, SafetyVerifier } from './safety.ts';
import type { SalienceModel } from './salience.ts';

export interface ConsolidatorConfig {
  /** Blackboard entries examined per INTEGRATION (seed: 200). */
  scanLimit?: number;
  /** Ring buffer size (seed: 1000). */
  bufferCapacity?: number;
  /** TTL of the `memory.consolidation` summary and blocked report, seconds (seed: 3600). */
  summaryTtl?: number;
}

export interface ConsolidatorDeps {
  blackboard: Blackboard;
  /** Whose memory the episodes become; every sink call is scoped to it. */
  principal: Principal;
  sink: EpisodeSink;
  /** Default: the rule-based verifier with no rules (approves everything). */
  verifier?: SafetyVerifier;
  /** Default: a volatile log (safety events are lost on a crash). */
  log?: DurableEventLog;
  salience?: SalienceModel;
  clock?: Clock;
  /**
   * Transaction time of the episodes a flush writes (and of its blocked
   * records); default: `clock`. Apart from it only when `clock` is simulated
   * (a scenario replay), so that a record is never stamped as written at a
   * time it was not.
   */
  recordClock?: Clock;
  config?: ConsolidatorConfig;
}

export interface IntegrateResult {
  scanned: number;
  buffered: number;
  /**
   * Ordinary writes salient enough when written that fell below the
   * threshold by the time a scan reached them (ticks later, behind a backlog
   * longer than `scanLimit`): not buffered, but counted, never dropped unseen.
   */
  faded: number;
  evicted: number;
  bufferSize: number;
}

export interface FlushResult {
  tick: number;
  consolidated: number;
  episodes: EpisodeDraft[];
  persisted: PersistedEpisode[];
  blocked: BlockedRecord[];
  /** Events kept for the next sleep because their verifier failed. */
  deferred: number;
  bufferSize: number;
  /** Non-fatal problems (verifier or log failures); the flush itself went through. */
  errors: string[];
}

export interface ConsolidatorStats {
  buffered: number;
  consolidated: number;
  blocked: number;
  evicted: number;
  /** Writes that faded below the threshold before a scan reached them (`IntegrateResult.faded`), in all. */
  faded: number;
  recovered: number;
  bufferSize: number;
  safetyInBuffer: number;
}
