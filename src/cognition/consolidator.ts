import { MnemosError } from '../domain/errors.ts';
import type { BlackboardEntry, BlackboardEvent, Clock } from './blackboard-types.ts';
import { ConsolidationBuffer } from './consolidation-buffer.ts';
import type { ConsolidatorDeps, ConsolidatorStats, FlushResult, IntegrateResult } from './consolidator-types.ts';
import type { CycleModule, PhaseContext } from './cycle.ts';
import { VolatileEventLog, type DurableEventLog } from './durable-log.ts';
import { toEpisodeDraft, type EpisodeDraft, type PersistedEpisode } from './episode.ts';
import { eventFromEntry, type EpisodicEvent } from './episodic-event.ts';
import { BLOCKED_KEY, CONSOLIDATION_KEY, CONSOLIDATOR_SOURCE, SELF_SOURCES } from './keys.ts';
import { RuleBasedSafetyVerifier, type BlockedRecord, type SafetyVerifier } from './safety.ts';
import { blockedRecord, passSafetyGate } from './safety-gate.ts';
import { SalienceModel } from './salience.ts';

export type { ConsolidatorConfig, ConsolidatorDeps, ConsolidatorStats, FlushResult, IntegrateResult } from './consolidator-types.ts';

/**
 * Moves salient blackboard writes into long-term memory (seed 000).
 *
 * - Safety (always-consolidate) writes are captured the moment they happen,
 *   through a blackboard subscription, and appended to the durable log, so
 *   neither a crash nor a retraction before INTEGRATION loses them.
 * - INTEGRATION scans the writes made since its last scan (at most
 *   `scanLimit`) and buffers those whose decayed salience reaches the threshold.
 * - SLEEP_PHASE passes every buffered event through the safety gate and
 *   persists the approved ones as episodes in one sink transaction.
 */
export class MemoryConsolidator implements CycleModule {
  readonly name = 'memory.consolidator';
  readonly phases = {
    INTEGRATION: (ctx: PhaseContext) => this.integrate(ctx.tick),
    SLEEP_PHASE: async (ctx: PhaseContext) => {
      const result = await this.flush(ctx.tick);
      if (result.errors.length > 0) throw new MnemosError('unavailable', `consolidation finished with problems: ${result.errors.join('; ')}`);
    },
  };

  readonly buffer: ConsolidationBuffer;
  readonly salience: SalienceModel;
  private readonly d: ConsolidatorDeps;
  private readonly verifier: SafetyVerifier;
  private readonly log: DurableEventLog;
  private readonly clock: Clock;
  private readonly recordClock: Clock;
  private readonly scanLimit: number;
  private readonly summaryTtl: number;
  private readonly unsubscribe: () => void;
  /** Safety writes after this seq were captured at write time; the scan leaves them alone. */
  private readonly attachedAfterSeq: number;
  private readonly appends = new Set<Promise<void>>();
  private readonly appendFailures = new Map<string, EpisodicEvent>();
  private recovery: Promise<number> | null = null;
  /** Result of the last completed flush (null until one completes). */
  lastFlush: FlushResult | null = null;
  private cursor = 0;
  private totals = { buffered: 0, consolidated: 0, blocked: 0, recovered: 0, faded: 0 };

  constructor(deps: ConsolidatorDeps) {
    this.d = deps;
    const cfg = deps.config ?? {};
    this.scanLimit = positiveInt(cfg.scanLimit ?? 200, 'scanLimit');
    this.summaryTtl = cfg.summaryTtl ?? 3600;
    this.buffer = new ConsolidationBuffer(cfg.bufferCapacity ?? 1000);
    this.salience = deps.salience ?? new SalienceModel();
    this.verifier = deps.verifier ?? new RuleBasedSafetyVerifier();
    this.log = deps.log ?? new VolatileEventLog();
    this.clock = deps.clock ?? Date.now;
    this.recordClock = deps.recordClock ?? this.clock;
    this.attachedAfterSeq = deps.blackboard.lastSeq;
    const unsubscribe = deps.blackboard.subscribe('blackboard.entry.*', (e) => this.onWrite(e));
    const unwatch = deps.blackboard.onDrop((entries) => this.onDropped(entries));
    this.unsubscribe = () => {
      unsubscribe();
      unwatch();
    };
  }

