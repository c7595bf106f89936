import { MnemosError } from '../../domain/errors.ts';
import type { Memory } from '../../domain/memory.ts';
import type { Principal } from '../../domain/principal.ts';

/**
 * A guest or agent may not write under a source identity (a session turn, a
 * file chunk) that another principal already holds: that would put a second
 * text under someone else's turn or chunk. The error names the key only,
 * never its content; it does tell the caller that the key is taken, as a
 * taken user name would. Turns a writer adds under new numbers carry its id
 * (recall-range.ts, writerOf).
 */
export function sourceHeldByOther(sourceKey: string): MnemosError {
  return new MnemosError('forbidden', `source "${sourceKey}" belongs to another principal; use a key (session, file or client key) of your own`, { field: 'key' });
}

/** A lifecycle move computed from an importance that another write has changed since: the caller reads again. */
export function importanceMoved(id: string): MnemosError {
  return new MnemosError('conflict', `memory ${id} changed strength since it was read; read it again`, { id });
}

/** A forget of read-only versions: only the owner's, of versions it did not write, after the service checked their writer is a guest or agent. */
export function mayForgetReadOnly(p: Principal, versions: readonly Pick<Memory, 'ownerId'>[], readOnlyOfOthers: boolean): boolean {
  return readOnlyOfOthers && p.role === 'owner' && versions.every((v) => v.ownerId !== p.id);
}

/** What a keyed write must say as the key's memory does to be `unchanged`: who may see it and what kind it is. */
const SAME_TEXT_FIELDS = ['visibility', 'type', 'agentId'] as const;

/**
 * A write under a key that already holds the same text, asking for another
 * visibility, type or agent: a conflict under the `conflict` policy, like
 * another text. It was `unchanged`, the old fields kept and the new ones
 * dropped while answering success: a client re-posting a memory as `owner`
 * to hide it from guests was told all was well and the memory stayed public.
 * These fields are never changed in place (an edit is a new version), so a
 * retry of the same request always agrees with them.
 */
export function keyHoldsOtherFields(existing: Memory, m: Memory): MnemosError | null {
  const field = SAME_TEXT_FIELDS.find((f) => existing[f] !== m[f]);
  if (field === undefined) return null;
  return new MnemosError(
    'conflict',
    `source key "${m.sourceKey}" already holds this text with ${field} ${JSON.stringify(existing[field])}, not ${JSON.stringify(m[field])}; send the same ${field}, use a new key, or change memory ${existing.id} with memory_edit`,
    { sourceKey: m.sourceKey, existingId: existing.id, field },
  );
}
