import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { remember, type RememberResult } from './memories.ts';
import { BLANK, MAX_TEXT_CHARS, notBlank, type RememberInput } from './inputs.ts';
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
            // Checked here too, so a refusal names messages.N.content rather than the memory it becomes.
            content: storable(z.string().min(1).max(MAX_TEXT_CHARS)).refine(notBlank, BLANK),
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
 * idempotent; a turn that already holds another message is a conflict.
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
  try {
    // A turn that already holds another message is refused, never replaced: an agent posting each new
    // message on its own numbers it 1 every time, and supersede silently replaced the conversation so far.
    return { sessionId: q.sessionId, results: await remember(ctx, p, inputs, 'conflict') };
  } catch (err) {
    throw turnTaken(err, q.sessionId);
  }
}

/** The store's key conflict, said in a conversation's terms. */
function turnTaken(err: unknown, sessionId: string): unknown {
  if (!MnemosError.is(err, 'conflict') || typeof err.details?.sourceKey !== 'string') return err;
  const turn = Number(/#(\d+)$/.exec(err.details.sourceKey)?.[1]);
  return new MnemosError(
    'conflict',
    `turn ${turn} of session "${sessionId}" already holds a different message (memory ${String(err.details.existingId)}); nothing was written. Number new messages after the session's last turn (recall_range shows it), or post the conversation again as it was`,
    { ...err.details, field: 'turn', turn },
  );
}
