import { z } from 'zod';
import { defineTool } from './tool.ts';

export const consolidationStatus = defineTool({
  name: 'consolidation_status',
  description:
    'The memory consolidation job: the last runs and the report of the last completed one (what changed and why: importance moves, forgetting, merges, TTL expiry, rescued memories, graph indexing) and open loops (goals nobody touched for a while). Owner only.',
  ownerOnly: true,
  readOnly: true,
  input: z.object({ limit: z.number().int().min(1).max(50).default(5).describe('how many recent runs to list') }).strict(),
  async run(q, { memory, surfaceParts }) {
    // The timer is the surface's (serve, mcp): its period, or null when it runs none.
    const timer = surfaceParts?.find((p) => p.part === 'consolidation');
    const status = await memory.lifecycle.status(q.limit);
    return { ...status, intervalMs: timer?.state === 'on' ? (timer.everyMs ?? null) : null };
  },
});
