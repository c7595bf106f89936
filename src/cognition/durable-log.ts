import type { EpisodicEvent } from './episodic-event.ts';

export type SettledOutcome = 'consolidated' | 'blocked';

/**
 * Where safety (always-consolidate) events are written the moment they are
 * captured, so a crash between the event and the next sleep loses none of
 * them. On start-up the consolidator re-buffers `pending()`.
 */
export interface DurableEventLog {
  /** Must not resolve before the event would survive a crash of this process. */
  append(event: EpisodicEvent): Promise<void>;
  /** Appended events not yet settled, in append order. */
  pending(): Promise<EpisodicEvent[]>;
  /**
   * Records that these events are settled: persisted as episodes
   * (`consolidated`, the default) or refused by the safety gate (`blocked`).
   * Unknown or already settled ids are ignored.
   */
  markConsolidated(ids: readonly string[], outcome?: SettledOutcome): Promise<void>;
  close(): Promise<void>;
}

/**
 * A log that keeps events in memory only: for tests and for agents that
 * accept losing safety events on a crash. Not durable.
 */
export class VolatileEventLog implements DurableEventLog {
  private readonly open = new Map<string, EpisodicEvent>();
  readonly settled: Array<{ id: string; outcome: SettledOutcome }> = [];

  async append(event: EpisodicEvent): Promise<void> {
    if (!this.open.has(event.eventId)) this.open.set(event.eventId, event);
  }

  async pending(): Promise<EpisodicEvent[]> {
    return [...this.open.values()];
  }

  async markConsolidated(ids: readonly string[], outcome: SettledOutcome = 'consolidated'): Promise<void> {
    for (const id of ids) if (this.open.delete(id)) this.settled.push({ id, outcome });
  }

  async close(): Promise<void> {}
}
