import { MnemosError } from '../domain/errors.ts';
import type { EpisodicEvent } from './episodic-event.ts';

/** FIFO with O(1) amortised shift (Array#shift is O(n)). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get length(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head]!;
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  toArray(): T[] {
    return this.items.slice(this.head);
  }

  clear(): void {
    this.items = [];
    this.head = 0;
  }
}

interface Slot {
  order: number;
  event: EpisodicEvent;
}

/**
 * Layer 2 of the memory stack: a bounded ring of events waiting for sleep.
 * When full, the oldest ordinary event is dropped. Always-consolidate (safety)
 * events are never dropped: they are kept even past capacity, and only
 * ordinary events make room for them.
 */
export class ConsolidationBuffer {
  readonly capacity: number;
  private readonly ordinary = new Fifo<Slot>();
  private protectedSlots: Slot[] = [];
  private readonly ids = new Set<string>();
  private order = 0;
  private evictions = 0;

  constructor(capacity = 1000) {
    if (!Number.isInteger(capacity) || capacity < 1) {
      throw new MnemosError('validation_failed', `buffer capacity must be a positive integer, got ${capacity}`, { field: 'bufferCapacity' });
    }
    this.capacity = capacity;
  }

  get size(): number {
    return this.ordinary.length + this.protectedSlots.length;
  }

  /** Safety events currently held. */
  get protectedCount(): number {
    return this.protectedSlots.length;
  }

  /** Ordinary events dropped for lack of room since creation. */
  get evicted(): number {
    return this.evictions;
  }

  has(eventId: string): boolean {
    return this.ids.has(eventId);
  }

  /** Adds an event; returns the events evicted to make room (never safety events). */
  push(event: EpisodicEvent): EpisodicEvent[] {
    if (this.ids.has(event.eventId)) return [];
    this.ids.add(event.eventId);
    const slot = { order: this.order++, event };
    if (event.alwaysConsolidate) this.protectedSlots.push(slot);
    else this.ordinary.push(slot);
    const evicted: EpisodicEvent[] = [];
    while (this.size > this.capacity && this.ordinary.length > 0) {
      const gone = this.ordinary.shift()!.event;
      this.ids.delete(gone.eventId);
      this.evictions += 1;
      evicted.push(gone);
    }
    return evicted;
  }

  /**
   * Takes back a safety event whose write could not be made durable and was
   * refused to its writer: kept, it would become an episode of a write its
   * writer was told had failed (and wrote again). True when it was held.
   */
  withdraw(eventId: string): boolean {
    const i = this.protectedSlots.findIndex((s) => s.event.eventId === eventId);
    if (i < 0) return false;
    this.protectedSlots.splice(i, 1);
    this.ids.delete(eventId);
    return true;
  }

  /** Every held event in arrival order. */
  snapshot(): EpisodicEvent[] {
    return merge(this.ordinary.toArray(), this.protectedSlots).map((s) => s.event);
  }

  /** Removes and returns every held event in arrival order (the sleep flush takes them all). */
  drain(): EpisodicEvent[] {
    const all = this.snapshot();
    this.ordinary.clear();
    this.protectedSlots = [];
    this.ids.clear();
    return all;
  }

  /**
   * Puts events back ahead of anything that arrived since they were drained,
   * after a failed flush. Capacity applies again, oldest ordinary first.
   */
  restore(events: readonly EpisodicEvent[]): EpisodicEvent[] {
    const later = this.drain();
    const evicted: EpisodicEvent[] = [];
    for (const e of [...events, ...later]) evicted.push(...this.push(e));
    return evicted;
  }
}

function merge(a: Slot[], b: Slot[]): Slot[] {
  const out: Slot[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]!.order < b[j]!.order)) out.push(a[i++]!);
    else out.push(b[j++]!);
  }
  return out;
}
