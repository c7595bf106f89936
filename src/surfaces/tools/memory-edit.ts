import { z } from 'zod';
import { patchSchema } from '../../services/inputs.ts';
import { defineTool } from './tool.ts';

export const memoryEdit = defineTool({
  name: 'memory_edit',
  description:
    'Change a memory as a new version, in two steps. Step 1: {id, changes} returns a preview (each field from -> to) and a token; nothing changes. Step 2: {token} applies exactly that preview. The old version stays in history.',
  input: z
    .object({
      id: z.string().min(1).max(64).optional().describe('step 1: the memory to change'),
      changes: patchSchema.optional().describe('step 1: the fields to change (text, type, importance, validFrom, validTo, visibility, tags, metadata, expiresAt)'),
      token: z.string().min(1).max(200).optional().describe('step 2: the token from the preview'),
    })
    .strict()
    .refine((v) => (v.token !== undefined ? v.id === undefined && v.changes === undefined : v.id !== undefined && v.changes !== undefined), {
      message: 'give id and changes (to preview) or token (to confirm)',
      path: ['id'],
    }),
  async run(q, { memory }) {
    if (q.token !== undefined) return { step: 'confirmed', ...(await memory.confirmUpdate(q.token)) };
    const preview = await memory.previewUpdate(q.id!, q.changes!);
    return { step: 'preview', preview, next: 'nothing changed yet; call memory_edit with {token} to apply exactly these changes' };
  },
});
