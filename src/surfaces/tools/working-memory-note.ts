import { z } from 'zod';
import { MEMORY_TYPES, type MemoryType } from '../../domain/memory.ts';
import { BLANK, MAX_TEXT_CHARS, notBlank } from '../../services/inputs.ts';
import { storable } from '../../services/validate.ts';
import { defineTool } from './tool.ts';

/** The seed's note types, mapped onto ours so agents used to them keep working. */
const SEED_TYPES: Record<string, MemoryType> = { experience: 'episode', directive: 'preference', world_fact: 'fact', mental_model: 'insight' };
const NOTE_TYPES = ['experience', 'directive', 'world_fact', 'mental_model', ...MEMORY_TYPES] as const;

export const workingMemoryNote = defineTool({
  name: 'working_memory_note',
  description:
    'Save something worth keeping as a memory: a decision, a fact learned, an instruction from the user, a lesson. Returns the new memory id. For corrections of settled facts prefer a pin when that tool exists.',
  input: z
    .object({
      note: storable(z.string().min(1, 'note must not be empty').max(MAX_TEXT_CHARS)).refine(notBlank, BLANK).describe('the note, self-contained (it will be read later without this conversation)'),
      importance: z.number().min(0).max(1).default(0.7).describe('0..1, default 0.7'),
      type: z.enum(NOTE_TYPES).default('general').describe('experience, directive, world_fact, mental_model, or one of the memory types (fact, preference, ...)'),
    })
    .strict(),
  async run(q, { memory }) {
    const type = SEED_TYPES[q.type] ?? (q.type as MemoryType);
    const r = await memory.remember({ text: q.note, importance: q.importance, type, origin: 'tool', tags: ['working_memory'] });
    return { ...r, type, importance: q.importance };
  },
});
