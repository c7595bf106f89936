/**
 * An exact BM25 index held in memory: postings per term, document lengths and
 * the corpus statistics. It is the reference the benchmarks and tests run
 * against; the SQLite store reproduces it with FTS5 candidates re-scored by the
 * same `bm25Idf`/`bm25TermWeight`, so figures carry over.
 */
import { MnemosError } from '../domain/errors.ts';
import type { CorpusStats, KeywordHit } from '../ports/store.ts';
import { assertBm25Params, bm25Idf, bm25TermWeight, DEFAULT_BM25, termFrequencies, type Bm25Params } from './bm25.ts';
import { analyze } from './text/analyze.ts';

interface Posting {
  docs: number[];
  tfs: number[];
}

export class InMemoryKeywordIndex {
  private readonly ids: string[] = [];
  private readonly position = new Map<string, number>();
  private readonly lengths: number[] = [];
  private readonly postings = new Map<string, Posting>();
  private totalLength = 0;
  private readonly params: Bm25Params;

  constructor(params: Bm25Params = DEFAULT_BM25) {
    assertBm25Params(params);
    this.params = { ...params };
  }

  /** Adds a document from its raw text (analyzed here) or from terms already analyzed. */
  add(id: string, text: string | { terms: readonly string[] }): void {
    if (this.position.has(id)) throw new MnemosError('conflict', `document "${id}" is already in the index`, { id });
    const terms = typeof text === 'string' ? analyze(text) : text.terms;
    const doc = this.ids.length;
    this.ids.push(id);
    this.position.set(id, doc);
    this.lengths.push(terms.length);
    this.totalLength += terms.length;
    for (const [term, tf] of termFrequencies(terms)) {
      let posting = this.postings.get(term);
      if (!posting) this.postings.set(term, (posting = { docs: [], tfs: [] }));
      posting.docs.push(doc);
      posting.tfs.push(tf);
    }
  }

  get size(): number {
    return this.ids.length;
  }

  stats(): CorpusStats {
    return { documents: this.ids.length, averageLength: this.ids.length ? this.totalLength / this.ids.length : 0 };
  }

  documentFrequency(term: string): number {
    return this.postings.get(term)?.docs.length ?? 0;
  }

  /**
   * Best `limit` documents for analyzed query terms (duplicates weigh more).
   * Equal scores keep insertion order, as Lucene keeps doc-id order.
   * `allow`, when given, restricts scoring to those documents (scope filters
   * apply before ranking, never after a global top-k).
   */
  search(queryTerms: readonly string[], limit: number, allow?: (id: string) => boolean): KeywordHit[] {
    const { documents, averageLength } = this.stats();
    const scores = new Map<number, number>();
    for (const [term, weight] of termFrequencies(queryTerms)) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      const idf = bm25Idf(posting.docs.length, documents);
      for (let i = 0; i < posting.docs.length; i++) {
        const doc = posting.docs[i]!;
        const part = weight * idf * bm25TermWeight(posting.tfs[i]!, this.lengths[doc]!, averageLength, this.params);
        scores.set(doc, (scores.get(doc) ?? 0) + part);
      }
    }
    const ranked = [...scores].filter(([doc]) => !allow || allow(this.ids[doc]!));
    ranked.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return ranked.slice(0, Math.max(0, limit)).map(([doc, score]) => ({ id: this.ids[doc]!, score }));
  }
}