  /** Re-buffers safety events a previous process logged but never settled. Idempotent. */
  recover(): Promise<number> {
    this.recovery ??= this.log.pending().then(
      (events) => {
        let n = 0;
        for (const e of events) if (!this.buffer.has(e.eventId)) n += this.push({ ...e, consolidated: false }) ? 1 : 0;
        this.totals.recovered += n;
        return n;
      },
      (err: unknown) => {
        this.recovery = null; // try again on the next call
        throw err;
      },
    );
    return this.recovery;
  }

  async integrate(tick: number): Promise<IntegrateResult> {
    await this.recover();
    const entries = this.d.blackboard.since(this.cursor, this.scanLimit);
    let buffered = 0;
    let faded = 0;
    const { threshold, decayPerTick } = this.salience.config;
    const evictedBefore = this.buffer.evicted;
    // Hot path (10,000 entries in about a millisecond): one cached lookup per entry, no allocation unless buffered.
    for (const entry of entries) {
      const outcome = this.consider(entry, tick, threshold, decayPerTick);
      if (outcome === BUFFERED) buffered += 1;
      else if (outcome === FADED) faded += 1;
    }
    if (entries.length > 0) this.cursor = entries[entries.length - 1]!.seq;
    const evicted = this.buffer.evicted - evictedBefore;
    this.totals.faded += faded;
    await this.settleAppends();
    return { scanned: entries.length, buffered, faded, evicted, bufferSize: this.buffer.size };
  }

  async flush(tick: number): Promise<FlushResult> {
    await this.recover();
    await this.settleAppends().catch(() => undefined);
    // Write order, not arrival order: safety events are captured before the scan reaches older writes.
    const events = this.buffer.drain().sort(byWriteOrder);
    const atIso = new Date(this.recordClock()).toISOString();
    const gate = await passSafetyGate(events, this.verifier, atIso);
    const { blocked, deferred, errors } = gate;
    let approved = gate.approved;

    let episodes = approved.map((e) => toEpisodeDraft(e, atIso));
    let persisted: PersistedEpisode[] = [];
    try {
      if (episodes.length > 0) persisted = await this.d.sink.persistEpisodes(this.d.principal, episodes);
    } catch (err) {
      if (!refusesContent(err)) {
        // One transaction: nothing was written, so nothing is settled; all of it waits for the next sleep.
        this.sinkFailed(events, err);
      }
      // The store refused something in the batch itself. Retried, the same batch fails the same way at
      // every sleep, holding back every event with it: find which ones it refuses, and block those.
      const split = await this.persistEach(approved, episodes, events, atIso);
      persisted = split.persisted;
      episodes = split.episodes;
      approved = split.approved;
      blocked.push(...split.refused);
    }
    for (const e of approved) e.consolidated = true;
    this.totals.consolidated += approved.length;
    this.totals.blocked += blocked.length;

    await this.settle(approved.filter((e) => e.alwaysConsolidate).map((e) => e.eventId), 'consolidated', errors);
    await this.settle(blocked.filter((b) => b.safety).map((b) => b.eventId), 'blocked', errors);
    if (deferred.length > 0) this.buffer.restore(deferred);
    if (blocked.length > 0) {
      try {
        await this.d.sink.recordBlocked?.(this.d.principal, blocked);
      } catch (err) {
        errors.push(`recording blocked events failed: ${(err as Error).message}`);
      }
      this.report(BLOCKED_KEY, blocked, 'high', errors);
    }
    this.report(CONSOLIDATION_KEY, { consolidated: approved.length, tick, buffer_size: this.buffer.size }, 'normal', errors);
    this.lastFlush = { tick, consolidated: approved.length, episodes, persisted, blocked, deferred: deferred.length, bufferSize: this.buffer.size, errors };
    return this.lastFlush;
  }

