import { sha256Hex } from '../../domain/hash.ts';
import type { Memory } from '../../domain/memory.ts';
import { fileOfKey, legacyFileKey } from '../../domain/source-keys.ts';
import type { WriteOp, WriteResult } from '../../ports/store.ts';

/**
 * A forgotten memory stays forgotten when its source is read again. An
 * unchanged Markdown file, a transcript posted again, an old export restored:
 * each would write the forgotten text back under its old source key or id,
 * and the memory a user removed would return without a word.
 *
 * tombstone_sources keeps a digest of each forgotten version's source key
 * with its text's hash, never the key itself: a client's key may say what
 * the memory said. An insert whose id was forgotten, or whose source key and
 * exact text were (any version's), is answered `forgotten` and writes
 * nothing, unless the op asks to restore; when the key's current version
 * holds other text, that version is closed, as the source no longer says
 * it. Another text under the same key is new content and is stored. A
 * restore lifts the match for what it restores.
 */
export function sourceDigest(sourceKey: string | null): string | null {
  return sourceKey === null ? null : sha256Hex(`source\0${sourceKey}`);
}

/** Whether this insert is checked against the tombstones. */
export function checksForgotten(op: Extract<WriteOp, { kind: 'insert' }>): boolean {
  return op.restoreForgotten !== true;
}

/**
 * A file's chunk or line is also forgotten as text of that file, wherever in
 * it the text sits: keyed by its lines alone, the text came back as soon as a
 * line was added above it (every later chunk gets new line numbers, so new
 * keys), and a forgotten note returned on the next import of an edited file.
 * Hashed apart from source keys, so no key's digest can equal a file's.
 */
function fileDigest(sourceKey: string): string | null {
  const file = fileOfKey(sourceKey);
  return file === null ? null : sha256Hex(`file\0${file}`);
}

/** The digests a tombstone of this source key is kept and looked up under: the key's, and its file's for a file's chunk or line. */
function sourceDigests(sourceKey: string): string[] {
  const file = fileDigest(sourceKey);
  return file === null ? [sourceDigest(sourceKey)!] : [sourceDigest(sourceKey)!, file];
}

/**
 * The source identities a tombstone would match: namespace, owner, a digest
 * of the key (or of its file), exact text. A chunk or line of a deep file
 * (its key names the file by a digest of its path) is also looked up under
 * the key an earlier version gave it, the path itself: a line forgotten
 * then was tombstoned under that key, and came back when a re-import keyed
 * the file anew. That path is the imported file's (`filePath`, the insert
 * op's) when the import gave it: a JSONL line with a source of its own has
 * another source.path, and its forgotten text came back.
 */
export function forgottenSources(m: Memory, filePath?: string): [string, string, string, string][] {
  if (m.sourceKey === null || m.supersededAt !== null) return [];
  const legacy = legacyFileKey(m.sourceKey, filePath ?? m.source.path);
  const digests = legacy === null ? sourceDigests(m.sourceKey) : [...sourceDigests(m.sourceKey), ...sourceDigests(legacy)];
  return digests.map((d) => [m.namespace, m.ownerId, d, m.contentHash]);
}

/**
 * The insert's answer when what it carries was forgotten: the id is the forgotten lineage's, which `get` answers with
 * `forgotten`; `retiredId` the version of another text its key held, closed by it (an import counts it as retired).
 */
export function forgottenResult(lineageId: string, retiredId?: string): WriteResult {
  return retiredId === undefined ? { kind: 'insert', id: lineageId, status: 'forgotten' } : { kind: 'insert', id: lineageId, status: 'forgotten', retiredId };
}

/** One row per distinct source key and text among a forgotten lineage's versions: [namespace, owner, digest, text hash, lineage]. */
export function forgottenSourceRows(versions: readonly Memory[], lineageId: string): [string, string, string, string, string][] {
  const seen = new Set<string>();
  const out: [string, string, string, string, string][] = [];
  for (const v of versions) {
    if (v.sourceKey === null) continue;
    for (const digest of sourceDigests(v.sourceKey)) {
      const row: [string, string, string, string, string] = [v.namespace, v.ownerId, digest, v.contentHash, lineageId];
      const k = row.join('\u0000');
      if (!seen.has(k)) out.push(row);
      seen.add(k);
    }
  }
  return out;
}

/**
 * The version ids a tombstone lists: those of an earlier forget of the same
 * lineage too (a memory restored on purpose, then forgotten again; the second
 * forget failed on the tombstone's key and the memory could not be removed).
 */
export function tombstoneVersionIds(prior: string | null | undefined, versionIds: readonly string[]): string {
  const earlier = prior ? (JSON.parse(prior) as string[]) : [];
  return JSON.stringify([...new Set([...earlier, ...versionIds])]);
}
