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

/** Terms for indexing, in document order, duplicates kept (term frequency matters). */
export function analyze(text: string): string[] {
  const out: string[] = [];
  for (const token of tokenize(text)) {
    if (ENGLISH_STOP_WORDS.has(token)) continue;
    out.push(porterStem(token));
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
    out.push(porterStem(token));
  }
  return out;
}
