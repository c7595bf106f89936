import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { charBoundary } from '../domain/unicode.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { parseInput, storable } from './validate.ts';

export const RECALL_DEFAULT_CHARS = 12_000;
export const RECALL_MAX_CHARS = 60_000;
/** A session longer than this is read in windows (give `turns`). */
const MAX_TURNS_READ = 20_000;

export const recallRangeSchema = z
  .object({
    // storable: a NUL was not found on SQLite and a raw PostgreSQL error (no field) on the other backend.
    sessionId: storable(z.string().min(1).max(256)).describe('the conversation (transcript session) to read from'),
    turns: z
      .string()
      .regex(/^\d+(-\d+)?$/, 'turns must look like "7" or "3-7"')
      .optional()
      .describe('inclusive turn range such as "3-7" (turns are numbered from 1); default: the whole session'),
    grep: storable(z.string().min(1).max(200)).optional().describe('keep only turns containing this text (case-insensitive, literal)'),
    maxChars: z.number().int().min(1).max(RECALL_MAX_CHARS).default(RECALL_DEFAULT_CHARS).describe(`cap on returned text (default ${RECALL_DEFAULT_CHARS}, at most ${RECALL_MAX_CHARS})`),
    fromChar: z.number().int().min(0).optional().describe('continue inside the first turn of the range at this character: the nextChar of an answer cut inside a turn'),
    includeToolResults: z.boolean().default(true).describe('false leaves out turns whose role is "tool" (tool output kept in the transcript)'),
  })
  .strict();
export type RecallRangeInput = z.input<typeof recallRangeSchema>;

export interface RecalledTurn {
  turn: number;
  /** Where in the turn's text this part starts, when not at its beginning (fromChar). */
  fromChar?: number;
  role: string | null;
  /** Who wrote this turn into the store (writerOf). */
  writer: string;
  id: string;
  at: string;
  text: string;
}

export interface RecallRangeResult {
  sessionId: string;
  turns: RecalledTurn[];
  /** True when maxChars cut the answer short; `nextTurn` (and `nextChar`, when cut inside that turn) continue it. */
  truncated: boolean;
  nextTurn: number | null;
  /** Where the cut turn goes on: pass it as fromChar with turns starting at nextTurn. */
  nextChar: number | null;
  searched: string;
}

export function turnOf(m: Memory): number {
  return m.source.turnStart ?? 0;
}

/**
 * The principal that wrote a turn, with the agent it wrote for. A session is
 * named by its id alone, so anyone who may write can add turns to a session
 * id another principal uses (never over a turn that principal holds): a
 * reader tells such turns apart by their writer, and `searched` says when a
 * session has more than one.
 */
export function writerOf(m: Pick<Memory, 'ownerId' | 'agentId'>): string {
  return m.agentId ? `${m.ownerId} (agent ${m.agentId})` : m.ownerId;
}

/** Transcript turns of one session the principal can see, in turn order. */
export async function sessionTurns(ctx: ServiceContext, p: Principal, sessionId: string): Promise<Memory[]> {
  const items = await ctx.store.list(p, { sessionId, types: ['episode'] }, { limit: MAX_TURNS_READ }, 'valid_asc');
  return items.filter((m) => m.source.turnStart !== undefined).sort((a, b) => turnOf(a) - turnOf(b));
}

/** The exact text of earlier turns: no ranking, no model, bounded by maxChars. */
export async function recallRange(ctx: ServiceContext, p: Principal, input: RecallRangeInput): Promise<RecallRangeResult> {
  const q = parseInput(recallRangeSchema, input, 'recall_range request');
  let from = 1;
  let to = Number.MAX_SAFE_INTEGER;
  if (q.turns) {
    const [a, b] = q.turns.split('-').map(Number);
    from = a!;
    to = b ?? a!;
    if (to < from) throw new MnemosError('validation_failed', `turns: the range ${q.turns} ends before it starts`, { field: 'turns' });
  }
  const needle = q.grep?.toLowerCase();
  const all = await sessionTurns(ctx, p, q.sessionId);
  const picked = all.filter((m) => turnOf(m) >= from && turnOf(m) <= to && (!needle || m.text.toLowerCase().includes(needle)) && (q.includeToolResults || m.metadata.role !== 'tool'));
  const turns: RecalledTurn[] = [];
  let used = 0;
  let truncated = false;
  let nextTurn: number | null = null;
  let nextChar: number | null = null;
  // fromChar and nextChar count through a turn's texts in order: a turn can hold texts of several writers (the owner may
  // write a turn number a guest used), and a cursor naming only the turn sent paging round the first of them for ever.
  const firstTurn = picked.length > 0 ? turnOf(picked[0]!) : null;
  let turnNumber: number | null = null;
  let turnOffset = 0;
  for (const m of picked) {
    const t = turnOf(m);
    if (t !== turnNumber) [turnNumber, turnOffset] = [t, 0];
    const offset = turnOffset;
    turnOffset += m.text.length;
    // A turn longer than maxChars is read in parts: without a place to go on from, the same prefix came back for ever.
    const skip = t === firstTurn && q.fromChar ? q.fromChar - offset : 0;
    if (skip >= m.text.length && m.text.length > 0) continue;
    const start = Math.max(0, skip);
    const room = q.maxChars - used;
    // The first piece of an answer holds at least one whole character, or a reader asking for one at a time would never
    // move on; a later piece with no room for one is left for the next call (it had taken two code units: half an emoji).
    const fits = room <= 0 ? start : charBoundary(m.text, start + room);
    const end = turns.length === 0 ? Math.max(fits, Math.min(m.text.length, start + charLength(m.text, start))) : fits;
    if (end === start && m.text.length > start) {
      truncated = true;
      nextTurn = t;
      nextChar = offset + start > 0 ? offset + start : null;
      break;
    }
    if (end < m.text.length) {
      truncated = true;
      nextTurn = t;
      nextChar = offset + end;
    }
    const text = m.text.slice(start, end);
    turns.push({ turn: t, ...(start > 0 ? { fromChar: start } : {}), role: typeof m.metadata.role === 'string' ? m.metadata.role : null, writer: writerOf(m), id: m.id, at: m.validFrom, text });
    used += text.length;
    if (truncated) break;
  }
  const writers = new Map<string, number>();
  for (const m of all) writers.set(writerOf(m), (writers.get(writerOf(m)) ?? 0) + 1);
  const by = writers.size > 1 ? ` (written by ${writers.size} principals: ${[...writers].map(([w, n]) => `${w} ${n}`).join(', ')})` : '';
  const searched = `session "${q.sessionId}"${q.turns ? `, turns ${q.turns}` : ''}${q.grep ? `, containing "${q.grep}"` : ''}: ${all.length} turns visible to ${p.role} "${p.id}"${by}, ${picked.length} matched`;
  return { sessionId: q.sessionId, turns, truncated, nextTurn, nextChar, searched };
}

/** Code units of the character at `at`: 2 for a surrogate pair, else 1. */
function charLength(text: string, at: number): number {
  const c = text.charCodeAt(at);
  const d = text.charCodeAt(at + 1);
  return c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff ? 2 : 1;
}
