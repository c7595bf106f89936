import { stateDir } from '../state-dir.ts';
import type { BlackboardEntry, Priority } from '../../cognition/blackboard-types.ts';
import { z } from 'zod';
import { parseInput } from '../validate.ts';
import { MnemosError } from '../../domain/errors.ts';
import { charCount, exceedsChars } from '../../domain/unicode.ts';
import { MAX_TEXT_CHARS } from '../inputs.ts';
import type { Principal } from '../../domain/principal.ts';
import type { ServiceContext } from '../context.ts';
import { CycleRegistry } from './cycle-registry.ts';
import { StoreEpisodes } from './store-episodes.ts';

/** The engine's one cycle registry, created on first use (never at import or open). */
export function cycleRegistry(ctx: ServiceContext): CycleRegistry {
  if (!ctx.cycles) {
    ctx.cycles = new CycleRegistry(ctx.store, { logDir: stateDir(ctx.store.location) });
  }
  return ctx.cycles;
}

const KEY_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,254}$/;

function checkKey(key: string): void {
  if (!KEY_RE.test(key)) throw new MnemosError('validation_failed', `blackboard key "${key}" must be dotted words (letters, digits, _ . : -), at most 255 characters`, { field: 'key' });
}

/**
 * An entry the SLEEP phase consolidates becomes an episode whose text is
 * `<key> = <json value>`, held to a memory's text limit like any other: a
 * 300,000-character value became an episode past the limit (and a safety one
 * is read-only). Checked when the entry is written, as the value is JSON.
 */
function checkEpisodeSize(key: string, value: unknown): void {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch {
    return; // not JSON (a cycle, a BigInt, too deep): the blackboard's own check refuses it with its reason
  }
  if (json !== undefined && exceedsChars(`${key}${json}`, MAX_TEXT_CHARS - 3)) {
    throw new MnemosError('limit_exceeded', `blackboard value of "${key}" is ${charCount(json)} characters as JSON; with its key it must fit a memory's ${MAX_TEXT_CHARS}`, { field: 'value' });
  }
}

export const recentEpisodesSchema = z
  .object({
    minSalience: z.number().min(0).max(1).default(0.6).describe('only episodes at least this salient, 0-1 (default 0.6)'),
    sinceHours: z.number().positive().max(24 * 3650).default(24).describe('only episodes of the last this many hours (default 24)'),
    limit: z.number().int().min(1).max(100).default(20).describe('at most this many episodes (default 20, at most 100)'),
  })
  .strict();

/**
 * An entry as the tools return it. `createdAt` and `expiresAt` are epoch
 * milliseconds (the blackboard's own clock) and stay so, as callers rely on
 * them; `createdAtIso` and `expiresAtIso` give the same instants in ISO 8601,
 * the form every other tool uses for times.
 */
function view(e: BlackboardEntry) {
  return {
    id: e.id,
    key: e.key,
    value: e.value,
    priority: e.priority,
    status: e.status,
    sourceModule: e.sourceModule,
    tags: e.tags,
    createdAt: e.createdAt,
    expiresAt: e.expiresAt,
    createdAtIso: new Date(e.createdAt).toISOString(),
    expiresAtIso: e.expiresAt === null ? null : new Date(e.expiresAt).toISOString(),
  };
}

/**
 * The cognitive cycle of one principal (its agent), as the surfaces see it:
 * its blackboard, its tick, its status and its recent episodes.
 */
export class CycleApi {
  constructor(
    private readonly ctx: ServiceContext,
    private readonly p: Principal,
  ) {}

  private agent() {
    return cycleRegistry(this.ctx).get(this.p);
  }

  async write(key: string, value: unknown, opts: { ttl?: number; priority?: Priority; tags?: string[] } = {}) {
    checkKey(key);
    checkEpisodeSize(key, value);
    const a = await this.agent();
    const entry = a.blackboard.write(key, value as never, { ...opts, sourceModule: key.split('.')[0]! });
    try {
      // A safety write is acknowledged only once its event is in the durable log.
      await a.consolidator.ensureDurable(entry.id);
    } catch (err) {
      if (a.blackboard.read(key)?.id === entry.id) a.blackboard.retract(key);
      throw err;
    }
    return view(entry);
  }

  async read(key: string) {
    checkKey(key);
    const e = (await this.agent()).blackboard.read(key);
    return e ? view(e) : null;
  }

  async query(pattern: string, limit: number) {
    return (await this.agent()).blackboard.query(pattern, { limit }).map(view);
  }

  async tick() {
    const r = await cycleRegistry(this.ctx).tick(this.p);
    return r;
  }

  async status() {
    const a = await this.agent();
    return { agent: a.key, ticks: a.ticks, lastTick: a.lastTick, consolidator: a.consolidator.stats(), blackboard: a.blackboard.stats(), cycle: a.cycle.stats() };
  }

  async recentEpisodes(input: { minSalience?: number; sinceHours?: number; limit?: number } = {}) {
    // The episodes_recent tool's own schema and defaults, for library callers too (a missing sinceHours was an Invalid Date).
    const q = parseInput(recentEpisodesSchema, input ?? {}, 'recent episodes request');
    return new StoreEpisodes(this.ctx.store).recentEpisodes(this.p, { minSalience: q.minSalience, since: new Date(this.ctx.now() - q.sinceHours * 3600_000).toISOString(), limit: q.limit });
  }
}
