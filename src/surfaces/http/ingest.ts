import { z } from 'zod';
import { rememberSchema } from '../../services/inputs.ts';
import { transcriptSchema } from '../../services/ingest-transcript.ts';

/** Bodies of the ingest routes; also the OpenAPI request schemas. */
export function memoriesBodySchema(maxBatch: number) {
  return z.union([
    rememberSchema,
    z.object({ memories: z.array(rememberSchema).min(1).max(maxBatch).describe(`a batch, stored all-or-nothing (at most ${maxBatch})`) }).strict(),
  ]);
}

export const batchEnvelope = (maxBatch: number) => z.object({ memories: z.array(z.unknown()).min(1, 'memories must not be empty').max(maxBatch, `at most ${maxBatch} memories per request`) }).strict();

export { transcriptSchema };