  /**
   * Persists approved events one transaction each, after the store refused
   * their batch; the ones it refuses (`validation_failed`, or `limit_exceeded` past a memory's text limit) come back as
   * blocked records with its reason. Any other failure puts every event back
   * for the next sleep, as a failed batch does (the sink is idempotent per
   * event, so those already written are not written twice).
   */
  private async persistEach(approved: EpisodicEvent[], episodes: EpisodeDraft[], all: EpisodicEvent[], atIso: string) {
    const out = { approved: [] as EpisodicEvent[], episodes: [] as EpisodeDraft[], persisted: [] as PersistedEpisode[], refused: [] as BlockedRecord[] };
    for (let i = 0; i < approved.length; i++) {
      try {
        out.persisted.push(...(await this.d.sink.persistEpisodes(this.d.principal, [episodes[i]!])));
        out.approved.push(approved[i]!);
        out.episodes.push(episodes[i]!);
      } catch (err) {
        if (!refusesContent(err)) {
          this.sinkFailed(all, err);
        }
        out.refused.push(blockedRecord(approved[i]!, { approved: false, reason: `the store refused the episode: ${(err as Error).message}`, verifier: 'store' }, atIso));
      }
    }
    return out;
  }

  /** The sink failed for a reason other than the content: every drained event goes back to the buffer for the next sleep. */
  private sinkFailed(events: EpisodicEvent[], err: unknown): never {
    this.buffer.restore(events);
    throw new MnemosError('unavailable', `episode sink failed; ${events.length} events stay buffered for the next sleep: ${(err as Error).message}`, undefined, { cause: err });
  }

  stats(): ConsolidatorStats {
    return { ...this.totals, evicted: this.buffer.evicted, bufferSize: this.buffer.size, safetyInBuffer: this.buffer.protectedCount };
  }

  /** Stops capturing writes. The log is the caller's to close. */
  close(): void {
    this.unsubscribe();
  }

  /** The scan's decision for one entry (the hot path: no allocation unless buffered). */
  private consider(entry: BlackboardEntry, tick: number, threshold: number, decayPerTick: number): Outcome {
    if (SELF_SOURCES.has(entry.sourceModule)) return SKIPPED;
    const facts = this.salience.facts(entry.key);
    if (facts.always && entry.seq > this.attachedAfterSeq) return SKIPPED;
    const age = tick - entry.tick;
    const score = age > 0 ? Math.max(0, facts.base - age * decayPerTick) : facts.base;
    if (!facts.always && (score < threshold || entry.status === 'retracted')) {
      return score < threshold && facts.base >= threshold && entry.status !== 'retracted' ? FADED : SKIPPED;
    }
    // (A retraction withdraws an ordinary event but does not erase a safety one.)
    return this.capture(eventFromEntry(entry, score, facts.always)) ? BUFFERED : SKIPPED;
  }

  /**
   * Entries leaving the blackboard (evicted at capacity, or swept) before a
   * scan reached them are judged now, as the scan would have: a salient write
   * buried under more than the board's capacity of newer ones between two
   * ticks was lost without a trace.
   */
  private onDropped(entries: readonly BlackboardEntry[]): void {
    const { threshold, decayPerTick } = this.salience.config;
    const tick = this.d.blackboard.currentTick;
    for (const entry of entries) {
      if (entry.seq <= this.cursor) continue;
      if (this.consider(entry, tick, threshold, decayPerTick) === FADED) this.totals.faded += 1;
    }
  }

  private onWrite(e: BlackboardEvent): void {
    if (e.type !== 'blackboard.entry.added' && e.type !== 'blackboard.entry.updated') return;
    const entry: BlackboardEntry = e.entry;
    if (SELF_SOURCES.has(entry.sourceModule) || !this.salience.alwaysConsolidate(entry.key)) return;
    this.capture(eventFromEntry(entry, this.salience.score(entry.key, 0), true));
  }

  /** Buffers an event; safety events also go to the durable log. */
  private capture(event: EpisodicEvent): boolean {
    if (!this.push(event)) return false;
    if (event.alwaysConsolidate) this.startAppend(event);
    return true;
  }

