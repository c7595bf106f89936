import { z } from 'zod';
import { MEMORY_TYPES } from '../../domain/memory.ts';
import { isoTime } from '../../services/validate.ts';
import { boundsInOrder, MAX_SEARCH_OFFSET, queryText } from '../../services/inputs.ts';
import { DEFAULT_ANSWER_CHARS, MAX_ANSWER_CHARS, TextBudget, withinBudget } from '../../domain/text-budget.ts';
import { citation } from './citation.ts';
import { maxCharsEachField } from './each-text-cap.ts';
import { defineTool } from './tool.ts';

export const MAX_SEARCH_RESULTS = 50;
export const MAX_SEARCH_CHARS = MAX_ANSWER_CHARS;

export const memorySearch = defineTool({
  name: 'memory_search',
  description:
    'Search long-term memory for prior work, decisions, people, preferences and dates. Returns ranked results with id, text, score, a source citation (file lines or transcript turns) and why each matched, and hasMore with nextOffset for the next page. An empty result says exactly what was searched; that is not proof something never happened. Follow up with memory_get for exact source lines.',
  readOnly: true,
  input: z
    .object({
      query: queryText(4000).describe('what to look for, in plain words'),
      maxResults: z.number().int().min(1).max(MAX_SEARCH_RESULTS).default(10).describe(`how many results (default 10, at most ${MAX_SEARCH_RESULTS})`),
      offset: z
        .number()
        .int()
        .min(0)
        .max(MAX_SEARCH_OFFSET)
        .default(0)
        .describe(
          `skip this many results first, for the next page (at most ${MAX_SEARCH_OFFSET}): pass the previous answer's nextOffset with the same query and filters. Every page is a slice of one ranking, so pages neither repeat nor skip results while nothing is stored in between; canonical facts come with the first page (offset 0) only`,
        ),
      minScore: z
        .number()
        .min(0)
        .optional()
        .describe('drop results scoring below this. Scores are rank-fusion sums, about 1/61 (0.016) for a first place in one list, so a top result scores roughly 0.016 to 0.05; leave it out unless you know the scale'),
      types: z.array(z.enum(MEMORY_TYPES)).max(MEMORY_TYPES.length).optional().describe('only these memory types'),
      since: isoTime.optional().describe('only memories valid from this ISO time on (inclusive)'),
      until: isoTime.optional().describe('only memories valid before this ISO time (exclusive)'),
      maxChars: z
        .number()
        .int()
        .min(1)
        .max(MAX_SEARCH_CHARS)
        .default(DEFAULT_ANSWER_CHARS)
        .describe(`at most this many characters of memory text in the answer, best results first (default ${DEFAULT_ANSWER_CHARS}, at most ${MAX_SEARCH_CHARS}); a cut text is marked truncated: memory_get {id} gives it whole`),
      maxCharsEach: maxCharsEachField,
    })
    .strict()
    .refine((q) => boundsInOrder(q.since, q.until), { message: 'until must not be before since (since is inclusive, until exclusive)', path: ['until'] }),
  async run(q, { memory }) {
    const r = await memory.search({
      query: q.query,
      limit: q.maxResults,
      offset: q.offset,
      ...(q.minScore !== undefined ? { minScore: q.minScore } : {}),
      filter: { ...(q.types ? { types: q.types } : {}), ...(q.since ? { since: q.since } : {}), ...(q.until ? { until: q.until } : {}) },
    });
    // Texts are bounded in rank order: ten long memories came to megabytes of tool result.
    const budget = new TextBudget(q.maxChars, q.maxCharsEach);
    const results = r.hits.map((h) => ({
      id: h.memory.id,
      ...withinBudget(budget, h.memory.text),
      score: h.score,
      type: h.memory.type,
      validFrom: h.memory.validFrom,
      source: citation(h.memory),
      why: h.why,
    }));
    const note = budget.note('memory_get {id} gives a memory whole');
    return {
      query: r.query,
      // Settled facts from the canonical ledger come before everything else: in front of the first page, not again.
      canonical: q.offset === 0 ? r.ledger : [],
      results,
      offset: q.offset,
      hasMore: r.hasMore,
      // Past the deepest offset a search pages to, more results exist but no page reaches them.
      nextOffset: r.nextOffset,
      searched: r.explain,
      lists: r.explain.lists,
      model: r.explain.vectorModel,
      ...(r.explain.skipped.vector ? { fallback: `keyword only: ${r.explain.skipped.vector}` } : {}),
      ...(note ? { truncated: note } : {}),
    };
  },
});
