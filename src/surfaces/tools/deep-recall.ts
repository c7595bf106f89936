import { z } from 'zod';
import { deepRecallSchema } from '../../services/deep-recall.ts';
import { eitherName } from './aliases.ts';
import { defineTool } from './tool.ts';

/** The service's input plus the original tool set's name for includeMemory (shared/reference/agent-tools.md). */
const input = deepRecallSchema
  .extend({
    includeMemory: z.boolean().optional().describe('also search long-term memories that are not conversation turns, listed apart under memories (default false)'),
    include_memory: z.boolean().optional().describe('the same as includeMemory (the original tool set\'s name)'),
  })
  .strict();

export const deepRecall = defineTool({
  name: 'deep_recall',
  description:
    "Search the whole conversation history (current session, the 5 most recent sessions, or all sessions) for questions that span many conversations; returns matching turns with neighbouring turns, and with includeMemory (or include_memory) other memories too. Owner only. Runs Mnemos's own bounded query, never code you supply.",
  readOnly: true,
  ownerOnly: true,
  input,
  async run(q, { memory }) {
    const { include_memory, includeMemory, ...rest } = q;
    return memory.deepRecall({ ...rest, includeMemory: eitherName(includeMemory, include_memory, ['includeMemory', 'include_memory']) ?? false });
  },
});
