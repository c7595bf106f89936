import { z } from 'zod';
import { MnemosError } from '../../domain/errors.ts';
import type { RememberInput } from '../inputs.ts';
import { isoTime } from '../validate.ts';
import { textLines, type Line } from './file-lines.ts';

/**
 * Conversation transcripts: JSON (an array of messages, or {sessionId,
 * messages}) or JSONL (one message per line). Each turn becomes an episode
 * whose text is the message content exactly, keyed by session + turn so a
 * re-import adds nothing.
 */
const messageSchema = z
  .object({
    role: z.string().min(1),
    content: z.string(),
    name: z.string().optional(),
    timestamp: isoTime.optional(),
    sessionId: z.string().min(1).optional(),
    session_id: z.string().min(1).optional(),
    turn: z.number().int().min(1).optional(),
  })
  .passthrough();

type Message = z.infer<typeof messageSchema>;

export interface TranscriptTurn {
  sessionId: string;
  turn: number;
  message: Message;
  line: number;
}

function parseMessage(value: unknown, where: string): Message {
  const r = messageSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    throw new MnemosError('validation_failed', `${where}: ${i.path.join('.') || 'message'}: ${i.message} (a message needs role and content)`, { field: i.path.join('.') });
  }
  return r.data;
}

/** `source`: the file's text, or for JSONL its lines as they are read. */
export function parseTranscript(source: string | Iterable<Line>, format: 'json' | 'jsonl', fallbackSession: string, file: string): TranscriptTurn[] {
  const raw: { value: unknown; line: number }[] = [];
  let fileSession: string | undefined;
  if (format === 'jsonl') {
    for (const { text, line } of typeof source === 'string' ? textLines(source) : source) {
      if (text.trim() === '') continue;
      try {
        raw.push({ value: JSON.parse(text), line });
      } catch (err) {
        throw new MnemosError('validation_failed', `${file}:${line}: not valid JSON (${(err as Error).message})`, { line });
      }
    }
  } else if (typeof source !== 'string') {
    throw new MnemosError('internal', 'a JSON transcript is parsed from its whole text');
  } else {
    let doc: unknown;
    try {
      doc = JSON.parse(source);
    } catch (err) {
      throw new MnemosError('validation_failed', `${file}: not valid JSON (${(err as Error).message})`);
    }
    const obj = doc as { messages?: unknown; sessionId?: unknown; session_id?: unknown };
    const messages = Array.isArray(doc) ? doc : obj?.messages;
    if (!Array.isArray(messages)) throw new MnemosError('validation_failed', `${file}: expected an array of messages or {"sessionId", "messages": [...]}`);
    fileSession = typeof obj.sessionId === 'string' ? obj.sessionId : typeof obj.session_id === 'string' ? obj.session_id : undefined;
    messages.forEach((value, i) => raw.push({ value, line: i + 1 }));
  }
  const counters = new Map<string, number>();
  const turns = raw.map(({ value, line }) => {
    const where = format === 'jsonl' ? `${file}:${line}` : `${file}: message ${line}`;
    const message = parseMessage(value, where);
    const sessionId = message.sessionId ?? message.session_id ?? fileSession ?? fallbackSession;
    const turn = message.turn ?? (counters.get(sessionId) ?? 0) + 1;
    counters.set(sessionId, turn);
    return { sessionId, turn, message, line, where };
  });
  assertDistinctTurns(turns);
  return turns;
}

/**
 * Two messages of one session under one turn number would share a source key,
 * and the second would silently replace the first as its new version.
 */
export function assertDistinctTurns(turns: readonly { sessionId: string; turn: number; where: string }[]): void {
  const seen = new Map<string, string>();
  for (const t of turns) {
    const id = `${t.sessionId}#${t.turn}`;
    const first = seen.get(id);
    if (first !== undefined) {
      throw new MnemosError('validation_failed', `${t.where}: turn ${t.turn} of session "${t.sessionId}" is already given by ${first}; each turn of a session needs its own number`, {
        field: 'turn',
        sessionId: t.sessionId,
        turn: t.turn,
      });
    }
    seen.set(id, t.where);
  }
}

export function transcriptInputs(turns: TranscriptTurn[], file: string): RememberInput[] {
  return turns.map(({ sessionId, turn, message }) => ({
    text: message.content,
    type: 'episode',
    origin: 'transcript',
    sessionId,
    source: { sessionId, turnStart: turn, turnEnd: turn, path: file },
    key: `transcript:${sessionId}#${turn}`,
    ...(message.timestamp ? { validFrom: message.timestamp } : {}),
    metadata: { role: message.role, ...(message.name ? { name: message.name } : {}) },
  }));
}

/** True when a JSONL file's first record looks like a chat message rather than a memory. */
export function looksLikeTranscript(firstRecord: unknown): boolean {
  const r = firstRecord as Record<string, unknown> | null;
  return !!r && typeof r === 'object' && typeof r.role === 'string' && typeof r.content === 'string' && !('text' in r);
}
