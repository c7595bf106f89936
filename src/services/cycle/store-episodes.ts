import { EPISODE_KEY_PREFIX, episodeMemory, episodeFromMemory, type EpisodeDraft, type EpisodeQuery, type EpisodeSink, type EpisodeSource, type PersistedEpisode, type RetrievedEpisode } from '../../cognition/episode.ts';
import type { BlockedRecord } from '../../cognition/safety.ts';
import { MnemosError } from '../../domain/errors.ts';
import { charCount, exceedsChars } from '../../domain/unicode.ts';
import { newId } from '../../domain/ids.ts';
import type { Principal } from '../../domain/principal.ts';
import { normalizeIso } from '../../domain/time.ts';
import type { MemoryStore, WriteOp } from '../../ports/store.ts';
import { MAX_TEXT_CHARS } from '../inputs.ts';

/**
 * The cognitive cycle's persistent layer (seed 000's layer 3) on the store
 * port: episodes are ordinary memories of type episode, written in one
 * transaction per flush and keyed by `cycle:<eventId>`, so a flush replayed
 * after a crash writes nothing twice.
 */
export class StoreEpisodes implements EpisodeSink, EpisodeSource {
  constructor(private readonly store: MemoryStore) {}

  async persistEpisodes(p: Principal, episodes: readonly EpisodeDraft[]): Promise<PersistedEpisode[]> {
    if (episodes.length === 0) return [];
    const ops: WriteOp[] = episodes.map((d) => {
      const memory = episodeMemory(d, p, newId(Date.parse(d.transactionTime)));
      assertEpisodeFits(d.blackboardKey, memory.text);
      memory.validFrom = normalizeIso(memory.validFrom);
      memory.recordedAt = normalizeIso(memory.recordedAt);
      return { kind: 'insert', memory, onExistingSource: 'skip_if_same' };
    });
    const results = await this.store.apply(p, ops);
    return results.map((r, i) => {
      if (r.kind !== 'insert') throw new Error(`unexpected write result ${r.kind}`);
      // A replayed flush of an episode its owner has since forgotten writes nothing: it is not created again.
      return { eventId: episodes[i]!.eventId, memoryId: r.id, status: r.status === 'unchanged' || r.status === 'forgotten' ? 'unchanged' : 'created' };
    });
  }

  /** A refused event is recorded in the audit chain (its key and why), never as a memory. */
  async recordBlocked(p: Principal, blocked: readonly BlockedRecord[]): Promise<void> {
    if (blocked.length === 0) return;
    await this.store.apply(
      p,
      blocked.map((b) => ({
        kind: 'record',
        audit: {
          action: 'safety_block',
          memoryId: null,
          beforeHash: null,
          afterHash: null,
          details: { eventId: b.eventId, blackboardKey: b.blackboardKey, tick: b.tick, salience: b.salience, safety: b.safety, reason: b.reason, verifier: b.verifier, at: b.at },
        },
      })),
    );
  }

  async recentEpisodes(p: Principal, q: EpisodeQuery): Promise<RetrievedEpisode[]> {
    // The cycle's own episodes only, chosen in the query: ordinary memories of type episode (a
    // diary) filtered out after the limit left it short, often empty. The store has no origin
    // filter; every cycle episode's source key is `cycle:<eventId>` (the origin test stays below).
    const filter = { types: ['episode' as const], sourceKeyPrefix: EPISODE_KEY_PREFIX, minSalience: q.minSalience, valid: { from: q.since } };
    const memories = await this.store.list(p, filter, { limit: q.limit }, 'salience_desc');
    return memories.map(episodeFromMemory).filter((e): e is RetrievedEpisode => e !== null);
  }
}

/**
 * An episode is a memory and holds to a memory's text limit. CycleApi.write
 * checks it when a value is written, but a cycle built on its own blackboard
 * (createMemoryCycle over this sink) never passes there: a 300,000-character
 * value was stored as an episode, which add, import and the tools refuse.
 * Checked here, where every surface's episodes become memories; the
 * consolidator blocks (and audits) the refused event and keeps the rest.
 */
function assertEpisodeFits(key: string, text: string): void {
  if (!exceedsChars(text, MAX_TEXT_CHARS)) return;
  const chars = charCount(text);
  throw new MnemosError('limit_exceeded', `the episode of blackboard key "${key}" would be ${chars} characters; a memory holds at most ${MAX_TEXT_CHARS}`, { field: 'value', blackboardKey: key, chars, max: MAX_TEXT_CHARS });
}
