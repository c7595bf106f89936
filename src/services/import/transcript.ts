import { z } from 'zod';
import { MnemosError } from '../../domain/errors.ts';
import { BLANK, MAX_TEXT_CHARS, notBlank, type RememberInput } from '../inputs.ts';
import { isoTime, storable } from '../validate.ts';
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
    // The rules of a memory's text, checked here so a bad one is reported as the message's content, at its line.
    content: storable(z.string().min(1, 'content must not be empty').max(MAX_TEXT_CHARS, `content is limited to ${MAX_TEXT_CHARS} characters`)).refine(notBlank, BLANK),
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
  /** `file:line` (JSONL) or `file: message N` (JSON), for errors. */
  where: string;
}

/** `at`: where the message is, for details: `{ line }` in JSONL, `{ message }` (its position from 1) in a JSON transcript. */
function parseMessage(value: unknown, where: string, at: Record<string, number>): Message {
  const content = (value as { content?: unknown } | null)?.content;
  if (content === null || Array.isArray(content)) {
    // OpenAI-style messages (content null beside tool_calls, or a list of parts): what they mean as one
    // memory's text is not obvious, so they are refused by name rather than turned into some text.
    throw new MnemosError('validation_failed', `${where}: content must be a string (null or an array of parts is not supported)`, { field: 'content', ...at });
  }
  const r = messageSchema.safeParse(value);
  if (!r.success) {
    const i = r.error.issues[0]!;
    // The hint is for a record that is not a message at all, or lacks one of the two fields; not for an empty content.
    const missing = i.path.length === 0 || (i.path.length === 1 && typeof value === 'object' && value !== null && !(String(i.path[0]) in value));
    throw new MnemosError('validation_failed', `${where}: ${i.path.join('.') || 'message'}: ${i.message}${missing ? ' (a message needs role and content)' : ''}`, { field: i.path.join('.'), ...at });
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
    const message = parseMessage(value, where, format === 'jsonl' ? { line } : { message: line });
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

/** Each input with the line (JSONL) or message number (JSON) it came from. */
export function transcriptInputs(turns: TranscriptTurn[], file: string): { input: RememberInput; line: number }[] {
  return turns.map(({ sessionId, turn, message, line }) => ({
    line,
    input: {
      text: message.content,
      type: 'episode',
      origin: 'transcript',
      sessionId,
      source: { sessionId, turnStart: turn, turnEnd: turn, path: file },
      key: `transcript:${sessionId}#${turn}`,
      ...(message.timestamp ? { validFrom: message.timestamp } : {}),
      metadata: { role: message.role, ...(message.name ? { name: message.name } : {}) },
    },
  }));
}

/**
 * True when a JSONL file's first record looks like a chat message rather than
 * a memory: it has a role and a content, whatever the content is. A memory
 * takes neither field, so a message whose content is null or a list of parts
 * was read as a memory, and refused for its missing `text`; as a message, it
 * is refused for what it is.
 */
export function looksLikeTranscript(firstRecord: unknown): boolean {
  const r = firstRecord as Record<string, unknown> | null;
  return !!r && typeof r === 'object' && !Array.isArray(r) && typeof r.role === 'string' && 'content' in r && !('text' in r);
}
