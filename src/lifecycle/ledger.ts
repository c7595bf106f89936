import { actorOf } from '../domain/audit.ts';
import { MnemosError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import { assertStorableText } from '../domain/unicode.ts';
import type { LedgerPending, LedgerStore, LedgerWrite } from '../ports/lifecycle.ts';
import type { ServiceContext } from '../services/context.ts';
import {
  LEDGER_CATEGORIES,
  PIN_CONFIDENCE,
  isPinned,
  promptBlock,
  rankFacts,
  sameValue,
  strengthen,
  validateFactInput,
  type LedgerCategory,
  type LedgerFact,
  type LedgerSource,
} from './ledger-rules.ts';
import { LedgerIndexCache } from './ledger-index.ts';

export function requireLedger(ctx: ServiceContext): LedgerStore {
  if (!ctx.store.ledger) throw new MnemosError('unsupported', `the ${ctx.store.backend} store has no canonical ledger yet`);
  return ctx.store.ledger;
}

export interface FactInput {
  key: string;
  value: string;
  statement?: string;
  category?: string;
  /** Background learning only; pins always have 0.95. */
  confidence?: number;
}

export type PinOutcome =
  | { status: 'added' | 'strengthened' | 'superseded'; fact: LedgerFact; replaced?: string }
  | { status: 'pending_confirmation'; pending: ShownPending; message: string }
  | { status: 'rejected'; reason: string };

/** A pending change as its reader sees it: `targetId` is null when the fact it would replace is hidden from the reader. */
export type ShownPending = Omit<LedgerPending, 'targetId'> & { targetId: string | null };

/**
 * An agent proposing over an owner-only pin learned that fact's id from the
 * answer (and from its pending list): the same id whatever value it guessed,
 * but an id all the same. The owner sees it; a reader who cannot see the
 * fact gets null.
 */
async function shown(ledger: LedgerStore, p: Principal, pending: LedgerPending): Promise<ShownPending> {
  if (p.role === 'owner' || (await ledger.get(p, pending.targetId))) return pending;
  return { ...pending, targetId: null };
}

function category(c: string | undefined): LedgerCategory {
  if (c === undefined) return 'general';
  if (!(LEDGER_CATEGORIES as readonly string[]).includes(c)) throw new MnemosError('validation_failed', `category must be one of ${LEDGER_CATEGORIES.join(', ')}`, { field: 'category' });
  return c as LedgerCategory;
}

function newFact(p: Principal, input: FactInput, source: LedgerSource, confidence: number, now: number): LedgerFact {
  const at = toIso(now);
  return {
    id: newId(now),
    key: input.key,
    value: input.value,
    statement: input.statement ?? '',
    category: category(input.category),
    confidence,
    mentions: 1,
    source,
    status: 'active',
    validFrom: at,
    validUntil: null,
    supersededBy: null,
    updatedAt: at,
    namespace: p.namespace,
    ownerId: p.id,
    agentId: p.role === 'owner' ? null : (p.agentId ?? null),
    visibility: p.role === 'owner' ? 'owner' : 'shared',
  };
}

function supersedeOps(old: { id: string }, fresh: LedgerFact, at: string): LedgerWrite[] {
  return [
    { kind: 'patch', id: old.id, op: 'supersede', set: { status: 'superseded', validUntil: at, supersededBy: fresh.id, updatedAt: at } },
    { kind: 'insert', fact: fresh },
  ];
}

/**
 * Settles a fact. A pin (owner or agent) has confidence 0.95 and outranks
 * anything learned; the same value (ignoring letter case and surrounding
 * whitespace) strengthens the fact; a different value, or the same value with
 * a new statement or category, supersedes it, except that replacing an owner
 * pin by anyone but the owner waits for the owner's confirmation, and
 * background learning never replaces a pin. A fact the caller may not read is
 * never compared with the input: the answer and the fact stay the same
 * whether a guess of its value is right or wrong.
 */
export async function settleFact(ctx: ServiceContext, p: Principal, input: FactInput, mode: 'pin' | 'learn'): Promise<PinOutcome> {
  if (p.role === 'guest') throw new MnemosError('forbidden', 'guests cannot change the canonical ledger');
  validateFactInput(input);
  const ledger = requireLedger(ctx);
  const now = ctx.now();
  const at = toIso(now);
  const source: LedgerSource = mode === 'learn' ? 'learned' : p.role === 'owner' ? 'owner pin' : 'agent pin';
  const confidence = mode === 'pin' ? PIN_CONFIDENCE : Math.max(0, Math.min(1, input.confidence ?? 0.6));
  const fresh = newFact(p, input, source, confidence, now);
  const holder = await ledger.keyHolder(p, input.key);
  if (!holder) {
    await ledger.write(p, [{ kind: 'insert', fact: fresh }]);
    return { status: 'added', fact: fresh };
  }
  // Read as the caller: null when the holder is hidden from it (an owner-only fact, to an agent).
  const current = await ledger.get(p, holder.id);
  if (!current) {
    // Its confidence would be an oracle too, so background learning leaves a hidden fact alone.
    if (mode === 'learn') return { status: 'rejected', reason: `"${input.key}" is held by a fact you cannot see` };
  } else if (sameValue(current.value, input.value)) {
    const restated = (input.statement !== undefined && input.statement !== current.statement) || (input.category !== undefined && fresh.category !== current.category);
    const upgrade = mode === 'pin' && !isPinned(current);
    if (!restated && !upgrade) {
      const s = strengthen(current, confidence);
      await ledger.write(p, [{ kind: 'patch', id: current.id, op: 'strengthen', set: { ...s, updatedAt: at } }]);
      return { status: 'strengthened', fact: { ...current, ...s, updatedAt: at } };
    }
  }
  if (current && mode === 'learn' && isPinned(current)) {
    await ledger.write(p, [{ kind: 'patch', id: current.id, op: 'reject', set: {} }]);
    return { status: 'rejected', reason: `"${input.key}" is pinned; background learning never replaces a pin` };
  }
  if (current && mode === 'learn' && confidence < current.confidence) return { status: 'rejected', reason: `"${input.key}" is already settled with higher confidence` };
  if (holder.source === 'owner pin' && p.role !== 'owner') {
    const pending: LedgerPending = {
      id: newId(now),
      key: input.key,
      targetId: holder.id,
      proposed: { value: fresh.value, statement: fresh.statement, category: fresh.category, source: fresh.source, confidence: fresh.confidence, agentId: fresh.agentId, ownerId: fresh.ownerId, visibility: fresh.visibility },
      proposer: actorOf(p),
      createdAt: at,
      status: 'pending',
    };
    await ledger.write(p, [{ kind: 'pending', pending }]);
    return { status: 'pending_confirmation', pending: current ? pending : { ...pending, targetId: null }, message: `"${input.key}" was pinned by the owner; the change waits for the owner's confirmation (mnemos pin confirm ${pending.id})` };
  }
  // The same value restated (or a learned fact pinned) is the same fact again: it keeps its standing, and what the input leaves out.
  const next =
    current && sameValue(current.value, input.value)
      ? { ...fresh, ...strengthen(current, confidence), statement: input.statement ?? current.statement, category: input.category !== undefined ? fresh.category : current.category }
      : fresh;
  await ledger.write(p, supersedeOps(holder, next, at));
  // The replaced fact's id only to a reader who could see that fact.
  return { status: 'superseded', fact: next, ...(current ? { replaced: holder.id } : {}) };
}

/** Owner only: applies (or rejects) a pending replacement of an owner pin. */
export async function resolvePending(ctx: ServiceContext, p: Principal, pendingId: string, accept = true): Promise<{ status: 'confirmed' | 'rejected'; fact?: LedgerFact }> {
  if (p.role !== 'owner') throw new MnemosError('forbidden', 'only the owner can confirm a change to an owner pin');
  const ledger = requireLedger(ctx);
  const [q] = await ledger.pending(p, pendingId);
  if (!q) throw new MnemosError('not_found', `no pending ledger change ${pendingId}`, { id: pendingId });
  if (q.status !== 'pending') throw new MnemosError('conflict', `pending change ${pendingId} was already ${q.status}`, { id: pendingId });
  if (!accept) {
    await ledger.write(p, [{ kind: 'resolve', pendingId, status: 'rejected' }]);
    return { status: 'rejected' };
  }
  const now = ctx.now();
  const at = toIso(now);
  // Confirmed by the owner, the new value takes the owner pin's place: owner scope, and later changes wait again.
  const fresh = newFact(p, { key: q.key, value: q.proposed.value, statement: q.proposed.statement, category: q.proposed.category }, 'owner pin', PIN_CONFIDENCE, now);
  // The proposal was made against q.targetId; applied over a newer value it would overwrite that value unseen.
  const holder = await ledger.keyHolder(p, q.key);
  if (holder?.id !== q.targetId) {
    throw new MnemosError('conflict', `pending change ${pendingId} targets a fact of "${q.key}" that has since been replaced or retired; reject it (memory_pin reject, or mnemos pin reject ${pendingId}) and pin again if still wanted`, { id: pendingId, key: q.key });
  }
  await ledger.write(p, [{ kind: 'resolve', pendingId, status: 'confirmed' }, ...supersedeOps(holder, fresh, at)]);
  return { status: 'confirmed', fact: fresh };
}

export async function retireFact(ctx: ServiceContext, p: Principal, keyOrId: string): Promise<LedgerFact> {
  const ledger = requireLedger(ctx);
  const fact = await getFact(ctx, p, keyOrId);
  if (fact.source === 'owner pin' && p.role !== 'owner') throw new MnemosError('forbidden', 'only the owner can retire an owner pin');
  if (p.role === 'guest') throw new MnemosError('forbidden', 'guests cannot change the canonical ledger');
  const at = toIso(ctx.now());
  await ledger.write(p, [{ kind: 'patch', id: fact.id, op: 'retire', set: { status: 'retired', validUntil: at, updatedAt: at } }]);
  return { ...fact, status: 'retired', validUntil: at, updatedAt: at };
}

/** By id or key (the active fact for a key); only what the caller may see. */
export async function getFact(ctx: ServiceContext, p: Principal, keyOrId: string): Promise<LedgerFact> {
  const ledger = requireLedger(ctx);
  // A NUL was not_found on SQLite and a raw PostgreSQL error naming no field on the other backend.
  assertStorableText(keyOrId, 'keyOrId');
  const byId = await ledger.get(p, keyOrId);
  if (byId) return byId;
  const [byKey] = await ledger.list(p, { key: keyOrId, limit: 1 });
  if (byKey) return byKey;
  throw new MnemosError('not_found', `no ledger fact "${keyOrId}" is visible to you`, { key: keyOrId });
}

export async function listFacts(ctx: ServiceContext, p: Principal, given: { status?: string[]; limit?: number } | null = {}) {
  const opts = given ?? {};
  if (typeof opts !== 'object') throw new MnemosError('validation_failed', 'facts options must be an object', { field: '(input)' });
  if (opts.status !== undefined && !(Array.isArray(opts.status) && opts.status.every((x) => typeof x === 'string'))) {
    throw new MnemosError('validation_failed', 'status must be a list of fact statuses, e.g. ["active"]', { field: 'status' });
  }
  if (opts.limit !== undefined && !(Number.isInteger(opts.limit) && opts.limit >= 1 && opts.limit <= 100_000)) {
    throw new MnemosError('validation_failed', 'limit must be a whole number from 1 to 100000', { field: 'limit' });
  }
  const ledger = requireLedger(ctx);
  const facts = rankFacts(await ledger.list(p, { ...(opts.status ? { status: opts.status } : {}), limit: opts.limit ?? 1000 }), ctx.now());
  const pending = p.role === 'guest' ? [] : await Promise.all((await ledger.pending(p)).map((x) => shown(ledger, p, x)));
  return { facts, pending };
}

/** Exact ledger hits for a search query, best first ("exact ledger hits first"). */
export async function ledgerExactHits(ctx: ServiceContext, p: Principal, query: string): Promise<(LedgerFact & { score: number })[]> {
  if (typeof query !== 'string') throw new MnemosError('validation_failed', 'the query must be text', { field: 'query' });
  const ledger = ctx.store.ledger;
  if (!ledger || query.trim().length === 0) return [];
  const index = await (ctx.ledgerIndexes ??= new LedgerIndexCache()).for(ledger, p);
  return rankFacts(index.exactHits(query), ctx.now());
}

/** The settled-facts block for a prompt: at most 48 facts within the token budget. */
export async function ledgerPromptBlock(ctx: ServiceContext, p: Principal, maxTokens?: number) {
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && maxTokens >= 1)) throw new MnemosError('validation_failed', 'maxTokens must be a positive whole number', { field: 'maxTokens' });
  const ledger = ctx.store.ledger;
  if (!ledger) return { text: '', facts: 0, tokens: 0 };
  const index = await (ctx.ledgerIndexes ??= new LedgerIndexCache()).for(ledger, p);
  return promptBlock(rankFacts(index.facts, ctx.now()), maxTokens);
}
