/**
 * The source keys an import gives a file's pieces: `file:<path>#L3` for a
 * JSONL line, `file:<path>#L3-L9` for a Markdown chunk. The format is read
 * in two layers (the import and memory_get by path; the adapters' tombstones,
 * which forget a file's text as text of its file), so it is defined once here.
 */

/** The start of every source key an import gives a file's chunks and lines. */
export function fileKeyPrefix(abs: string): string {
  return `file:${abs}#`;
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
  const prefix = fileKeyPrefix(abs);
  return key !== null && key.startsWith(prefix) && OWN_KEY.test(key.slice(prefix.length));
}

/** The file a chunk's or line's key names (`file:<path>#L3-L9` gives `<path>`); null for any other key. */
export function fileOfKey(key: string): string | null {
  const at = key.lastIndexOf('#');
  if (!key.startsWith('file:') || at <= 'file:'.length || !OWN_KEY.test(key.slice(at + 1))) return null;
  return key.slice('file:'.length, at);
}
