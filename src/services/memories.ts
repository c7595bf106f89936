import { MnemosError } from '../domain/errors.ts';
import type { Memory, SourceRef } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { WriteOp, WriteResult } from '../ports/store.ts';
import { assertDistinctKeys } from './batch-keys.ts';
import { buildMemory, toStoreFilter } from './build-memory.ts';
import type { ServiceContext } from './context.ts';
import { listSchema, rememberSchema, type ListInput, type RememberInput } from './inputs.ts';
import { assertMemoryId, parseInput } from './validate.ts';
import { withVectors } from './embeddings.ts';
import { StoredContent } from './stored-content.ts';
import { decodeListCursor, encodeListCursor, isKeysetOrder } from './list-cursor.ts';

export interface RememberResult {
  id: string;
  /** `forgotten`: nothing was written; this key with this text was forgotten (the id is the forgotten memory's). */
  status: 'created' | 'unchanged' | 'superseded' | 'forgotten';
  previousId?: string;
  /** With `forgotten`: the version of another text the key held, closed because its source says the forgotten text again. */
  retiredId?: string;
}

/**
 * What a write does when its key already holds a different text: refuse it
 * (`conflict`, the default) or store it as that memory's next version
 * (`supersede`). The same text under the key is `unchanged` (under `conflict`,
 * only with the same visibility, type and agent: sql/write-errors.ts). There is
 * no policy that keeps the old text and drops the new one while answering
 * success: that would lose what the caller sent.
 */
export const SOURCE_POLICIES = ['conflict', 'supersede'] as const;
export type SourcePolicy = (typeof SOURCE_POLICIES)[number];

/**
 * Validates every input before anything is written, then stores the whole
 * batch in one transaction: either all are stored or none.
 */
export async function remember(ctx: ServiceContext, p: Principal, inputs: RememberInput[], policy: SourcePolicy = 'conflict'): Promise<RememberResult[]> {
  if (!(SOURCE_POLICIES as readonly unknown[]).includes(policy)) {
    throw new MnemosError('validation_failed', `unknown key policy ${JSON.stringify(policy)}: use ${SOURCE_POLICIES.map((x) => `"${x}"`).join(' or ')}`, { field: 'policy' });
  }
  if (!Array.isArray(inputs)) throw new MnemosError('validation_failed', 'give the memories to store as an array', { field: '(input)' });
  if (inputs.length === 0) return [];
  const now = ctx.now();
  const parsed = inputs.map((input, i) => withTurnKey(parseInput(rememberSchema, input, inputs.length > 1 ? `memory #${i + 1}` : 'memory')));
  const memories = parsed.map((input) => buildMemory(p, input, now));
  assertDistinctKeys(memories, (i) => (inputs.length > 1 ? `memory #${i + 1}` : 'the memory'));
  const ops: WriteOp[] = memories.map((memory) => ({ kind: 'insert', memory, onExistingSource: policy }));
  // A client resending a batch under its keys (a retry) has nothing embedded again.
  const stored = new StoredContent(p.id);
  await stored.lookUp(ctx, p, ops);
  return toRememberResults(await ctx.store.apply(p, await withVectors(ctx, p, ops, undefined, (op) => stored.holds(op.memory))));
}

/**
 * An episode that names one turn of a session (`source.turnStart`, no range)
 * is that turn: its identity is session + turn, as a transcript post keys it.
 * Unkeyed, a second text under a turn another principal held was stored
 * beside it (a guest could add a "turn 2" to the owner's conversation), and
 * two texts under one turn number sent recall_range's paging round in a loop.
 * Only episodes: recall_range reads a session's episodes as its turns, while
 * a fact or preference citing the turn it came from is provenance, not the
 * turn (keyed, it took the turn's identity and stopped the transcript's import).
 */
function withTurnKey<T extends { key?: string | undefined; type: string; sessionId?: string | undefined; source: SourceRef }>(input: T): T {
  const { turnStart, turnEnd } = input.source;
  const session = input.source.sessionId ?? input.sessionId;
  if (input.type !== 'episode' || input.key !== undefined || turnStart === undefined || session === undefined || (turnEnd !== undefined && turnEnd !== turnStart)) return input;
  return { ...input, key: `transcript:${session}#${turnStart}` };
}

