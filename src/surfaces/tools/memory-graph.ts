import { z } from 'zod';
import { isoTime } from '../../services/validate.ts';
import { defineTool } from './tool.ts';

export const memoryGraph = defineTool({
  name: 'memory_graph',
  description:
    'The knowledge graph around a person, place, organisation, handle or title: the entity (aliases, first and last seen, mentions), its relations over time (which held when; a relation replaced by a newer one shows its end and successor), its one-hop neighbours and the memories that evidence it. Give asOf (ISO time) to see what held then. Only what you may see.',
  readOnly: true,
  input: z
    .object({
      name: z.string().min(1).max(200).describe('the entity name, alias or @handle'),
      asOf: isoTime.optional().describe('valid-time "as of": what held at this ISO time'),
    })
    .strict(),
  async run(q, { memory }) {
    return memory.lifecycle.entity(q.name, q.asOf);
  },
});
