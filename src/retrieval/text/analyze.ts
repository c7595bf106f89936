/**
 * The one text analysis chain of Mnemos: tokenize -> drop stop words -> Porter
 * stem. The keyword index, BM25 re-scoring and the built-in embedder all call
 * these two functions, so a term means the same thing everywhere. Changing the
 * chain changes stored terms: bump ANALYZER_VERSION so stores can re-index.
 */
import { porterStem } from './porter-stemmer.ts';
import { ENGLISH_STOP_WORDS, QUERY_FRAME_WORDS } from './stop-words.ts';
import { NO_SPACE_SCRIPT } from './no-space-scripts.ts';
import { tokenize } from './tokenize.ts';

export const ANALYZER_VERSION = 'en-lucene33-porter+cjk-bigrams@2';

/**
 * Earlier chains whose terms differ from this one's only outside English:
 * @1 kept a run of Chinese, Japanese, Korean or Thai as one term and left
 * Turkish İ as "i" plus a dot. A built-in model trained under one still
 * loads (its rows for those old terms are simply never met, and the new
 * terms count as words it has not learned), and the next consolidation
 * retrains it (model-refresh.ts).
 */
export const OLDER_COMPATIBLE_ANALYZERS: ReadonlySet<string> = new Set(['en-lucene33-porter@1']);

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

/**
 * Terms of texts the built-in embedder has just analyzed as a by-product
 * (noteAnalysis). A write analyzes each text twice, a moment apart: the
 * embedder reads the batch's words, then the writer analyzes the same texts
 * for the full-text index, about 10 µs of a memory's 90. Small and cleared
 * when full, like the stem cache, for the same reason.
 */
const noted = new Map<string, readonly string[]>();
const NOTED_MAX = 2048;

/** Records `analyze(text)`'s answer, worked out by a caller that read the text's words anyway. */
export function noteAnalysis(text: string, terms: readonly string[]): void {
  if (noted.size >= NOTED_MAX) noted.clear();
  noted.set(text, terms);
}

/** Whether `analyze(text)` will answer from a noted analysis (tests). */
export function isNoted(text: string): boolean {
  return noted.has(text);
}

/** Terms for indexing, in document order, duplicates kept (term frequency matters). A fresh array. */
export function analyze(text: string): string[] {
  const known = noted.get(text);
  return known !== undefined ? known.slice() : analyzeText(text);
}

/** `analyze` worked out from the text, never from what was noted (tests check the two agree). */
export function analyzeText(text: string): string[] {
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
  for (const token of tokenize(text, true)) {
    if (ENGLISH_STOP_WORDS.has(token) || QUERY_FRAME_WORDS.has(token)) continue;
    out.push(stem(token));
  }
  return out;
}

/**
 * Whether `analyze` may give this text other terms than analyzer @1 did: it
 * holds a character of a script written without spaces, or a dot above
 * (Turkish İ). Stores re-index only such texts when they upgrade; a yes for
 * a text whose terms did not change costs one needless re-index, never a
 * wrong term.
 */
export function analyzedDifferentlyThanV1(text: string): boolean {
  return DOT_ABOVE.test(text) || NO_SPACE_SCRIPT.test(text.normalize('NFKC'));
}

const DOT_ABOVE = /[\u0130\u0307]/u;
