import { recallRangeSchema } from '../../services/recall-range.ts';
import { defineTool } from './tool.ts';

export const recallRange = defineTool({
  name: 'recall_range',
  description:
    'Bring back the exact text of earlier conversation turns of one session (e.g. turns "3-7"), optionally only turns containing some text. No summarising, no model call; bounded by maxChars (default 12000, at most 60000). When truncated, nextTurn says where to continue, and nextChar where inside that turn (pass it as fromChar).',
  readOnly: true,
  input: recallRangeSchema,
  async run(q, { memory }) {
    return memory.recallRange(q);
  },
});
