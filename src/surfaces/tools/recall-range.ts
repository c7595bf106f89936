import { z } from 'zod';
import { MnemosError } from '../../domain/errors.ts';
import { RECALL_MAX_CHARS, recallRangeSchema, type RecallRangeInput } from '../../services/recall-range.ts';
import { eitherName } from './aliases.ts';
import { defineTool } from './tool.ts';

/**
 * The service's input plus the names the original tool set uses for the same
 * things (shared/reference/agent-tools.md: "they should not rename these"):
 * an agent used to it calls `{session_id, max_chars, entries, include_tool_results}`
 * and was refused as "Unrecognized key".
 */
const input = recallRangeSchema
  .extend({
    sessionId: z.string().min(1).max(256).optional().describe('the conversation (transcript session) to read from; required (or session_id)'),
    maxChars: z.number().int().min(1).max(RECALL_MAX_CHARS).optional().describe(`cap on returned text (default 12000, at most ${RECALL_MAX_CHARS})`),
    session_id: z.string().min(1).max(256).optional().describe('the same as sessionId (the original tool set\'s name)'),
    max_chars: z.number().int().min(1).max(RECALL_MAX_CHARS).optional().describe('the same as maxChars (the original tool set\'s name)'),
    entries: z
      .object({ from: z.number().int().min(1).describe('first turn, from 1'), to: z.number().int().min(1).describe('last turn, inclusive') })
      .strict()
      .optional()
      .describe('the same as turns, as {from, to} (the original tool set\'s form)'),
    include_tool_results: z.boolean().optional().describe('the same as includeToolResults (the original tool set\'s name)'),
  })
  .strict();

export const recallRange = defineTool({
  name: 'recall_range',
  description:
    'Bring back the exact text of earlier conversation turns of one session (e.g. turns "3-7"), optionally only turns containing some text. No summarising, no model call; bounded by maxChars (default 12000, at most 60000). When truncated, nextTurn says where to continue, and nextChar where inside that turn (pass it as fromChar). The original tool set\'s names session_id, max_chars, entries {from, to} and include_tool_results are accepted too.',
  readOnly: true,
  input,
  async run(q, { memory }) {
    return memory.recallRange(unalias(q));
  },
});

function unalias(q: z.output<typeof input>): RecallRangeInput {
  const { session_id, max_chars, entries, include_tool_results, sessionId, maxChars, turns, ...rest } = q;
  const session = eitherName(sessionId, session_id, ['sessionId', 'session_id']);
  if (session === undefined) throw new MnemosError('validation_failed', 'sessionId: required (the session to read from)', { field: 'sessionId' });
  if (entries && entries.to < entries.from) throw new MnemosError('validation_failed', 'entries: to must not be before from', { field: 'entries' });
  const range = eitherName(turns, entries ? `${entries.from}-${entries.to}` : undefined, ['turns', 'entries']);
  const chars = eitherName(maxChars, max_chars, ['maxChars', 'max_chars']);
  return {
    ...rest,
    sessionId: session,
    ...(range !== undefined ? { turns: range } : {}),
    ...(chars !== undefined ? { maxChars: chars } : {}),
    includeToolResults: include_tool_results ?? rest.includeToolResults,
  };
}
