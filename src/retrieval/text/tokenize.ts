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
 *
 * Scripts written without spaces between words (Chinese, Japanese, Korean
 * hangul, Thai, Lao, Khmer, Myanmar) have no word boundaries a regular
 * expression can find, so a run of them is cut into characters and
 * overlapping pairs of characters (no-space-scripts.ts). A character here is
 * a base with the marks that follow it: a Thai vowel or tone mark never
 * travels alone.
 *
 * Turkish İ lower-cases to "i" plus a combining dot above (the only letter
 * whose lower case adds a mark); the dot is dropped, so İSTANBUL and
 * istanbul meet. Other marks stay: the chain does not fold accents.
 */
import { splitNoSpaceRuns, NO_SPACE_SCRIPT } from './no-space-scripts.ts';

const WORD = /[\p{L}\p{M}\p{N}]+(?:['’ʼ][\p{L}\p{M}\p{N}]+|(?<=\p{N})[.,]\p{N}+)*/gu;
const POSSESSIVE = /['’ʼ]s$/u;
const APOSTROPHES = /['’ʼ]/gu;
const DIGIT_GROUPING = /(?<=\p{N}),(?=\p{N})/gu;

const NEEDS_CLEANING = /['’ʼ,]/u;
const DOTTED_I = /i\u0307/gu;
/** Every script without spaces lies at or above U+0E00 (Thai): a plain range test spares most texts the script test. */
const AT_OR_ABOVE_THAI = /[\u0E00-\uFFFF]/;

/**
 * Tokens of `text`, in order. `forQuery` changes only runs of no-space
 * scripts: a document gives each character and each pair, so a one-character
 * query finds it; a query of two characters or more gives only its pairs,
 * which are what say the characters stand together.
 */
export function tokenize(text: string, forQuery = false): string[] {
  let normalized = text.normalize('NFKC').toLowerCase();
  if (normalized.includes('\u0307')) normalized = normalized.replace(DOTTED_I, 'i');
  // match() with a global pattern gives just the strings: matchAll made a match
  // object per token, the largest allocation of a write (every memory is
  // tokenized for the index and again for the embedder).
  const words = normalized.match(WORD);
  if (words === null) return [];
  // One test per text: English text never pays for the per-token check below.
  const spaceless = AT_OR_ABOVE_THAI.test(normalized) && NO_SPACE_SCRIPT.test(normalized);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let token = words[i]!;
    if (NEEDS_CLEANING.test(token)) {
      if (POSSESSIVE.test(token)) token = token.slice(0, -2);
      token = token.replace(APOSTROPHES, '').replace(DIGIT_GROUPING, '');
    }
    if (token.length === 0) continue;
    if (spaceless && NO_SPACE_SCRIPT.test(token)) splitNoSpaceRuns(token, forQuery, out);
    else out.push(token);
  }
  return out;
}
