import { z } from 'zod';
import { recentEpisodesSchema } from '../../services/cycle/cycle-api.ts';
import { PRIORITIES } from '../../cognition/blackboard-types.ts';
import { defineTool } from './tool.ts';

/** The caller's own blackboard (seed 000 layer 1): ephemeral, per agent, never shared with other principals. */

export const blackboardWrite = defineTool({
  name: 'blackboard_write',
  description:
    'Write an entry to your cognitive blackboard (ephemeral working state). Keys are dotted, e.g. "goal.achieved" or "safety.verification_blocked"; high-salience keys are consolidated into persistent episodes when the cycle sleeps. Writing an existing key supersedes it.',
  input: z
    .object({
      key: z.string().min(1).max(255).describe('dotted key, e.g. "learning.new_association.cats"'),
      value: z.unknown().describe('any JSON value'),
      ttl: z.number().positive().max(30 * 86400).optional().describe('seconds until the entry expires'),
      priority: z.enum(PRIORITIES).optional().describe('eviction priority; critical is never evicted'),
      tags: z.array(z.string().min(1).max(64)).max(16).optional().describe('labels for the entry, at most 16, each 1-64 characters'),
    })
    .strict(),
  async run(q, { memory }) {
    return memory.cycle().write(q.key, q.value ?? null, { ...(q.ttl ? { ttl: q.ttl } : {}), ...(q.priority ? { priority: q.priority } : {}), ...(q.tags ? { tags: q.tags } : {}) });
  },
});

export const blackboardRead = defineTool({
  name: 'blackboard_read',
  description: 'Read the current entry under one blackboard key (null when absent).',
  readOnly: true,
  input: z.object({ key: z.string().min(1).max(255).describe('the dotted key written with blackboard_write') }).strict(),
  async run(q, { memory }) {
    return { entry: await memory.cycle().read(q.key) };
  },
});

export const blackboardQuery = defineTool({
  name: 'blackboard_query',
  description: 'List active blackboard entries whose key matches a glob (fnmatch: * any run, ? one char, [abc] a class), newest last.',
  readOnly: true,
  input: z
    .object({
      pattern: z.string().min(1).max(255).default('*').describe('glob over keys, e.g. "goal.*" (default * = all)'),
      limit: z.number().int().min(1).max(200).default(50).describe('at most this many entries (default 50, at most 200)'),
    })
    .strict(),
  async run(q, { memory }) {
    return { entries: await memory.cycle().query(q.pattern, q.limit) };
  },
});

export const cycleStatus = defineTool({
  name: 'cycle_status',
  description: 'Your cognitive cycle: ticks run, the last tick (phases, timings, module errors), consolidation buffer, blackboard size.',
  readOnly: true,
  input: z.object({}).strict(),
  async run(_q, { memory }) {
    return memory.cycle().status();
  },
});

export const cycleTick = defineTool({
  name: 'cycle_tick',
  description: 'Run one tick of your cognitive cycle now (PERCEPTION ... INTEGRATION, and SLEEP_PHASE when bio_inspired.cognitive_state is SLEEP).',
  input: z.object({}).strict(),
  async run(_q, { memory }) {
    return memory.cycle().tick();
  },
});

export const episodesRecent = defineTool({
  name: 'episodes_recent',
  description: 'Recent consolidated episodes you can see, by salience (defaults: salience >= 0.6, last 24 h, at most 20).',
  readOnly: true,
  input: recentEpisodesSchema,
  async run(q, { memory }) {
    return { episodes: await memory.cycle().recentEpisodes(q) };
  },
});
