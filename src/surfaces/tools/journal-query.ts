import { z } from 'zod';
import { QUERY_KINDS } from '../../journal/query.ts';
import { defineTool } from './tool.ts';

/** Caps keep one call's answer small enough for a context window whatever the journal holds. */
export const JOURNAL_QUERY_MAX_LIMIT = 50;

export const journalQuery = defineTool({
  name: 'journal_query',
  description:
    "Look up whole MemoryCluster records in the owner's MeTTa journal (medium-term memory: meetings, commitments, decisions, beliefs). by: id (any mention of an identifier), cluster (cluster id), type (a declaration such as Commitment or DerivedBelief), about (an About topic), status (current status, superseded status events left out), role (EpistemicRole). Returns canonical record text in journal order. Read-only; owner only. A store without a journal yet returns no clusters and a message.",
  readOnly: true,
  ownerOnly: true,
  input: z
    .object({
      by: z.enum(QUERY_KINDS as unknown as [string, ...string[]]).describe('what value matches: id, cluster, type, about, status or role'),
      value: z.string().min(1).max(512).describe('the identifier, cluster id, predicate, topic, status or role to match'),
      limit: z.number().int().min(1).max(JOURNAL_QUERY_MAX_LIMIT).default(20).describe(`at most this many clusters (1..${JOURNAL_QUERY_MAX_LIMIT}, default 20)`),
    })
    .strict(),
  async run(q, { memory }) {
    return memory.journalQuery({ by: q.by as (typeof QUERY_KINDS)[number], value: q.value, limit: q.limit });
  },
});
