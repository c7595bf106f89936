import { z } from 'zod';
import { boundsInOrder, filterFields, LIST_ORDERS } from '../../services/inputs.ts';
import { DEFAULT_ANSWER_CHARS, MAX_ANSWER_CHARS, TextBudget, withinBudget } from '../../domain/text-budget.ts';
import { maxCharsEachField } from './each-text-cap.ts';
import { defineTool } from './tool.ts';

/**
 * A page is at most this many memories. Each may hold up to 200,000 characters, so a full page could be
 * 20 MB of text: the texts are also bounded by `maxChars`, as memory_search bounds its results.
 */
export const MAX_LIST_PAGE = 100;

/**
 * The filters of `mnemos list`, validated as the library validates them (services/inputs.ts); picked from the
 * fields before their cross checks, which zod 4 will not pick from (it threw at import: no MCP, no HTTP server).
 */
const listFilters = filterFields.pick({ types: true, tags: true, lifecycles: true, since: true, until: true, asOf: true, knownAt: true, sessionId: true }).shape;

export const memoryList = defineTool({
  name: 'memory_list',
  description:
    'Page through the memories you can see, newest first (as `mnemos list`), with optional filters; no query and no ranking (use memory_search for that). Each page has hasMore and, unless ordered by salience, nextCursor: pass it back as cursor with the same order and filters for the next page, which neither skips nor repeats memories stored in between. Listing is not a recall: nothing is strengthened. Texts are bounded by maxChars in page order, and each by maxCharsEach when given; a cut text is marked truncated (memory_get {id} gives it whole) and paging is unchanged by it.',
  readOnly: true,
  input: z
    .object({
      limit: z.number().int().min(1).max(MAX_LIST_PAGE).default(20).describe(`memories per page (default 20, at most ${MAX_LIST_PAGE})`),
      offset: z.number().int().min(0).default(0).describe('skip this many first (paging by offset; cursor is steadier)'),
      cursor: z.string().min(1).max(512).optional().describe('nextCursor of the previous page; give the same order and filters, and no offset'),
      order: z.enum(LIST_ORDERS).default('recorded_desc').describe('recorded_* by when stored, valid_* by when true in the world, salience_desc (offset paging only)'),
      ...listFilters,
      types: listFilters.types.describe('only these memory types'),
      tags: listFilters.tags.describe('only memories with any of these tags'),
      lifecycles: listFilters.lifecycles.describe('only these lifecycles (default: the live ones, not archived or expired)'),
      sessionId: listFilters.sessionId.describe('only memories of this session'),
      maxChars: z
        .number()
        .int()
        .min(1)
        .max(MAX_ANSWER_CHARS)
        .default(DEFAULT_ANSWER_CHARS)
        .describe(`at most this many characters of memory text in the page, in page order (default ${DEFAULT_ANSWER_CHARS}, at most ${MAX_ANSWER_CHARS}); a cut text is marked truncated: memory_get {id} gives it whole`),
      maxCharsEach: maxCharsEachField,
    })
    .strict()
    // Named as the caller sent it (`until`), not as the library's nested `filter.until`.
    .refine((q) => boundsInOrder(q.since, q.until), { message: 'until must not be before since (since is inclusive, until exclusive)', path: ['until'] }),
  async run(q, { memory }) {
    const { limit, offset, cursor, order, maxChars, maxCharsEach, ...filter } = q;
    const page = await memory.list({ limit, offset, order, filter, ...(cursor !== undefined ? { cursor } : {}) });
    // Only texts are cut, never the page: every memory read stays in items (a cut one keeps its id), and
    // hasMore and nextCursor are the library's, made from the whole memories, so no memory is skipped.
    const budget = new TextBudget(maxChars, maxCharsEach);
    const items = page.items.map((m) => ({ ...m, ...withinBudget(budget, m.text) }));
    const note = budget.note('memory_get {id} gives a memory whole');
    return { ...page, items, ...(note ? { truncated: note } : {}) };
  },
});
