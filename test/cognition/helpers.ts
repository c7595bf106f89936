/**
 * In-memory implementations of the cognition ports, for tests only. The real
 * store-backed sink and source are wired by the engine.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { newId } from '../../src/domain/ids.ts';
import type { Memory } from '../../src/domain/memory.ts';
import { canRead, type Principal } from '../../src/domain/principal.ts';
import {
  episodeDraftToMemory,
  episodeFromMemory,
  type EpisodeDraft,
  type EpisodeQuery,
  type EpisodeSink,
  type EpisodeSource,
  type PersistedEpisode,
  type RetrievedEpisode,
} from '../../src/cognition/episode.ts';
import type { BlockedRecord } from '../../src/cognition/safety.ts';

export const owner: Principal = { role: 'owner', namespace: 'test', id: 'owner' };
export const agent: Principal = { role: 'agent', namespace: 'test', id: 'agent-1', agentId: 'a1' };

/** A store of episode memories: batches are all-or-nothing and idempotent on sourceKey. */
export class MemoryEpisodeStore implements EpisodeSink, EpisodeSource {
  readonly memories: Memory[] = [];
  private readonly bySource = new Map<string, Memory>();
  readonly blocked: BlockedRecord[] = [];
  batches = 0;
  /** Make the next persist fail (to test the one-transaction rule). */
  failNext: Error | null = null;

  async persistEpisodes(principal: Principal, episodes: readonly EpisodeDraft[]): Promise<PersistedEpisode[]> {
    if (this.failNext) {
      const err = this.failNext;
      this.failNext = null;
      throw err;
    }
    const staged = new Map<string, Memory>();
    const out: PersistedEpisode[] = [];
    for (const draft of episodes) {
      const m = episodeDraftToMemory(draft, principal);
      const key = `${m.namespace}\u0000${m.sourceKey}`;
      const existing = this.bySource.get(key) ?? staged.get(key);
      if (existing) {
        out.push({ eventId: draft.eventId, memoryId: existing.id, status: 'unchanged' });
        continue;
      }
      const id = newId();
      staged.set(key, { ...m, id, lineageId: id, version: 1 });
      out.push({ eventId: draft.eventId, memoryId: id, status: 'created' });
    }
    // Commit: only now does the batch become visible, all of it at once.
    for (const [key, m] of staged) {
      this.bySource.set(key, m);
      this.memories.push(m);
    }
    this.batches += 1;
    return out;
  }

  async recordBlocked(_principal: Principal, blocked: readonly BlockedRecord[]): Promise<void> {
    this.blocked.push(...blocked);
  }

  async recentEpisodes(principal: Principal, q: EpisodeQuery): Promise<RetrievedEpisode[]> {
    return this.memories
      .filter((m) => canRead(principal, m) && m.salience >= q.minSalience && m.validFrom >= q.since)
      .map((m) => episodeFromMemory(m)!)
      .sort((a, b) => b.salience - a.salience || b.validFrom.localeCompare(a.validFrom))
      .slice(0, q.limit);
  }
}

export function manualClock(start = Date.UTC(2025, 0, 1)): { now: () => number; advance: (ms: number) => void; set: (ms: number) => void } {
  let t = start;
  return {
    now: () => t,
    advance: (ms) => {
      t += ms;
    },
    set: (ms) => {
      t = ms;
    },
  };
}

/** Deterministic RNG (mulberry32). */
export function seededRng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function tempDir(prefix = 'mnemos-cognition-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}
