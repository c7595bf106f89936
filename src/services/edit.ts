import { MnemosError } from '../domain/errors.ts';
import { contentHash } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import type { Memory } from '../domain/memory.ts';
import { canWrite, withArticle, type Principal } from '../domain/principal.ts';
import { normalizeIso, toIso } from '../domain/time.ts';
import type { ServiceContext } from './context.ts';
import { patchSchema, type MemoryPatch } from './inputs.ts';
import { getMemory } from './memories.ts';
import { issuePreview, redeemPreview } from './preview-token.ts';
import { parseInput } from './validate.ts';
import { withVectors } from './embeddings.ts';

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface EditPreview {
  token: string;
  expiresAt: string;
  memoryId: string;
  lineageId: string;
  fromVersion: number;
  toVersion: number;
  changes: FieldChange[];
}

export interface EditDone {
  id: string;
  previousId: string;
  version: number;
}

const EDITABLE = ['text', 'type', 'importance', 'emotionalValence', 'validFrom', 'validTo', 'visibility', 'tags', 'metadata', 'expiresAt'] as const;

/** Applies a patch to a memory: a pure function, so preview and confirm agree. */
export function applyPatch(prev: Memory, patch: MemoryPatch, now: number): Memory {
  const next: Memory = { ...prev, id: newId(now), version: prev.version + 1, recordedAt: toIso(now), supersededAt: null, supersededBy: null };
  if (patch.text !== undefined) next.text = patch.text;
  if (patch.type !== undefined) next.type = patch.type;
  if (patch.importance !== undefined) next.importance = patch.importance;
  if (patch.emotionalValence !== undefined) next.emotionalValence = patch.emotionalValence;
  if (patch.validFrom !== undefined) next.validFrom = normalizeIso(patch.validFrom);
  if (patch.validTo !== undefined) next.validTo = patch.validTo === null ? null : normalizeIso(patch.validTo);
  if (patch.visibility !== undefined) next.visibility = patch.visibility;
  if (patch.tags !== undefined) next.tags = patch.tags;
  if (patch.metadata !== undefined) next.metadata = patch.metadata;
  if (patch.expiresAt !== undefined) next.expiresAt = patch.expiresAt === null ? null : normalizeIso(patch.expiresAt);
  // An expired memory given a new life (a later expiresAt, or none) comes back. Its new version stayed
  // expired: hidden from search and list, and purged by the first expiry's date.
  if (prev.lifecycle === 'expired' && patch.expiresAt !== undefined && (next.expiresAt === null || Date.parse(next.expiresAt) > now)) next.lifecycle = 'activated';
  // Skills are frozen (never decay) and only skills are: a fact re-typed as a skill kept decaying and was
  // forgotten, and a skill re-typed as a fact never decayed. Archived and expired memories keep their state.
  const live = next.lifecycle === 'generated' || next.lifecycle === 'activated' || next.lifecycle === 'consolidated';
  if (next.type === 'skill' && live) next.lifecycle = 'frozen';
  else if (next.type !== 'skill' && next.lifecycle === 'frozen') next.lifecycle = 'activated';
  next.contentHash = contentHash(next.text);
  return next;
}

export function diff(prev: Memory, next: Memory): FieldChange[] {
  return [...EDITABLE, 'lifecycle' as const].filter((f) => JSON.stringify(prev[f]) !== JSON.stringify(next[f])).map((f) => ({ field: f, from: prev[f], to: next[f] }));
}

async function editable(ctx: ServiceContext, p: Principal, id: string): Promise<Memory> {
  const m = await getMemory(ctx, p, id);
  if (m.supersededAt !== null) throw new MnemosError('conflict', `memory ${id} is an old version (replaced by ${m.supersededBy}); edit the current one`, { id, supersededBy: m.supersededBy });
  if (!canWrite(p, m)) throw new MnemosError('forbidden', `${withArticle(p.role)} may only edit memories it wrote; memory ${id} belongs to ${m.ownerId}`, { id });
  if (m.readOnly) throw new MnemosError('read_only', `memory ${id} is read-only (${m.labels.join(', ') || 'protected'}) and cannot be edited`, { id });
  return m;
}

