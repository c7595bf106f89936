/**
 * The source keys an import gives a file's pieces: `file:<path>#L3` for a
 * JSONL line, `file:<path>#L3-L9` for a Markdown chunk. The format is read
 * in two layers (the import and memory_get by path; the adapters' tombstones,
 * which forget a file's text as text of its file), so it is defined once here.
 */

import { sha256Hex } from './hash.ts';
import { charBoundary, charCount } from './unicode.ts';

/**
 * The longest path (in characters) whose keys hold the path itself. A key is
 * at most 512 characters, and `file:` + path + `#L<n>-L<n>` (line numbers of
 * up to ten digits) must fit: a note 500 characters deep was refused with
 * "key: Too big", naming a field the user never gave.
 */
export const PLAIN_KEY_PATH_MAX = 480;

/**
 * The start of every source key an import gives a file's chunks and lines.
 * A deeper path is named by its SHA-256 (unique and stable: a re-import finds
 * the same keys) and, for people reading keys, its file name's first 100
 * characters; the path itself stays in each memory's source.path. No
 * absolute path starts with `sha256:`, so the two forms never meet.
 */
export function fileKeyPrefix(abs: string): string {
  if (charCount(abs) <= PLAIN_KEY_PATH_MAX) return `file:${abs}#`;
  const name = abs.slice(Math.max(abs.lastIndexOf('/'), abs.lastIndexOf('\\')) + 1);
  return `file:sha256:${sha256Hex(abs)}:${name.slice(0, charBoundary(name, 100))}#`;
}

/**
 * The prefix earlier versions keyed a deep path's chunks and lines by (the
 * path itself: JSONL lines of any depth, Markdown chunks whose keys fitted),
 * when it is not the one used now; null otherwise. An import retires what
 * it finds there, so a re-import re-keys such a file once rather than
 * holding every line twice.
 */
export function legacyFileKeyPrefix(abs: string): string | null {
  const plain = `file:${abs}#`;
  return plain === fileKeyPrefix(abs) ? null : plain;
}

/**
 * The key an earlier version gave the chunk or line now keyed `key` (the
 * path itself in place of its digest), when `key` names a deep file by the
 * digest of `path` (the memory's source.path); null otherwise. A key whose
 * digest is not that path's is never paired with it: source.path is what a
 * JSONL line may set itself.
 */
export function legacyFileKey(key: string, path: string | undefined): string | null {
  if (path === undefined || !key.startsWith('file:sha256:')) return null;
  const prefix = fileKeyPrefix(path);
  const legacy = legacyFileKeyPrefix(path);
  return legacy !== null && isOwnKeyUnder(prefix, key) ? legacy + key.slice(prefix.length) : null;
}

/** What follows the prefix in a key of the file itself: a JSONL line (`L3`) or a Markdown chunk (`L3-L9`). */
const OWN_KEY = /^L\d+(?:-L\d+)?$/;

/**
 * True when `key` is one of this file's own keys. The prefix alone also
 * matches the keys of a file whose path is this one's plus "#..." (x.md and
 * x.md#2.md in one folder: `file:/n/x.md#2.md#L1-L3`), and importing either
 * file retired the other's chunks, so a folder's re-import never settled.
 * Such a key has a second "#" after the prefix; the file's own never do.
 */
export function isFileKey(abs: string, key: string | null): boolean {
  return isOwnKeyUnder(fileKeyPrefix(abs), key);
}

/** True when `key` is a chunk's or line's key right under `prefix` (a fileKeyPrefix or legacyFileKeyPrefix). */
export function isOwnKeyUnder(prefix: string, key: string | null): boolean {
  return key !== null && key.startsWith(prefix) && OWN_KEY.test(key.slice(prefix.length));
}

/** The file a chunk's or line's key names (`file:<path>#L3-L9` gives `<path>`); null for any other key. */
export function fileOfKey(key: string): string | null {
  const at = key.lastIndexOf('#');
  if (!key.startsWith('file:') || at <= 'file:'.length || !OWN_KEY.test(key.slice(at + 1))) return null;
  return key.slice('file:'.length, at);
}
