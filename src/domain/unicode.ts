import { MnemosError } from './errors.ts';

/**
 * A JavaScript string can hold half of a UTF-16 surrogate pair, which no
 * UTF-8 database column can store: SQLite and PostgreSQL write U+FFFD in its
 * place, so the stored text would differ from the text that was hashed and
 * `audit verify` would report tampering nobody did. Such input is refused.
 */
export function isWellFormed(s: string): boolean {
  return (s as string & { isWellFormed(): boolean }).isWellFormed();
}

export const LONE_SURROGATE = 'contains half of a UTF-16 surrogate pair (a broken character), which cannot be stored as given; send valid Unicode';

/**
 * PostgreSQL text cannot hold U+0000 (SQLite can): the same write stored on
 * one backend was an `internal` error on the other, and a SQLite store
 * holding one could not be copied over. Refused on both.
 */
export const hasNoNul = (s: string): boolean => !s.includes('\u0000');
export const NUL_CHAR = 'contains the NUL character (U+0000), which a PostgreSQL store cannot hold; remove it';

/**
 * Characters of `s` as a memory's size limits count them: code points, so an
 * emoji is one character, as the schemas of every surface (zod's max) count
 * it. Paths that measured `.length` (UTF-16 units) instead refused a Markdown
 * line of 100,001 emoji that `add`, HTTP and JSONL import store.
 */
export function charCount(s: string): number {
  let surrogates = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xdc00 && c <= 0xdfff && i > 0) {
      const h = s.charCodeAt(i - 1);
      if (h >= 0xd800 && h <= 0xdbff) surrogates++;
    }
  }
  return s.length - surrogates;
}

/** Whether `s` holds more than `max` characters (charCount), without counting a string that cannot. */
export const exceedsChars = (s: string, max: number): boolean => s.length > max && charCount(s) > max;

/** `at`, or one before it when a cut there would split a surrogate pair (half an emoji is not text). */
export function charBoundary(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const c = text.charCodeAt(at);
  return at > 0 && c >= 0xdc00 && c <= 0xdfff ? at - 1 : at;
}

/** Throws validation_failed when `value` is a string that cannot be stored as given. */
export function assertStorableText(value: string | null, field: string): void {
  if (value === null) return;
  if (!isWellFormed(value)) throw new MnemosError('validation_failed', `${field} ${LONE_SURROGATE}`, { field });
  if (!hasNoNul(value)) throw new MnemosError('validation_failed', `${field} ${NUL_CHAR}`, { field });
}

/**
 * Characters that show nothing and take no space: zero-width space and
 * joiners, direction marks and embeddings, word joiner and invisible
 * operators, soft hyphen, Mongolian vowel separator, byte-order mark.
 * Text of only these and whitespace looks blank and matches no search.
 */
const INVISIBLE_OR_SPACE = /[\s\u00AD\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/gu;

/** Whether `s` shows nothing: only whitespace and invisible format characters (or nothing at all). */
export const isBlankText = (s: string): boolean => s.replace(INVISIBLE_OR_SPACE, '') === '';
