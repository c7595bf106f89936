import { deepRecallSchema } from '../../services/deep-recall.ts';
import { defineTool } from './tool.ts';

export const deepRecall = defineTool({
  name: 'deep_recall',
  description:
    "Search the whole conversation history (current session, the 5 most recent sessions, or all sessions) for questions that span many conversations; returns matching turns with neighbouring turns. Owner only. Runs Mnemos's own bounded query, never code you supply.",
  readOnly: true,
  ownerOnly: true,
  input: deepRecallSchema,
  async run(q, { memory }) {
    return memory.deepRecall(q);
  },
});
