import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { remember, type RememberResult } from './memories.ts';
import { BLANK, BLANK_NAME, MAX_TEXT_CHARS, notBlank, type RememberInput } from './inputs.ts';
import { isoTime, parseInput, storable } from './validate.ts';
import { assertDistinctTurns } from './import/transcript.ts';
import { changedSpeakerField, heldUnderKeys } from './import/turn-speakers.ts';

export const MAX_TRANSCRIPT_MESSAGES = 5_000;

export const transcriptSchema = z
  .object({
    sessionId: storable(z.string().min(1).max(256)).refine(notBlank, BLANK_NAME).describe('identity of the conversation; turns are keyed by session + turn, so posting it again adds nothing'),
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
  await assertTurnsKeepSpeakers(ctx, p, inputs);
  try {
    // A turn that already holds another message is refused, never replaced: an agent posting each new
    // message on its own numbers it 1 every time, and supersede silently replaced the conversation so far.
    return { sessionId: q.sessionId, results: await remember(ctx, p, inputs, 'conflict') };
  } catch (err) {
    throw turnTaken(err, q.sessionId);
  }
}

/**
 * A turn posted again with its text but another role (or name) is a
 * conflict, as another text is. The store answers a key holding the same text
 * `unchanged` and compares only the fields every keyed write has (visibility,
 * type, agent: adapters/sql/write-errors.ts); the speaker lives in metadata,
 * which is the transcript's own, so it is checked here, before anything is
 * written. It was `unchanged`, the old role kept and the new one dropped
 * while answering success. A turn forgotten or holding another text is left
 * to the store (`forgotten`, or the turn conflict below).
 */
async function assertTurnsKeepSpeakers(ctx: ServiceContext, p: Principal, inputs: readonly RememberInput[]): Promise<void> {
  const wanted = new Map(inputs.map((i) => [i.key!, i]));
  for (const m of await heldUnderKeys(ctx, p, [...wanted.keys()])) {
    const input = wanted.get(m.sourceKey!)!;
    if (m.text !== input.text) continue;
    // The speaker fields (role, name): a re-post must agree with them to be `unchanged`.
    const field = changedSpeakerField(m.metadata, input.metadata);
    if (field === undefined) continue;
    const turn = input.source!.turnStart!;
    const held = m.metadata[field] === undefined ? `no ${field}` : `${field} ${JSON.stringify(m.metadata[field])}`;
    const asked = input.metadata?.[field] === undefined ? `no ${field}` : JSON.stringify(input.metadata[field]);
    throw new MnemosError(
      'conflict',
      `turn ${turn} of session "${m.sessionId}" already holds this message with ${held}, not ${asked} (memory ${m.id}); nothing was written. Post the turn as it was, or change memory ${m.id} with memory_edit`,
      { field, turn, sessionId: m.sessionId, existingId: m.id, sourceKey: m.sourceKey },
    );
  }
}

/** The store's key conflict, said in a conversation's terms. */
function turnTaken(err: unknown, sessionId: string): unknown {
  if (!MnemosError.is(err, 'conflict') || typeof err.details?.sourceKey !== 'string') return err;
  const turn = Number(/#(\d+)$/.exec(err.details.sourceKey)?.[1]);
  // The same message asking for another agent (or visibility, type): the store's error names that field.
  // Said as "a different message" with field `turn`, it sent the caller renumbering turns that were fine.
  if (typeof err.details.field === 'string') {
    return new MnemosError('conflict', `turn ${turn} of session "${sessionId}": ${err.message}; nothing was written`, { ...err.details, turn });
  }
  return new MnemosError(
    'conflict',
    `turn ${turn} of session "${sessionId}" already holds a different message (memory ${String(err.details.existingId)}); nothing was written. Number new messages after the session's last turn (recall_range shows it), or post the conversation again as it was`,
    { ...err.details, field: 'turn', turn },
  );
}
