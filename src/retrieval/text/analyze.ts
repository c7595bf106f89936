/**
 * The one text analysis chain of Mnemos: tokenize -> drop stop words -> Porter
 * stem. The keyword index, BM25 re-scoring and the built-in embedder all call
 * these two functions, so a term means the same thing everywhere. Changing the
 * chain changes stored terms: bump ANALYZER_VERSION so stores can re-index.
 */
import { porterStem } from './porter-stemmer.ts';
import { ENGLISH_STOP_WORDS, QUERY_FRAME_WORDS } from './stop-words.ts';
import { tokenize } from './tokenize.ts';

export const ANALYZER_VERSION = 'en-lucene33-porter@1';

/**
 * Stems of recently seen words. Words follow Zipf's law, so a few thousand
 * entries answer almost every look-up, and stemming was a large share of the
 * cost of a write. Bounded: cleared when full rather than grown forever.
 */
const stems = new Map<string, string>();
const STEM_CACHE_MAX = 100_000;

/**
 * porterStem, memoised (the stemmer is a pure function of the word). Tokens
 * with a digit are stemmed but not remembered: ids, counters and versions
 * ("r5.123", "2024") rarely recur, and a SLEEP flush of keyed events filled
 * the cache with them. Each new entry of a long-lived map is an old-to-new
 * reference every young-generation collection must trace, which made those
 * collections several times slower as the map grew.
 */
export function stem(token: string): string {
  let s = stems.get(token);
  if (s === undefined) {
    s = porterStem(token);
    if (HAS_DIGIT.test(token)) return s;
    if (stems.size >= STEM_CACHE_MAX) stems.clear();
    stems.set(token, s);
  }
  return s;
}

const HAS_DIGIT = /\p{N}/u;

/** Terms for indexing, in document order, duplicates kept (term frequency matters). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (ENGLISH_STOP_WORDS.has(token)) continue;
    out.push(stem(token));
  }
  return out;
}

/**
 * Terms of a query: the same chain as `analyze` (a query term must meet the
 * indexed term), minus the words that only frame a question (QUERY_FRAME_WORDS).
 * Duplicates are kept because a repeated query word weighs more, as in
 * Lucene's bag-of-words queries.
 */
export function analyzeQuery(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (ENGLISH_STOP_WORDS.has(token) || QUERY_FRAME_WORDS.has(token)) continue;
    out.push(stem(token));
  }
  return out;
}
