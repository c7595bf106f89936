import { z } from 'zod';
import { defineTool } from './tool.ts';

export const memoryStatus = defineTool({
  name: 'memory_status',
  description: 'Memory pipeline health: counts by type and lifecycle, store size, schema version, last consolidation, what is configured, and the embedding model in use (whether the built-in one is trained yet, how many memories carry its vectors). Counts cover only what you can see.',
  readOnly: true,
  input: z.object({}).strict(),
  async run(_q, { memory, surfaceParts }) {
    const s = await memory.status();
    const self = memory.selfState({ parts: surfaceParts });
    return { ...s, lastConsolidation: null, configured: Object.fromEntries(self.parts.map((p) => [p.part, p.state])) };
  },
});
