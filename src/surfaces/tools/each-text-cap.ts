import { z } from 'zod';
import { MAX_ANSWER_CHARS } from '../../domain/text-budget.ts';

/**
 * `maxCharsEach`, the per-memory text cap of the tools that answer several memories (memory_list, memory_search):
 * one field, so it is validated, worded and documented (OpenAPI is made from it) the same on each. Optional, so an
 * existing client's answers are what they were: `maxChars` alone still spends one budget in page order.
 */
export const maxCharsEachField = z
  .number()
  .int()
  .min(1)
  .max(MAX_ANSWER_CHARS)
  .optional()
  .describe(
    `at most this many characters of each memory's text (at most ${MAX_ANSWER_CHARS}; default: no cap of its own), so one long memory cannot use up maxChars and leave the later ones with no text; maxChars still bounds the whole answer. A cut text is marked truncated: memory_get {id} gives it whole`,
  );
