/**
 * Unicode-aware tokenizer: NFKC, locale-independent lower-casing, tokens are
 * runs of letters, combining marks and digits. It approximates Lucene's
 * StandardTokenizer + EnglishPossessiveFilter closely enough that BM25 figures
 * match Pyserini's, while staying a single regular expression:
 *
 * - an apostrophe between two word characters joins them ("don't" -> "dont"),
 *   and a trailing possessive "'s" is dropped ("Caroline's" -> "caroline");
 * - "." and "," between digits join them, so "3.5" stays one token and
 *   "1,000" becomes "1000" (the comma is a thousands separator, not a term);
 * - everything else (hyphens, slashes, punctuation, symbols) separates tokens.
 */

const WORD = /[\p{L}\p{M}\p{N}]+(?:['’ʼ][\p{L}\p{M}\p{N}]+|(?<=\p{N})[.,]\p{N}+)*/gu;
const POSSESSIVE = /['’ʼ]s$/u;
const APOSTROPHES = /['’ʼ]/gu;
const DIGIT_GROUPING = /(?<=\p{N}),(?=\p{N})/gu;

const NEEDS_CLEANING = /['’ʼ,]/u;

export function tokenize(text: string): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  // match() with a global pattern gives just the strings: matchAll made a match
  // object per token, the largest allocation of a write (every memory is
  // tokenized for the index and again for the embedder).
  const words = normalized.match(WORD);
  if (words === null) return [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let token = words[i]!;
    if (NEEDS_CLEANING.test(token)) {
      if (POSSESSIVE.test(token)) token = token.slice(0, -2);
      token = token.replace(APOSTROPHES, '').replace(DIGIT_GROUPING, '');
    }
    if (token.length > 0) out.push(token);
  }
  return out;
}
