import { z } from 'zod';
import { assembleContext } from '../../services/context-assembly.ts';
import { queryText } from '../../services/inputs.ts';
import { citation } from './citation.ts';
import { defineTool } from './tool.ts';

export const memoryContext = defineTool({
  name: 'memory_context',
  description:
    'The most relevant memories for a query, packed whole into a token budget for your prompt, each followed by its citation. Items that do not fit are listed as skipped, never cut. Settled ledger facts lead when they match.',
  readOnly: true,
  input: z
    .object({
      query: queryText(4000).describe('what the context is for'),
      maxTokens: z.number().int().min(1).max(32_000).default(1000).describe('token budget (estimated as about 4 characters per token)'),
    })
    .strict(),
  async run(q, { memory }) {
    return assembleContext(memory.context, memory.principal, { query: q.query, maxTokens: q.maxTokens }, (m) => citation(m).cite);
  },
});
