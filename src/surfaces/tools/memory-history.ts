import { z } from 'zod';
import { defineTool } from './tool.ts';

export const memoryHistory = defineTool({
  name: 'memory_history',
  description: 'Every version of a memory and every audit entry about it (who changed what, when). After a forget, only the tombstone remains: ids, hashes, when, who, why.',
  readOnly: true,
  input: z.object({ id: z.string().min(1).max(64).describe('any version id of the memory') }).strict(),
  async run(q, { memory }) {
    return memory.history(q.id);
  },
});
