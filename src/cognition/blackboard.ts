import { MnemosError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { BlackboardEvents } from './blackboard-events.ts';
import { checkWrite, statusTest } from './blackboard-rules.ts';
import {
  moduleOf,
  type BlackboardEntry,
  type BlackboardEventType,
  type BlackboardListener,
  type BlackboardOptions,
  type BlackboardStats,
  type Clock,
  type EntryStatus,
  type Priority,
  type QueryOptions,
  type RemovalReason,
  type WriteOptions,
} from './blackboard-types.ts';
import { compileMatcher, isGlob } from './glob.ts';
import { freezeJson } from './json.ts';
import { MinHeap } from './min-heap.ts';

type Entry = { -readonly [K in keyof BlackboardEntry]: BlackboardEntry[K] };

/** Eviction order among active entries; critical is absent on purpose. */
const EVICTABLE: readonly Priority[] = ['low', 'normal', 'high'];

/**
 * Layer 1 of the memory stack: ephemeral shared state for one agent's cycle.
 *
 * Expired entries are marked `expired` (and announced) at the first call after
 * their deadline, and stay queryable until `sweep()`. At capacity (entries, or
 * characters of keys and values) the oldest
 * inactive entry goes first, then active ones by priority (low, normal, high),
 * oldest first; critical entries are never evicted.
 */
export class Blackboard {
  private readonly clock: Clock;
  private readonly capacity: number;
  private readonly capacityChars: number;
  /** JSON characters of each retained entry (key and value), by id, and their sum. */
  private readonly chars = new Map<string, number>();
  private retainedChars = 0;
  private readonly events: BlackboardEvents;
  /** Every retained entry; Map order is write order (seq order). */
  private readonly byId = new Map<string, Entry>();
  private readonly current = new Map<string, Entry>();
  private readonly live: Record<Priority, Set<Entry>> = { low: new Set(), normal: new Set(), high: new Set(), critical: new Set() };
  private readonly inactive = new Set<Entry>();
  private readonly expiries = new MinHeap<Entry>();
  private seq = 0;
  private tick = 0;
  private evictions = 0;
  /** Told of every entry that leaves the board (evicted or swept), active or not: see onDrop. */
  private dropListeners: Array<(entries: readonly BlackboardEntry[]) => void> = [];

  constructor(options: BlackboardOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.capacity = options.capacity ?? 10_000;
    if (!Number.isInteger(this.capacity) || this.capacity < 1) {
      throw new MnemosError('validation_failed', `blackboard capacity must be a positive integer, got ${this.capacity}`, { field: 'capacity' });
    }
    this.capacityChars = options.capacityChars ?? 20_000_000;
    if (!Number.isSafeInteger(this.capacityChars) || this.capacityChars < 1) {
      throw new MnemosError('validation_failed', `blackboard capacityChars must be a positive integer, got ${this.capacityChars}`, { field: 'capacityChars' });
    }
    this.events = new BlackboardEvents(options.onSubscriberError);
  }

  /** The cycle calls this at the start of each tick; writes are stamped with it. */
  setTick(tick: number): void {
    this.tick = tick;
  }

  get currentTick(): number {
    return this.tick;
  }

  /** Seq of the latest write (0 before any). */
  get lastSeq(): number {
    return this.seq;
  }

  write(key: string, value: unknown, options: WriteOptions = {}): BlackboardEntry {
    const { priority, ttl, confidence } = checkWrite(key, options);
    const frozen = freezeJson(value, `blackboard value of "${key}"`);
    const now = this.clock();
    this.expireDue(now);

    const previous = this.current.get(key);
    const size = key.length + JSON.stringify(frozen).length;
    // Critical entries are never evicted, so they and the new one must fit together (the one superseded here becomes evictable).
    let pinned = size;
    for (const e of this.live.critical) if (e !== previous) pinned += this.chars.get(e.id) ?? 0;
    if (pinned > this.capacityChars) {
      throw new MnemosError(
        'limit_exceeded',
        `blackboard is full (${this.capacityChars} characters of keys and values): this ${size}-character entry does not fit beside the critical ones, which are never evicted; retract or consume some`,
        { capacityChars: this.capacityChars, key },
      );
    }
    if (this.byId.size >= this.capacity && previous === undefined && !this.hasEvictable()) {
      throw new MnemosError(
        'limit_exceeded',
        `blackboard is full (${this.capacity} entries, all active and critical): retract or consume some, or raise the capacity`,
        { capacity: this.capacity, key },
      );
    }
    if (previous) this.deactivate(previous, 'superseded', now);
    const removed: Entry[] = [];
    const dropped: Entry[] = [];
    while (this.byId.size >= this.capacity || (this.byId.size > 0 && this.retainedChars + size > this.capacityChars)) {
      const gone = this.evictOne();
      dropped.push(gone.entry);
      if (gone.active) removed.push(gone.entry);
    }

    const entry: Entry = {
      id: newId(now),
      seq: ++this.seq,
      key,
      value: frozen,
      priority,
      status: 'active',
      sourceModule: options.sourceModule ?? moduleOf(key),
      tags: Object.freeze([...(options.tags ?? [])]),
      confidence,
      parentId: options.parentId ?? null,
      tick: this.tick,
      createdAt: now,
      updatedAt: now,
      ttlSeconds: ttl,
      expiresAt: ttl === null ? null : now + ttl * 1000,
    };
    this.byId.set(entry.id, entry);
    this.chars.set(entry.id, size);
    this.retainedChars += size;
    this.current.set(key, entry);
    this.live[priority].add(entry);
    if (entry.expiresAt !== null) this.expiries.push(entry.expiresAt, entry);

    this.notifyDropped(dropped);
    for (const gone of removed) this.emit('blackboard.entry.removed', gone, now, { reason: 'evicted' });
    if (previous) this.emit('blackboard.entry.updated', entry, now, { previous });
    else this.emit('blackboard.entry.added', entry, now);
    return entry;
  }

  /** The active entry for a key. */
  read(key: string): BlackboardEntry | undefined {
    this.expireDue(this.clock());
    return this.current.get(key);
  }

  /** Any retained entry by id, whatever its status. */
  get(id: string): BlackboardEntry | undefined {
    this.expireDue(this.clock());
    return this.byId.get(id);
  }

  query(pattern: string, options: QueryOptions = {}): BlackboardEntry[] {
    const limit = options.limit ?? Infinity;
    const status = options.status ?? 'active';
    this.expireDue(this.clock());
    if (limit <= 0) return [];
    // A plain key asking for the active entry is a map lookup.
    if (status === 'active' && !isGlob(pattern)) {
      const e = this.current.get(pattern);
      return e ? [e] : [];
    }
    const matches = compileMatcher(pattern);
    const wanted = statusTest(status);
    const out: BlackboardEntry[] = [];
    const source = options.newestFirst ? [...this.byId.values()].reverse() : this.byId.values();
    for (const e of source) {
      if (wanted(e.status) && matches(e.key)) {
        out.push(e);
        if (out.length >= limit) break;
      }
    }
    return out;
  }

  /** Entries written after `afterSeq` (any status), in write order, at most `limit`. */
  since(afterSeq: number, limit: number): BlackboardEntry[] {
    this.expireDue(this.clock());
    const out: BlackboardEntry[] = [];
    if (afterSeq >= this.seq || limit <= 0) return out;
    for (const e of this.byId.values()) {
      if (e.seq <= afterSeq) continue;
      out.push(e);
      if (out.length >= limit) break;
    }
    return out;
  }

  /** Withdraws the active entry of a key (it was wrong); returns it, or undefined if none. */
  retract(key: string): BlackboardEntry | undefined {
    return this.remove(key, 'retracted');
  }

  /** Marks the active entry of a key as handled by a consumer. */
  consume(key: string): BlackboardEntry | undefined {
    return this.remove(key, 'consumed');
  }

  /** Drops every inactive entry (after marking due expiries); returns how many were dropped. */
  sweep(): number {
    this.expireDue(this.clock());
    const swept = [...this.inactive];
    for (const e of swept) this.drop(e);
    this.inactive.clear();
    // Rebuild the expiry heap so it stops holding dropped entries.
    this.expiries.clear();
    for (const set of Object.values(this.live)) for (const e of set) if (e.expiresAt !== null) this.expiries.push(e.expiresAt, e);
    this.notifyDropped(swept);
    return swept.length;
  }

  /**
   * Calls `listener` with every entry that leaves the board for good: evicted
   * at capacity (inactive ones included, which no `removed` event announces)
   * or dropped by `sweep()`. The consolidator uses it so that a salient write
   * evicted before INTEGRATION scanned it is still buffered, not lost unseen.
   * Returns the function that stops the calls.
   */
  onDrop(listener: (entries: readonly BlackboardEntry[]) => void): () => void {
    this.dropListeners = [...this.dropListeners, listener];
    return () => {
      this.dropListeners = this.dropListeners.filter((l) => l !== listener);
    };
  }

  subscribe(eventPattern: string, listener: BlackboardListener, options: { key?: string } = {}): () => void {
    return this.events.subscribe(eventPattern, listener, options.key);
  }

  stats(): BlackboardStats {
    return {
      total: this.byId.size,
      active: this.current.size,
      inactive: this.inactive.size,
      capacity: this.capacity,
      retainedChars: this.retainedChars,
      capacityChars: this.capacityChars,
      evicted: this.evictions,
      subscriberErrors: this.events.errorCount,
    };
  }

  /** Marks every entry whose TTL has run out as expired and announces it. */
  expireDue(now: number = this.clock()): number {
    let count = 0;
    while ((this.expiries.peekKey() ?? Infinity) <= now) {
      const e = this.expiries.pop()!;
      // Heap items are not removed on supersede/evict; skip the stale ones.
      if (e.status !== 'active' || !this.byId.has(e.id)) continue;
      this.deactivate(e, 'expired', now);
      this.emit('blackboard.entry.expired', e, now);
      count += 1;
    }
    return count;
  }

  private remove(key: string, status: 'retracted' | 'consumed'): BlackboardEntry | undefined {
    const now = this.clock();
    this.expireDue(now);
    const e = this.current.get(key);
    if (!e) return undefined;
    this.deactivate(e, status, now);
    this.emit('blackboard.entry.removed', e, now, { reason: status });
    return e;
  }

  private deactivate(e: Entry, status: EntryStatus, now: number): void {
    this.live[e.priority].delete(e);
    if (this.current.get(e.key) === e) this.current.delete(e.key);
    e.status = status;
    e.updatedAt = now;
    this.inactive.add(e);
  }

  private hasEvictable(): boolean {
    return this.inactive.size > 0 || EVICTABLE.some((p) => this.live[p].size > 0);
  }

  /** Drops one entry; `active` says whether it was (so a `removed` event is due). */
  private evictOne(): { entry: Entry; active: boolean } {
    for (const e of this.inactive) {
      this.inactive.delete(e);
      this.drop(e);
      return { entry: e, active: false };
    }
    for (const p of EVICTABLE) {
      for (const e of this.live[p]) {
        this.live[p].delete(e);
        this.current.delete(e.key);
        this.drop(e);
        this.evictions += 1;
        return { entry: e, active: true };
      }
    }
    throw new MnemosError('internal', 'blackboard eviction found nothing to evict');
  }

  /** Forgets a retained entry and its size. */
  private drop(e: Entry): void {
    this.byId.delete(e.id);
    this.retainedChars -= this.chars.get(e.id) ?? 0;
    this.chars.delete(e.id);
  }

  private notifyDropped(entries: readonly Entry[]): void {
    if (entries.length === 0) return;
    for (const l of this.dropListeners) {
      try {
        l(entries);
      } catch {
        // A drop listener is bookkeeping; its failure must not fail the write that evicted.
      }
    }
  }

  private emit(type: BlackboardEventType, entry: Entry, at: number, extra: { previous?: Entry; reason?: RemovalReason } = {}): void {
    if (this.events.hasListeners) this.events.emit({ type, entry, at, ...extra });
  }
}
