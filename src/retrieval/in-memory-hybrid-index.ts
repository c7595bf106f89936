/**
 * The retrieval pipeline over an in-memory corpus: the reference the
 * benchmarks measure and the shape the store-backed engine follows.
 *
 *   query ─ time phrases ─┬─ keyword: exact BM25, smoothed over session neighbours
 *                         ├─ vector:  cosine to contextual document vectors
 *                         └─ time:    fused keyword+vector order, restricted to the phrase's valid-time range
 *   RRF(keyword, vector, time) -> results with every list's rank (explain)
 */
import { MnemosError } from '../domain/errors.ts';
import type { EmbeddingService } from '../embedding/embedding-service.ts';
import { DEFAULT_BM25, type Bm25Params } from './bm25.ts';
import { InMemoryKeywordIndex } from './in-memory-keyword-index.ts';
import { InMemoryVectorIndex } from './in-memory-vector-index.ts';
import { rrf, DEFAULT_RRF_K, type FusedResult, type RankedList } from './rrf.ts';
import { contextualVector, DEFAULT_CONTEXT_WEIGHTS, rankScores, smoothScores, type ContextWeights, type Neighbours } from './session-context.ts';
import { analyzeQuery } from './text/analyze.ts';
import { parseTimeQuery, type TimeExpression, type TimeQuery } from './time/time-expressions.ts';

export interface HybridDocument {
  id: string;
  text: string;
  /** Event time, ISO. */
  validFrom?: string;
  /** Documents of one session, added in order, are each other's neighbours. */
  sessionId?: string;
}

export type SearchMode = 'keyword' | 'vector' | 'hybrid';

export interface HybridOptions {
  bm25: Bm25Params;
  rrfK: number;
  weights: { keyword: number; vector: number; time: number };
  /** Session-neighbour context for both lists; null turns it off. */
  context: ContextWeights | null;
  /** How deep each list goes into fusion. */
  depth: number;
  /** Which time phrases become a boost list (LoCoMo uses 'absolute': its questions are asked at no point in time). */
  timeBoost: 'all' | 'absolute' | 'off';
  /** Which time phrases are cut from the query text. */
  timeStrip: 'all' | 'absolute' | 'none';
}

export const DEFAULT_HYBRID: Readonly<HybridOptions> = Object.freeze({
  bm25: DEFAULT_BM25,
  rrfK: DEFAULT_RRF_K,
  weights: { keyword: 1, vector: 1, time: 1 },
  context: DEFAULT_CONTEXT_WEIGHTS,
  depth: 200,
  timeBoost: 'all',
  timeStrip: 'none',
});

export interface HybridQuery {
  text: string;
  limit: number;
  mode?: SearchMode;
  /** "Now" for relative time phrases; default: no time handling for relative phrases is possible without it. */
  referenceDate?: string;
  allow?: (id: string) => boolean;
}

export interface HybridOutcome {
  results: FusedResult[];
  time: TimeQuery | null;
  /** What was searched, for explain when nothing is found. */
  searched: { terms: string[]; lists: string[]; timeRange: { from: string; to: string } | null };
}

export class InMemoryHybridIndex {
  private readonly keyword: InMemoryKeywordIndex;
  private readonly vectors: InMemoryVectorIndex;
  private readonly neighbours = new Map<string, Neighbours>();
  private readonly validFrom = new Map<string, number>();

  private constructor(
    private readonly embeddings: EmbeddingService,
    private readonly options: HybridOptions,
  ) {
    this.keyword = new InMemoryKeywordIndex(options.bm25);
    this.vectors = new InMemoryVectorIndex(embeddings.dimensions);
  }

