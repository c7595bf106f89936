import { MnemosError } from '../domain/errors.ts';
import { assertStorableText, exceedsChars } from '../domain/unicode.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { canWrite, withArticle } from '../domain/principal.ts';
import type { ForgetFootprint } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';
import { getMemory } from './memories.ts';
import { issuePreview, redeemPreview } from './preview-token.ts';

export interface ForgetPreview {
  token: string;
  expiresAt: string;
  memoryId: string;
  lineageId: string;
  /**
   * The current text, so the caller sees what goes: a forget removes the
   * whole memory, every version. (Given an earlier version's id it showed
   * that version's text, and the confirm removed the current one too.)
   */
  text: string;
  /** The current version's id: `memoryId` when that was given, else the version `text` is from. */
  currentId: string;
  versions: number;
  /** Present when `memoryId` names an earlier version: says that the whole memory goes. */
  note?: string;
  /** Rows that would be removed, per place (table, full-text index, vectors, graph links...). */
  removes: Record<string, number>;
  keeps: string;
}

export interface ForgetDone {
  lineageId: string;
  removed: ForgetFootprint;
  tombstone: { contentHashes: string[]; reason: string };
}

/**
 * Read-only memories (safety episodes) refuse every edit and forget, with one
 * exception: the owner may forget those a guest or an agent wrote. A guest's
 * or agent's own cognitive cycle writes its safety episodes read-only, so the
 * writer cannot erase the record of what was refused to it; but the owner
 * must be able to remove what other principals put into the namespace. The
 * writer's role comes from the tokens that act as it: a principal with no
 * token (the local owner) or with an owner token stays protected.
 */
async function writtenByGuestOrAgent(ctx: ServiceContext, p: Principal, m: Memory): Promise<boolean> {
  if (p.role !== 'owner' || m.ownerId === p.id) return false;
  const writers = (await ctx.store.tokens.list(p)).filter((t) => t.principalId === m.ownerId);
  return writers.length > 0 && writers.every((t) => t.role !== 'owner');
}

/** The reason kept in the tombstone: the MCP tool's bound, for every caller. */
export const MAX_FORGET_REASON = 500;

export async function previewForget(ctx: ServiceContext, p: Principal, id: string, reason = 'requested'): Promise<ForgetPreview> {
  // Characters as memory text and the MCP tool's zod bound count them (code points), not UTF-16 units.
  if (typeof reason !== 'string' || reason.trim() === '' || exceedsChars(reason, MAX_FORGET_REASON)) {
    throw new MnemosError('validation_failed', `the reason must be text of 1-${MAX_FORGET_REASON} characters (it is kept in the tombstone)`, { field: 'reason' });
  }
  assertStorableText(reason, 'reason');
  const m = await getMemory(ctx, p, id);
  if (!canWrite(p, m)) throw new MnemosError('forbidden', `${withArticle(p.role)} may only forget memories it wrote; memory ${id} belongs to ${m.ownerId}`, { id });
  const readOnlyOfOthers = m.readOnly && (await writtenByGuestOrAgent(ctx, p, m));
  if (m.readOnly && !readOnlyOfOthers) throw new MnemosError('read_only', `memory ${id} is read-only (${m.labels.join(', ') || 'protected'}) and cannot be forgotten`, { id });
  const fp = await ctx.store.forgetFootprint(p, m.lineageId);
  if (!fp) throw new MnemosError('not_found', `no memory with id ${id} is visible to you`, { id });
  const current = fp.versionIds[fp.versionIds.length - 1]!;
  const shown = current === m.id ? m : ((await ctx.store.get(p, current)) ?? m);
  const { token, expiresAt } = await issuePreview(ctx, p, 'forget', { lineageId: m.lineageId, currentId: current, versionIds: fp.versionIds, reason, ...(readOnlyOfOthers ? { readOnlyOfOthers } : {}) });
  return {
    token,
    expiresAt,
    memoryId: id,
    lineageId: m.lineageId,
    text: shown.text,
    currentId: shown.id,
    versions: fp.versionIds.length,
    ...(shown.id !== m.id ? { note: `${id} is an earlier version; forgetting removes the whole memory, all ${fp.versionIds.length} versions, the current one (${shown.id}, shown here) included` } : {}),
    removes: fp.places,
    keeps: 'a tombstone in the audit log: ids, content hashes, when, who and why; never the text',
  };
}

export async function confirmForget(ctx: ServiceContext, p: Principal, token: string): Promise<ForgetDone> {
  const change = await redeemPreview(ctx, p, 'forget', token);
  const { lineageId, versionIds, reason, readOnlyOfOthers } = change.payload as { lineageId: string; versionIds: string[]; reason: string; readOnlyOfOthers?: boolean };
  const fp = await ctx.store.forgetFootprint(p, lineageId);
  if (!fp) throw new MnemosError('not_found', `memory ${lineageId} no longer exists`, { id: lineageId });
  if (fp.versionIds.join() !== versionIds.join()) {
    throw new MnemosError('conflict', `memory ${lineageId} changed after the preview (new versions); preview again to see what would be removed`, { id: lineageId });
  }
  const [result] = await ctx.store.apply(p, [{ kind: 'forget', lineageId, reason, ...(readOnlyOfOthers ? { readOnlyOfOthers } : {}) }]);
  if (!result || result.kind !== 'forget') throw new MnemosError('internal', 'forget returned no result');
  return { lineageId, removed: result.removed, tombstone: { contentHashes: result.removed.contentHashes, reason } };
}
