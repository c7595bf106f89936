import { z } from 'zod';
import { MAX_SOURCE_FROM, MAX_SOURCE_LINES } from '../../services/source-lines.ts';
import { citation } from './citation.ts';
import { defineTool } from './tool.ts';

export const memoryGet = defineTool({
  name: 'memory_get',
  description:
    'Read one memory by id ({id}), or the exact lines of a source file after a search ({path, from?, lines?}). Only files cited as the source of a memory you can see can be read, and only their cited lines. Reading a memory by id recalls it: it is activated and strengthened a little, and labileUntil says until when it stays labile (reconsolidation); memory_edit changes it as a new version either way.',
  input: z
    .object({
      id: z.string().min(1).max(64).optional().describe('memory id from a search result'),
      path: z.string().min(1).max(4096).optional().describe('source.path from a search result'),
      from: z.number().int().min(1).max(MAX_SOURCE_FROM).optional().describe('first line to read, 1-based (default 1)'),
      lines: z.number().int().min(1).max(MAX_SOURCE_LINES).optional().describe(`number of lines (default 200, at most ${MAX_SOURCE_LINES})`),
    })
    .strict()
    .refine((v) => (v.id === undefined) !== (v.path === undefined), { message: 'give exactly one of id or path', path: ['id'] })
    // By id the whole memory is answered: from and lines were dropped, and the caller took the text for the lines it asked.
    .superRefine((v, ctx) => {
      if (v.id === undefined) return;
      for (const field of ['from', 'lines'] as const) {
        if (v[field] !== undefined) ctx.addIssue({ code: 'custom', path: [field], message: `${field} reads lines of a source file: give it with path (a search result's source.path), not with id, which answers the whole memory` });
      }
    }),
  async run(q, { memory }) {
    if (q.id !== undefined) {
      const m = await memory.get(q.id);
      // An old version is history, not a recall; the current one opens the reconsolidation window.
      if (m.supersededAt !== null) return { memory: m, source: citation(m) };
      const r = await memory.lifecycle.recall(m.id);
      return { memory: r.memory, source: citation(r.memory), labileUntil: r.labileUntil };
    }
    return memory.sourceLines({ path: q.path!, ...(q.from !== undefined ? { from: q.from } : {}), ...(q.lines !== undefined ? { lines: q.lines } : {}) });
  },
});
