import { z } from 'zod';
import type { Mnemos } from '../library/open-memory.ts';
import { defineTool } from './tool.ts';

export const memoryStatus = defineTool({
  name: 'memory_status',
  description:
    'Memory pipeline health: counts by type and lifecycle, store size, schema version, last consolidation (owner only), what is configured, and the embedding model in use (whether the built-in one is trained yet, how many memories carry its vectors). Counts cover only what you can see.',
  readOnly: true,
  // `action` is the original tool set's (status or sync); there is nothing to sync here, and the answer says so.
  input: z
    .object({ action: z.enum(['status', 'sync']).default('status').describe('status (the default); sync is accepted for the original tool set and has nothing to do: every write is in the store when it is acknowledged') })
    .strict(),
  async run(q, { memory, surfaceParts }) {
    const s = await memory.status();
    const self = memory.selfState({ parts: surfaceParts });
    return {
      ...s,
      lastConsolidation: await lastConsolidation(memory),
      configured: Object.fromEntries(self.parts.map((p) => [p.part, p.state])),
      ...(q.action === 'sync' ? { sync: 'nothing to sync: every memory is in the store, with its full-text entry, when its write is acknowledged' } : {}),
    };
  },
});

/**
 * When the last consolidation finished and what it changed, for the owner
 * (consolidation reports are the owner's: they name memories and why they
 * moved); null for others, and before any run has finished.
 */
async function lastConsolidation(memory: Mnemos) {
  if (memory.principal.role !== 'owner') return null;
  const { last } = await memory.lifecycle.status(20);
  return last ? { jobId: last.jobId, finishedAt: last.finishedAt, durationMs: last.durationMs, counts: last.counts } : null;
}
