import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { Blackboard } from './blackboard.ts';
import type { Clock } from './blackboard-types.ts';
import type { CycleModule, PhaseContext } from './cycle.ts';
import type { EpisodeSource, RetrievedEpisode } from './episode.ts';
import { RETRIEVAL_SOURCE, RETRIEVED_KEY } from './keys.ts';

export interface RetrievalConfig {
  /** Seed: 0.6. */
  minSalience?: number;
  /** Seed: 24. */
  sinceHours?: number;
  /** Seed: 20. */
  limit?: number;
  /** TTL of `memory.retrieved_episodes`, seconds (seed: 100). */
  ttl?: number;
}

export interface RetrievalDeps {
  blackboard: Blackboard;
  /** Retrieval sees only what this principal may read. */
  principal: Principal;
  source: EpisodeSource;
  clock?: Clock;
  config?: RetrievalConfig;
}

/**
 * At PERCEPTION, puts the agent's recent salient episodes on the blackboard
 * (`memory.retrieved_episodes`) for REASONING modules to use.
 */
export class EpisodeRetrieval implements CycleModule {
  readonly name = RETRIEVAL_SOURCE;
  readonly phases = { PERCEPTION: (ctx: PhaseContext) => this.retrieve(ctx.now) };
  private readonly d: RetrievalDeps;
  private readonly minSalience: number;
  private readonly sinceMs: number;
  private readonly limit: number;
  private readonly ttl: number;

  constructor(deps: RetrievalDeps) {
    this.d = deps;
    const c = deps.config ?? {};
    this.minSalience = check(c.minSalience ?? 0.6, 'minSalience', (x) => x >= 0 && x <= 1);
    this.sinceMs = check(c.sinceHours ?? 24, 'sinceHours', (x) => x > 0) * 3_600_000;
    this.limit = check(c.limit ?? 20, 'limit', (x) => Number.isInteger(x) && x >= 1);
    this.ttl = check(c.ttl ?? 100, 'ttl', (x) => x > 0);
  }

  async retrieve(now: number = (this.d.clock ?? Date.now)()): Promise<RetrievedEpisode[]> {
    const since = new Date(now - this.sinceMs).toISOString();
    const found = await this.d.source.recentEpisodes(this.d.principal, { minSalience: this.minSalience, since, limit: this.limit });
    // Enforce the contract here too, so one lax adapter cannot flood the blackboard.
    const episodes = found
      .filter((e) => e.salience >= this.minSalience && e.validFrom >= since)
      .sort((a, b) => b.salience - a.salience || (a.validFrom < b.validFrom ? 1 : a.validFrom > b.validFrom ? -1 : 0))
      .slice(0, this.limit);
    this.d.blackboard.write(RETRIEVED_KEY, episodes, { ttl: this.ttl, sourceModule: RETRIEVAL_SOURCE });
    return episodes;
  }
}

function check(value: number, field: string, ok: (x: number) => boolean): number {
  if (typeof value !== 'number' || !ok(value)) throw new MnemosError('validation_failed', `retrieval ${field} is out of range: ${value}`, { field });
  return value;
}
