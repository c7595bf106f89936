/**
 * The SciFact gate's search: exact in-memory BM25 over "title text" with our
 * analyzer (k1 0.9, b 0.4), the configuration of Pyserini's `bm25-flat`.
 */
import { analyzeQuery } from '../retrieval/text/analyze.ts';
import { InMemoryKeywordIndex } from '../retrieval/in-memory-keyword-index.ts';
import { DEFAULT_BM25, type Bm25Params } from '../retrieval/bm25.ts';
import type { BeirSearch } from './beir.ts';

export function inMemoryBm25Search(params: Bm25Params = DEFAULT_BM25): BeirSearch {
  return (corpus) => {
    const index = new InMemoryKeywordIndex(params);
    for (const doc of corpus) index.add(doc.id, doc.title ? `${doc.title} ${doc.text}` : doc.text);
    return (query, limit) => index.search(analyzeQuery(query.text), limit).map((h) => h.id);
  };
}
