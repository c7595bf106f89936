import { LIFECYCLES, type Memory } from '../../domain/memory.ts';
import type { Principal } from '../../domain/principal.ts';
import type { WriteOp } from '../../ports/store.ts';
import type { ServiceContext } from '../context.ts';

/** The metadata fields that say who spoke a transcript turn. */
export const SPEAKER_FIELDS = ['role', 'name'] as const;

/** The first speaker field `wanted` gives otherwise than `held`, or undefined when the speaker is the same. */
export function changedSpeakerField(held: Readonly<Record<string, unknown>>, wanted: Readonly<Record<string, unknown>> | undefined): (typeof SPEAKER_FIELDS)[number] | undefined {
  return SPEAKER_FIELDS.find((f) => held[f] !== wanted?.[f]);
}

/**
 * A file's turns whose text the store holds under their key but whose
 * speaker (role, name) the file now gives otherwise, as new versions of
 * those turns. The store finds an insert unchanged by its text alone (the
 * speaker is transcript metadata), so an edited role was `unchanged` and the
 * old one kept; an edited file's turns are new versions, so the speaker is
 * compared here and the insert becomes that version's update. Turns whose
 * text or speaker is unchanged are left as they are.
 */
export async function speakerChangesAsVersions(ctx: ServiceContext, p: Principal, ops: readonly WriteOp[]): Promise<WriteOp[]> {
  const wanted = new Map<string, Memory>();
  for (const op of ops) if (op.kind === 'insert' && op.memory.sourceKey !== null && op.memory.supersededAt === null) wanted.set(op.memory.sourceKey, op.memory);
  const replaced = new Map<string, WriteOp>();
  for (const held of await heldUnderKeys(ctx, p, [...wanted.keys()])) {
    const next = wanted.get(held.sourceKey!);
    if (!next || held.supersededAt !== null || held.contentHash !== next.contentHash) continue;
    if (changedSpeakerField(held.metadata, next.metadata) === undefined) continue;
    replaced.set(held.sourceKey!, { kind: 'update', previousId: held.id, next: { ...next, lineageId: held.lineageId, version: held.version + 1 }, action: 'supersede', reason: 'source changed' });
  }
  if (replaced.size === 0) return [...ops];
  return ops.map((op) => (op.kind === 'insert' && op.memory.sourceKey !== null ? (replaced.get(op.memory.sourceKey) ?? op) : op));
}

/** Keys per look-up: a few hundred kilobytes of parameters. */
const KEYS_PER_LOOKUP = 1000;

/**
 * The current version the caller holds under each of these source keys, in
 * every lifecycle (an expired or archived turn too), as the store's own
 * look-up by key finds them before it answers an insert `unchanged`.
 */
export async function heldUnderKeys(ctx: ServiceContext, p: Principal, keys: readonly string[]): Promise<Memory[]> {
  const out: Memory[] = [];
  for (let i = 0; i < keys.length; i += KEYS_PER_LOOKUP) {
    const page = keys.slice(i, i + KEYS_PER_LOOKUP);
    out.push(...(await ctx.store.list(p, { sourceKeys: { ownerId: p.id, keys: page }, lifecycles: [...LIFECYCLES] }, { limit: page.length })));
  }
  return out;
}