export function toRememberResults(results: WriteResult[]): RememberResult[] {
  return results.map((r) => {
    if (r.kind !== 'insert') throw new MnemosError('internal', `unexpected write result ${r.kind}`);
    return { id: r.id, status: r.status, ...(r.previousId ? { previousId: r.previousId } : {}), ...(r.retiredId ? { retiredId: r.retiredId } : {}) };
  });
}

/** A memory the caller can see, or a clear not_found / forgotten error. */
export async function getMemory(ctx: ServiceContext, p: Principal, id: string): Promise<Memory> {
  assertMemoryId(id);
  const m = await ctx.store.get(p, id);
  if (m) return m;
  const t = await ctx.store.tombstone(p, id);
  if (t) {
    // Who forgot it and why are the owner's words (a lawsuit, a health matter): others learn only that and when.
    const by = p.role === 'owner' ? ` by ${t.actor} (${t.reason})` : '';
    throw new MnemosError('forgotten', `memory ${id} was forgotten at ${t.forgottenAt}${by}`, { id, lineageId: t.lineageId, forgottenAt: t.forgottenAt });
  }
  throw new MnemosError('not_found', `no memory with id ${id} is visible to you`, { id });
}

/**
 * `get`: a memory the caller can see and whose time to live has not run out.
 * Search and list hide a memory once its expiresAt passes (before
 * consolidation marks it expired), so reading it by id must not serve it
 * either. Forget and edit still reach it through getMemory: an expired memory
 * can be forgotten, or given a new expiresAt.
 */
export async function readMemory(ctx: ServiceContext, p: Principal, id: string): Promise<Memory> {
  return served(ctx, p, await getMemory(ctx, p, id), id);
}

/**
 * The memory, unless its time to live has run out (then not_found, for get,
 * and for history to all but the owner). The time to live that counts is the memory's current
 * one: an earlier version keeps the expiresAt it was written with, and a
 * memory given a later one (or none) was refused by the id `add` printed.
 */
export async function served(ctx: ServiceContext, p: Principal, m: Memory, id: string): Promise<Memory> {
  const current = (await currentVersion(ctx, p, m)) ?? m;
  // The store's reads hide by the wall clock (adapters/sql/scope-sql.ts), and so does this.
  if (current.expiresAt !== null && Date.parse(current.expiresAt) <= Date.now()) {
    throw new MnemosError('not_found', `memory ${id} expired at ${current.expiresAt} (its expiresAt) and is no longer served; its owner can forget it, or update it with a later expiresAt`, { id, expiresAt: current.expiresAt });
  }
  return m;
}

/** The current version of `m`'s memory as the caller sees it (`m` itself when current); null when it has none. */
export async function currentVersion(ctx: ServiceContext, p: Principal, m: Memory): Promise<Memory | null> {
  if (m.supersededAt === null) return m;
  return (await ctx.store.lineage(p, m.lineageId)).find((v) => v.supersededAt === null) ?? null;
}

export interface ListPage {
  items: Memory[];
  /** Every memory the filters admit, not only those after the cursor. */
  total: number;
  offset: number;
  limit: number;
  /** More memories follow this page (read one past the page, so it holds even while memories are added). */
  hasMore: boolean;
  /** Pass as `cursor` (same order and filters) for the next page; null on the last page and for salience_desc. */
  nextCursor: string | null;
}

/**
 * A page of the memories the caller can see. With `cursor`, the page starts
 * after the memory the previous page ended on, wherever it now stands.
 */
export async function listMemories(ctx: ServiceContext, p: Principal, input: ListInput): Promise<ListPage> {
  const q = parseInput(listSchema, input, 'list request');
  const filter = toStoreFilter(q.filter);
  if (q.cursor !== undefined && q.offset !== 0) throw new MnemosError('validation_failed', 'give cursor or offset, not both: a cursor already says where the page starts', { field: 'offset' });
  const listFilter = q.cursor !== undefined ? { ...filter, listAfter: decodeListCursor(q.cursor, q.order, filter) } : filter;
  const [read, total] = await Promise.all([ctx.store.list(p, listFilter, { limit: q.limit + 1, offset: q.offset }, q.order), ctx.store.count(p, filter)]);
  const items = read.slice(0, q.limit);
  const hasMore = read.length > q.limit;
  const nextCursor = hasMore && isKeysetOrder(q.order) ? encodeListCursor(q.order, filter, items[items.length - 1]!) : null;
  return { items, total, offset: q.offset, limit: q.limit, hasMore, nextCursor };
}
