import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { MEMORY_TYPES } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { queryText } from './inputs.ts';
import { sessionTurns, turnOf, writerOf } from './recall-range.ts';
import { runSearch } from './search.ts';
import { parseInput, storable } from './validate.ts';
import { TextBudget } from '../domain/text-budget.ts';

export const DEEP_RECALL_SCOPES = ['current_session', 'recent_sessions', 'all_sessions'] as const;
/** How many sessions "recent" means, and how many recent episodes are scanned to find them. */
const RECENT_SESSIONS = 5;
const RECENT_SCAN = 5_000;
const MAX_HITS = 30;
const MAX_CHARS = 60_000;

export const deepRecallSchema = z
  .object({
    query: queryText(2000).describe('what to look for across conversation history'),
    scope: z.enum(DEEP_RECALL_SCOPES).default('all_sessions').describe('current_session needs sessionId; recent_sessions = the 5 most recent conversations'),
    // storable: a NUL was refused by the search inside, naming filter.sessionId, a field deep_recall does not have.
    sessionId: storable(z.string().min(1).max(256)).optional().describe('the current session (required for scope current_session)'),
    maxResults: z.number().int().min(1).max(MAX_HITS).default(10).describe(`how many matching turns to return (default 10, at most ${MAX_HITS})`),
    context: z.number().int().min(0).max(3).default(1).describe('neighbouring turns to include around each hit'),
    maxChars: z
      .number()
      .int()
      .min(1)
      .max(MAX_CHARS)
      .default(12_000)
      .describe(`at most this many characters of turn text in the answer (default 12000, at most ${MAX_CHARS}); a cut text is marked truncated: read it whole with recall_range`),
    includeMemory: z.boolean().default(false).describe('also search long-term memories that are not conversation turns (notes, facts, imported files), listed apart under memories'),
  })
  .strict();
export type DeepRecallInput = z.input<typeof deepRecallSchema>;

export interface DeepRecallHit {
  sessionId: string;
  turn: number;
  id: string;
  score: number;
  text: string;
  /** Set when maxChars cut `text` short (recall_range reads the turn whole). */
  truncated?: true;
  /** The principal that wrote the turn (recall-range.ts, writerOf). */
  writer: string;
  /** Neighbouring turns, exact text, in order (cut like `text` when the budget runs out). */
  context: { turn: number; role: string | null; writer: string; text: string; truncated?: true }[];
}

/**
 * A bounded search over whole conversation history, owner only. It runs our
 * own keyword query over transcript episodes (never caller-supplied code),
 * then reads a few neighbouring turns around each hit.
 */
export async function deepRecall(ctx: ServiceContext, p: Principal, input: DeepRecallInput) {
  if (p.role !== 'owner') throw new MnemosError('forbidden', 'deep recall across conversations is for the owner only');
  const q = parseInput(deepRecallSchema, input, 'deep_recall request');
  if (q.scope === 'current_session' && !q.sessionId) throw new MnemosError('validation_failed', 'sessionId: required when scope is current_session', { field: 'sessionId' });
  let sessions: (string | undefined)[];
  if (q.scope === 'current_session') sessions = [q.sessionId];
  else if (q.scope === 'recent_sessions') sessions = await recentSessions(ctx, p);
  else sessions = [undefined];
  const hits: DeepRecallHit[] = [];
  for (const sessionId of sessions) {
    const r = await runSearch(ctx, p, { query: q.query, limit: q.maxResults, filter: { types: ['episode'], ...(sessionId ? { sessionId } : {}) } });
    for (const h of r.hits) if (h.memory.sessionId) hits.push({ sessionId: h.memory.sessionId, turn: turnOf(h.memory), id: h.memory.id, score: h.score, text: h.memory.text, writer: writerOf(h.memory), context: [] });
  }
  hits.sort((a, b) => b.score - a.score);
  const top = hits.slice(0, q.maxResults);
  const others = q.includeMemory ? (await runSearch(ctx, p, { query: q.query, limit: q.maxResults, filter: { types: MEMORY_TYPES.filter((t) => t !== 'episode') } })).hits : [];
  if (q.context > 0) {
    const cache = new Map<string, Awaited<ReturnType<typeof sessionTurns>>>();
    for (const h of top) {
      if (!cache.has(h.sessionId)) cache.set(h.sessionId, await sessionTurns(ctx, p, h.sessionId));
      h.context = cache
        .get(h.sessionId)!
        .filter((m) => Math.abs(turnOf(m) - h.turn) <= q.context && turnOf(m) !== h.turn)
        .map((m) => ({ turn: turnOf(m), role: typeof m.metadata.role === 'string' ? m.metadata.role : null, writer: writerOf(m), text: m.text }));
    }
  }
  // Hits in rank order, each before its neighbours: a dozen long turns came to megabytes.
  const budget = new TextBudget(q.maxChars);
  for (const h of top) {
    const own = budget.take(h.text);
    h.text = own.text;
    if (own.truncated) h.truncated = true;
    h.context = h.context.map((c) => {
      const part = budget.take(c.text);
      return part.truncated ? { ...c, text: part.text, truncated: true as const } : c;
    });
  }
  const memories = others.map((h) => {
    const part = budget.take(h.memory.text);
    return { id: h.memory.id, type: h.memory.type, score: h.score, text: part.text, ...(part.truncated ? { truncated: true as const } : {}) };
  });
  const where = q.scope === 'all_sessions' ? 'all conversations' : `sessions ${sessions.map((s) => `"${s}"`).join(', ') || '(none found)'}`;
  const cut = budget.cut > 0 ? `; maxChars ${q.maxChars} cut ${budget.cut} text${budget.cut === 1 ? '' : 's'} (marked truncated; recall_range reads a turn whole)` : '';
  return { query: q.query, scope: q.scope, hits: top, ...(q.includeMemory ? { memories } : {}), truncated: budget.cut > 0, searched: `transcript turns in ${where} for: ${q.query}${top.length === 0 ? ' (nothing matched)' : ''}${cut}` };
}

async function recentSessions(ctx: ServiceContext, p: Principal): Promise<string[]> {
  const out: string[] = [];
  const recent = await ctx.store.list(p, { types: ['episode'] }, { limit: RECENT_SCAN }, 'recorded_desc');
  for (const m of recent) {
    if (m.sessionId && !out.includes(m.sessionId)) out.push(m.sessionId);
    if (out.length >= RECENT_SESSIONS) break;
  }
  return out;
}
