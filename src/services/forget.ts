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
  /** Rows that would be removed, per place (table, full-text index, vectors, graph links...), the merged duplicates' included. */
  removes: Record<string, number>;
  /** Present when consolidation merged near-duplicates into this memory: they state the same fact, and go with it. */
  mergedDuplicates?: MergedDuplicate[];
  keeps: string;
}

/** A memory consolidation archived into the one being forgotten (`metadata.mergedInto`). */
export interface MergedDuplicate {
  lineageId: string;
  currentId: string;
  text: string;
  versions: number;
}

export interface ForgetDone {
  lineageId: string;
  removed: ForgetFootprint;
  tombstone: { contentHashes: string[]; reason: string };
  /** The merged duplicates forgotten with it, each with its own tombstone. */
  mergedDuplicates?: { lineageId: string; removed: ForgetFootprint }[];
}

/**
 * The memories consolidation merged into this lineage and still holds
 * archived under it (their current version's `mergedInto` names it), and
 * those merged into them in turn. A merge shows one memory where two said
 * the same words: forgetting it left the other's text in the store, found
 * by `get` and export, and the orphan step rescued it into search once its
 * survivor was gone, so the fact a user forgot came back. They go with it,
 * named in the preview.
 */
async function mergedDuplicates(ctx: ServiceContext, p: Principal, lineageId: string): Promise<(MergedDuplicate & { versionIds: string[]; places: Record<string, number> })[]> {
  const out: (MergedDuplicate & { versionIds: string[]; places: Record<string, number> })[] = [];
  const seen = new Set([lineageId]);
  const queue: { into: string }[] = [{ into: lineageId }];
  for (let next = queue.shift(); next; next = queue.shift()) {
    const candidates = new Set<string>();
    for (const v of await ctx.store.lineage(p, next.into)) {
      const from = Array.isArray(v.metadata.mergedFrom) ? (v.metadata.mergedFrom as { lineageId?: unknown }[]) : [];
      for (const f of from) if (typeof f?.lineageId === 'string' && !seen.has(f.lineageId)) candidates.add(f.lineageId);
    }
    for (const candidate of candidates) {
      seen.add(candidate);
      const fp = await ctx.store.forgetFootprint(p, candidate);
      if (!fp) continue;
      const current = (await ctx.store.lineage(p, candidate)).find((v) => v.supersededAt === null);
      const into = (current?.metadata.mergedInto as { lineageId?: unknown } | undefined)?.lineageId;
      // Reversed or rescued since (its own memory again), or one the caller may not remove: not a duplicate held under this one.
      if (!current || into !== next.into || (current.lifecycle !== 'archived' && current.lifecycle !== 'expired') || current.readOnly || !canWrite(p, current)) continue;
      out.push({ lineageId: candidate, currentId: current.id, text: current.text, versions: fp.versionIds.length, versionIds: fp.versionIds, places: fp.places });
      queue.push({ into: candidate });
    }
  }
  return out;
}

function addPlaces(total: Record<string, number>, more: Record<string, number>): Record<string, number> {
  const sum = { ...total };
  for (const [place, n] of Object.entries(more)) sum[place] = (sum[place] ?? 0) + n;
  return sum;
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
  const dups = await mergedDuplicates(ctx, p, m.lineageId);
  const { token, expiresAt } = await issuePreview(ctx, p, 'forget', {
    lineageId: m.lineageId,
    currentId: current,
    versionIds: fp.versionIds,
    reason,
    ...(readOnlyOfOthers ? { readOnlyOfOthers } : {}),
    ...(dups.length ? { duplicates: dups.map((d) => ({ lineageId: d.lineageId, versionIds: d.versionIds })) } : {}),
  });
  return {
    token,
    expiresAt,
    memoryId: id,
    lineageId: m.lineageId,
    text: shown.text,
    currentId: shown.id,
    versions: fp.versionIds.length,
    ...(shown.id !== m.id ? { note: `${id} is an earlier version; forgetting removes the whole memory, all ${fp.versionIds.length} versions, the current one (${shown.id}, shown here) included` } : {}),
    removes: dups.reduce((sum, d) => addPlaces(sum, d.places), fp.places),
    ...(dups.length ? { mergedDuplicates: dups.map(({ lineageId, currentId, text, versions }) => ({ lineageId, currentId, text, versions })) } : {}),
    keeps: 'a tombstone in the audit log: ids, content hashes, when, who and why; never the text',
  };
}

export async function confirmForget(ctx: ServiceContext, p: Principal, token: string): Promise<ForgetDone> {
  const change = await redeemPreview(ctx, p, 'forget', token);
  const { lineageId, versionIds, reason, readOnlyOfOthers, duplicates = [] } = change.payload as {
    lineageId: string;
    versionIds: string[];
    reason: string;
    readOnlyOfOthers?: boolean;
    duplicates?: { lineageId: string; versionIds: string[] }[];
  };
  for (const target of [{ lineageId, versionIds }, ...duplicates]) {
    const fp = await ctx.store.forgetFootprint(p, target.lineageId);
    if (!fp) throw new MnemosError('not_found', `memory ${target.lineageId} no longer exists`, { id: target.lineageId });
    if (fp.versionIds.join() !== target.versionIds.join()) {
      throw new MnemosError('conflict', `memory ${target.lineageId} changed after the preview (new versions); preview again to see what would be removed`, { id: target.lineageId });
    }
  }
  // One batch, one transaction: the memory and its merged duplicates go together or not at all.
  const results = await ctx.store.apply(p, [
    { kind: 'forget', lineageId, reason, ...(readOnlyOfOthers ? { readOnlyOfOthers } : {}) },
    ...duplicates.map((d) => ({ kind: 'forget' as const, lineageId: d.lineageId, reason })),
  ]);
  const removed = results.map((r) => {
    if (!r || r.kind !== 'forget') throw new MnemosError('internal', 'forget returned no result');
    return r.removed;
  });
  return {
    lineageId,
    removed: removed[0]!,
    tombstone: { contentHashes: removed[0]!.contentHashes, reason },
    ...(duplicates.length ? { mergedDuplicates: duplicates.map((d, i) => ({ lineageId: d.lineageId, removed: removed[i + 1]! })) } : {}),
  };
}
