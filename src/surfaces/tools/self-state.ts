import { z } from 'zod';
import { defineTool } from './tool.ts';

export const selfStateTool = defineTool({
  name: 'self_state',
  description:
    'Which parts of the memory engine are on, off or unavailable right now, why, and the setting that changes each. Call it before saying that a part (vector search, consolidation, dreams...) is running.',
  readOnly: true,
  input: z.object({}).strict(),
  async run(_q, { memory, surfaceParts }) {
    return memory.selfState({ parts: surfaceParts });
  },
});