  private push(event: EpisodicEvent): boolean {
    if (this.buffer.has(event.eventId)) return false;
    this.buffer.push(event);
    this.totals.buffered += 1;
    return true;
  }

  private startAppend(event: EpisodicEvent): void {
    const p = this.log.append(event).then(
      () => void this.appendFailures.delete(event.eventId),
      () => void this.appendFailures.set(event.eventId, event),
    );
    this.appends.add(p);
    void p.finally(() => this.appends.delete(p));
  }

  /**
   * Resolves once the safety event captured from blackboard entry `eventId`
   * is in the durable log (at once for any other entry). If the log refused
   * it, and refuses it again, the event is withdrawn from the buffer and this
   * throws `unavailable`: a write acknowledged while only in memory was lost
   * when the process ended before the next sleep. Surfaces that acknowledge
   * blackboard writes (CycleApi.write) call it before answering.
   */
  async ensureDurable(eventId: string): Promise<void> {
    await Promise.all([...this.appends]);
    const failed = this.appendFailures.get(eventId);
    if (failed === undefined) return;
    this.startAppend(failed);
    await Promise.all([...this.appends]);
    if (!this.appendFailures.has(eventId)) return;
    this.appendFailures.delete(eventId);
    this.buffer.withdraw(eventId);
    throw new MnemosError('unavailable', `safety event ${eventId} (${failed.blackboardKey}) could not be made durable: the durable event log refused it, so the write is withdrawn; nothing of it is kept, write it again once the log accepts writes`, {
      eventId,
      blackboardKey: failed.blackboardKey,
    });
  }

  /** Waits for in-flight appends and retries failed ones once; throws if some safety events are still not durable. */
  private async settleAppends(): Promise<void> {
    await Promise.all([...this.appends]);
    if (this.appendFailures.size === 0) return;
    for (const e of [...this.appendFailures.values()]) this.startAppend(e);
    await Promise.all([...this.appends]);
    if (this.appendFailures.size > 0) {
      throw new MnemosError('unavailable', `${this.appendFailures.size} safety events are buffered but not yet durable: the durable event log refused them`, {
        eventIds: [...this.appendFailures.keys()],
      });
    }
  }

  /** Blackboard reports are best effort: the episodes are already persisted when they are written. */
  private report(key: string, value: unknown, priority: 'normal' | 'high', errors: string[]): void {
    try {
      this.d.blackboard.write(key, value, { ttl: this.summaryTtl, sourceModule: CONSOLIDATOR_SOURCE, priority });
    } catch (err) {
      errors.push(`writing ${key} failed: ${(err as Error).message}`);
    }
  }

  /** Marks settled safety events in the durable log. */
  private async settle(ids: string[], outcome: 'consolidated' | 'blocked', errors: string[]): Promise<void> {
    if (ids.length === 0) return;
    try {
      await this.log.markConsolidated(ids, outcome);
    } catch (err) {
      // The episodes exist; the log will replay them and the sink's idempotency absorbs it.
      errors.push(`durable log marker failed: ${(err as Error).message}`);
    }
  }
}

const SKIPPED = 0;
const BUFFERED = 1;
const FADED = 2;
type Outcome = typeof SKIPPED | typeof BUFFERED | typeof FADED;

function byWriteOrder(a: EpisodicEvent, b: EpisodicEvent): number {
  if (a.timestamp !== b.timestamp) return a.timestamp < b.timestamp ? -1 : 1;
  return a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0;
}

function positiveInt(n: number, field: string): number {
  if (!Number.isInteger(n) || n < 1) throw new MnemosError('validation_failed', `${field} must be a positive integer, got ${n}`, { field });
  return n;
}

/**
 * A sink's refusal of an episode's content (bad input, or past a memory's
 * size limit): the same event fails the same way at every sleep, so it is
 * blocked rather than kept buffered.
 */
function refusesContent(err: unknown): boolean {
  return MnemosError.is(err, 'validation_failed') || MnemosError.is(err, 'limit_exceeded');
}