/**
 * The next version a patch makes, refused when it would change nothing (a
 * version identical to the last) or leave validTo before validFrom, which the
 * patch alone cannot tell when it sets only one of them.
 */
function patched(prev: Memory, patch: MemoryPatch, now: number): { next: Memory; changes: FieldChange[] } {
  const next = applyPatch(prev, patch, now);
  const changes = diff(prev, next);
  if (changes.length === 0) throw new MnemosError('validation_failed', `the edit would change nothing in memory ${prev.id}`, { id: prev.id });
  if (next.validTo !== null && Date.parse(next.validTo) < Date.parse(next.validFrom)) {
    throw new MnemosError('validation_failed', `invalid edit: validTo (${next.validTo}) must not be before validFrom (${next.validFrom})`, { id: prev.id, field: 'validTo' });
  }
  return { next, changes };
}

export async function previewEdit(ctx: ServiceContext, p: Principal, id: string, patchInput: MemoryPatch): Promise<EditPreview> {
  const patch = parseInput(patchSchema, patchInput, 'edit');
  const prev = await editable(ctx, p, id);
  const { changes } = patched(prev, patch, ctx.now());
  // What the preview shows each field becoming, so the confirm can tell whether it would still do that.
  const shown = changes.map((c) => ({ field: c.field, to: c.to }));
  const { token, expiresAt } = await issuePreview(ctx, p, 'edit', { lineageId: prev.lineageId, previousId: prev.id, previousHash: prev.contentHash, patch, shown });
  return { token, expiresAt, memoryId: prev.id, lineageId: prev.lineageId, fromVersion: prev.version, toVersion: prev.version + 1, changes };
}

export async function confirmEdit(ctx: ServiceContext, p: Principal, token: string): Promise<EditDone> {
  const change = await redeemPreview(ctx, p, 'edit', token);
  // `shown` is absent from a preview an earlier version stored; such a confirm is checked as before (a new version since refuses it).
  const { previousId, patch, shown } = change.payload as { previousId: string; patch: MemoryPatch; shown?: Pick<FieldChange, 'field' | 'to'>[] };
  return applyEdit(ctx, p, previousId, patch, 'update', undefined, shown);
}

/**
 * A confirm must do what its preview showed. Some fields move in place, with no new version: a
 * consolidation archives a memory, a recall activates it. A type or expiry edit previewed as
 * "lifecycle -> frozen" (or "expired -> activated") then kept an archived or expired lifecycle,
 * and a field the preview did not list could change. Each shown field must still end as shown, and
 * nothing else may change.
 */
function assertAsShown(id: string, next: Memory, changes: readonly FieldChange[], shown: readonly Pick<FieldChange, 'field' | 'to'>[]): void {
  const asShown = (f: string) => shown.some((c) => c.field === f && JSON.stringify(next[f as keyof Memory]) === JSON.stringify(c.to));
  const differs = [...shown.map((c) => c.field), ...changes.map((c) => c.field)].find((f) => !asShown(f));
  if (differs === undefined) return;
  throw new MnemosError('conflict', `memory ${id} changed after the preview (its ${differs} is no longer as shown); preview the edit again to see what it would do now`, { id, field: differs });
}

/** Applies an edit at once (the CLI's --yes and the library's update); still a new version, still audited. */
export async function applyEdit(
  ctx: ServiceContext,
  p: Principal,
  id: string,
  patchInput: MemoryPatch,
  action: 'update' | 'supersede' = 'update',
  reason?: string,
  shown?: readonly Pick<FieldChange, 'field' | 'to'>[],
): Promise<EditDone> {
  const patch = parseInput(patchSchema, patchInput, 'edit');
  const prev = await editable(ctx, p, id);
  const { next, changes } = patched(prev, patch, ctx.now());
  if (shown) assertAsShown(id, next, changes, shown);
  await ctx.store.apply(p, await withVectors(ctx, p, [{ kind: 'update', previousId: prev.id, next, action, ...(reason ? { reason } : {}) }]));
  return { id: next.id, previousId: prev.id, version: next.version };
}
