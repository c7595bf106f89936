import { sha256Hex } from '../../domain/hash.ts';
import type { Memory } from '../../domain/memory.ts';
import type { WriteOp, WriteResult } from '../../ports/store.ts';

/**
 * A forgotten memory stays forgotten when its source is read again. An
 * unchanged Markdown file, a transcript posted again, an old export restored:
 * each would write the forgotten text back under its old source key or id,
 * and the memory a user removed would return without a word.
 *
 * The tombstone keeps a digest of the forgotten version's source key, never
 * the key itself: a client's key may say what the memory said. An insert
 * whose id was forgotten, or whose source key and exact text were, is
 * answered `forgotten` and writes nothing, unless the op asks to restore.
 * Another text under the same key is new content and is stored.
 */
export function sourceDigest(sourceKey: string | null): string | null {
  return sourceKey === null ? null : sha256Hex(`source\0${sourceKey}`);
}

/** Whether this insert is checked against the tombstones. */
export function checksForgotten(op: Extract<WriteOp, { kind: 'insert' }>): boolean {
  return op.restoreForgotten !== true;
}

/** The source identity a tombstone would match: namespace, owner, digest of the key, exact text. */
export function forgottenSource(m: Memory): [string, string, string, string] | null {
  if (m.sourceKey === null || m.supersededAt !== null) return null;
  return [m.namespace, m.ownerId, sourceDigest(m.sourceKey)!, m.contentHash];
}

/** The insert's answer when what it carries was forgotten: the id is the forgotten lineage's, which `get` answers with `forgotten`. */
export function forgottenResult(lineageId: string): WriteResult {
  return { kind: 'insert', id: lineageId, status: 'forgotten' };
}
