import { z } from 'zod';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { remember, type RememberResult } from './memories.ts';
import type { RememberInput } from './inputs.ts';
import { isoTime, parseInput, storable } from './validate.ts';
import { assertDistinctTurns } from './import/transcript.ts';

export const MAX_TRANSCRIPT_MESSAGES = 5_000;

export const transcriptSchema = z
  .object({
    sessionId: storable(z.string().min(1).max(256)).describe('identity of the conversation; turns are keyed by session + turn, so posting it again adds nothing'),
    messages: z
      .array(
        z
          .object({
            role: z.string().min(1).max(64).describe('user, assistant, tool, system...'),
            content: z.string().min(1).max(200_000),
            name: z.string().max(256).optional(),
            timestamp: isoTime.optional(),
            turn: z.number().int().min(1).optional().describe('turn number (default: position in the list, from 1)'),
          })
          .strict(),
      )
      .min(1)
      .max(MAX_TRANSCRIPT_MESSAGES),
    agentId: z.string().min(1).max(256).optional(),
  })
  .strict();
export type TranscriptInput = z.input<typeof transcriptSchema>;

/**
 * Stores a conversation: each turn becomes an episode with the exact text,
 * keyed `transcript:<session>#<turn>` like a file import, so re-posting is
 * idempotent and a changed turn becomes a new version.
 */
export async function ingestTranscript(ctx: ServiceContext, p: Principal, input: TranscriptInput): Promise<{ sessionId: string; results: RememberResult[] }> {
  const q = parseInput(transcriptSchema, input, 'transcript');
  assertDistinctTurns(q.messages.map((msg, i) => ({ sessionId: q.sessionId, turn: msg.turn ?? i + 1, where: `messages.${i}` })));
  const inputs: RememberInput[] = q.messages.map((msg, i) => {
    const turn = msg.turn ?? i + 1;
    return {
      text: msg.content,
      type: 'episode',
      origin: 'transcript',
      sessionId: q.sessionId,
      ...(q.agentId ? { agentId: q.agentId } : {}),
      source: { sessionId: q.sessionId, turnStart: turn, turnEnd: turn },
      key: `transcript:${q.sessionId}#${turn}`,
      ...(msg.timestamp ? { validFrom: msg.timestamp } : {}),
      metadata: { role: msg.role, ...(msg.name ? { name: msg.name } : {}) },
    };
  });
  return { sessionId: q.sessionId, results: await remember(ctx, p, inputs, 'supersede') };
}