  static async build(docs: readonly HybridDocument[], embeddings: EmbeddingService, options: Partial<HybridOptions> = {}): Promise<InMemoryHybridIndex> {
    const index = new InMemoryHybridIndex(embeddings, { ...DEFAULT_HYBRID, ...options });
    const own = await embeddings.embed(docs.map((d) => d.text), { kind: 'document' });
    docs.forEach((d, i) => {
      const prev = docs[i - 1];
      const next = docs[i + 1];
      const sameSession = (o: HybridDocument | undefined): o is HybridDocument => o !== undefined && d.sessionId !== undefined && o.sessionId === d.sessionId;
      index.neighbours.set(d.id, { previous: sameSession(prev) ? prev.id : undefined, next: sameSession(next) ? next.id : undefined });
      if (d.validFrom !== undefined) index.validFrom.set(d.id, Date.parse(d.validFrom));
      index.keyword.add(d.id, d.text);
      const ctx = index.options.context;
      const vector = ctx ? contextualVector(own[i]!, sameSession(prev) ? own[i - 1] : undefined, sameSession(next) ? own[i + 1] : undefined, ctx) : own[i]!;
      index.vectors.add(d.id, vector);
    });
    return index;
  }

  async search(q: HybridQuery): Promise<HybridOutcome> {
    if (!(q.limit >= 0)) throw new MnemosError('validation_failed', `limit must be >= 0, got ${q.limit}`, { field: 'limit' });
    const o = this.options;
    const mode = q.mode ?? 'hybrid';
    const time = q.referenceDate ? parseTimeQuery(q.text, q.referenceDate, { strip: o.timeStrip }) : null;
    const text = time ? time.text : q.text;
    const terms = analyzeQuery(text);
    const lists: RankedList[] = [];
    if (mode !== 'vector') lists.push({ name: 'keyword', ids: this.keywordList(terms, q.allow), weight: o.weights.keyword });
    if (mode !== 'keyword') {
      const qv = await this.embeddings.embedOne(text, { kind: 'query' });
      lists.push({ name: 'vector', ids: this.vectorList(qv, q.allow), weight: o.weights.vector });
    }
    const boosts = (time?.expressions ?? []).filter((e) => o.timeBoost === 'all' || (o.timeBoost === 'absolute' && e.kind === 'absolute'));
    const range = boosts.length && mode === 'hybrid' ? hull(boosts) : null;
    if (range) {
      const from = Date.parse(range.from);
      const to = Date.parse(range.to);
      const inRange = (id: string): boolean => {
        const t = this.validFrom.get(id);
        return t !== undefined && t >= from && t < to;
      };
      const order = rrf(lists, { k: o.rrfK }).map((r) => r.id).filter(inRange);
      lists.push({ name: 'time', ids: order, weight: o.weights.time });
    }
    const results = rrf(lists, { k: o.rrfK }).slice(0, q.limit);
    return { results, time, searched: { terms, lists: lists.map((l) => l.name), timeRange: range } };
  }

  private keywordList(terms: string[], allow?: (id: string) => boolean): string[] {
    const o = this.options;
    if (!o.context) return this.keyword.search(terms, o.depth, allow).map((h) => h.id);
    const raw = new Map(this.keyword.search(terms, Number.MAX_SAFE_INTEGER, allow).map((h) => [h.id, h.score]));
    const touched = new Set(raw.keys());
    for (const id of raw.keys()) {
      const n = this.neighbours.get(id);
      if (n?.previous !== undefined) touched.add(n.previous);
      if (n?.next !== undefined) touched.add(n.next);
    }
    const allowed = [...touched].filter((id) => !allow || allow(id));
    return rankScores(smoothScores(raw, allowed, (id) => this.neighbours.get(id) ?? {}, o.context), o.depth);
  }

  private vectorList(query: Float32Array, allow?: (id: string) => boolean): string[] {
    return this.vectors.search(query, this.options.depth, allow).map((h) => h.id);
  }
}

function hull(expressions: readonly TimeExpression[]): { from: string; to: string } {
  return {
    from: expressions.map((e) => e.range.from).reduce((a, b) => (a < b ? a : b)),
    to: expressions.map((e) => e.range.to).reduce((a, b) => (a > b ? a : b)),
  };
}
