import { z } from 'zod';
import { defineTool } from './tool.ts';

export const memoryForget = defineTool({
  name: 'memory_forget',
  description:
    'Forget a memory completely, in two steps. Step 1: {id, reason?} returns a preview (the exact text and every place it would be removed from) and a token; nothing changes. Step 2: {token} with that token does it. Only call step 2 after the user agreed to exactly what the preview shows.',
  input: z
    .object({
      id: z.string().min(1).max(64).optional().describe('step 1: the memory to forget'),
      reason: z.string().min(1).max(500).optional().describe('step 1: why (kept in the tombstone, never the text)'),
      token: z.string().min(1).max(200).optional().describe('step 2: the token from the preview'),
    })
    .strict()
    .refine((v) => (v.id === undefined) !== (v.token === undefined), { message: 'give either id (to preview) or token (to confirm): one of them, not both', path: ['id'] })
    // The tombstone keeps the preview's reason: one given with the token was dropped while the confirm answered success.
    .refine((v) => v.token === undefined || v.reason === undefined, {
      message: 'reason belongs to step 1: the confirm keeps the reason its preview was given; to record another, preview again with {id, reason}',
      path: ['reason'],
    }),
  async run(q, { memory }) {
    if (q.token !== undefined) return { step: 'confirmed', ...(await memory.confirmForget(q.token)) };
    const preview = await memory.forget(q.id!, q.reason ?? 'requested by an agent');
    return { step: 'preview', preview, next: 'nothing changed yet; call memory_forget with {token} to forget exactly this' };
  },
});
