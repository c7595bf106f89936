import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { graphCandidates } from '../graph/graph-query.ts';
import { admitsFilter } from './filter-check.ts';
import { ledgerExactHits } from '../lifecycle/ledger.ts';
import { DEFAULT_TIE_EPSILON, rrf, type FusedResult, type RankedList } from '../retrieval/rrf.ts';
import { parseTimeQuery } from '../retrieval/time/time-expressions.ts';
import type { MemoryFilter } from '../ports/store.ts';
import type { VectorIndexUse } from '../ports/vectors.ts';
import { toStoreFilter } from './build-memory.ts';
import type { ServiceContext } from './context.ts';
import { embeddingsFor } from './embeddings.ts';
import { BuiltinEmbedder } from '../embedding/builtin/builtin-embedder.ts';
import { searchSchema, type SearchInput } from './inputs.ts';
import { parseInput } from './validate.ts';

export const SEARCH_MODES = ['keyword', 'vector', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];

/** The most memories an empty result's explain counts (it then says "more than" this many). */
export const VISIBLE_COUNT_CAP = 1000;

export interface SearchHit {
  memory: Memory;
  /** Fused score (Reciprocal Rank Fusion), higher is better. */
  score: number;
  /** Why it matched: the query terms it contains and its 1-based rank in each list that found it. */
  why: { matchedTerms: string[]; ranks: Record<string, number> };
}

export interface LedgerHit {
  key: string;
  value: string;
  statement: string | null;
  confidence: number;
  score: number;
}

export interface SearchResult {
  query: string;
  /** Exact hits in the canonical ledger of settled facts; they come before everything else. */
  ledger: LedgerHit[];
  hits: SearchHit[];
  /** What was searched; always present, and the whole answer when nothing matched. */
  explain: SearchExplain;
}

export interface SearchExplain {
  terms: string[];
  lists: string[];
  /** Lists that could not run, and why (e.g. no embedding model). */
  skipped: Record<string, string>;
  filter: Record<string, unknown>;
  scope: { namespace: string; role: string };
  time: { phrases: string[]; from: string; to: string } | null;
  vectorModel: string | null;
  /** Which vector index answered (exact scan or approximate index) and why; null when no vector list ran. */
  vectorIndex: VectorIndexUse | null;
  /**
   * How many memories were searched, counted only when nothing matched and
   * only up to VISIBLE_COUNT_CAP: counting a whole store reads every row in
   * scope (36 ms at 100k memories, far more than the search).
   */
  visibleMemories?: number;
  /** True when there are more than `visibleMemories`: the count stopped at the cap. */
  visibleMemoriesCapped?: boolean;
  message?: string;
}

/**
 * A search wherever this context runs searches: on a search thread when the
 * server started some (ctx.searchRunner), else here. Services that search
 * inside other work (context assembly, deep recall) call this, so the
 * server's event loop never runs a search while threads exist.
 */
export async function runSearch(ctx: ServiceContext, p: Principal, input: SearchInput & { mode?: SearchMode }): Promise<SearchResult> {
  if (input === null || typeof input !== 'object') throw new MnemosError('validation_failed', 'give a search as a query string or {query, ...}', { field: '(input)' });
  return ctx.searchRunner ? ctx.searchRunner(p, input) : searchMemories(ctx, p, input);
}

/** How deep each list goes into the fusion. */
const DEPTH = 100;

/**
 * The retrieval pipeline: canonical-ledger exact hits first, then keyword
 * (BM25 over the full-text index), vector (the namespace's embedder) and
 * graph lists fused with Reciprocal Rank Fusion. A time phrase in the query
 * ("last week", "in May 2023") adds a list of the fused results whose event
 * time falls in its range. Importance and recency only order near-ties.
 */
export async function searchMemories(ctx: ServiceContext, p: Principal, input: SearchInput & { mode?: SearchMode }): Promise<SearchResult> {
  const { mode: requested, ...rest } = input;
  const q = parseInput(searchSchema, rest, 'search request');
  const mode: SearchMode = requested ?? 'hybrid';
  if (!SEARCH_MODES.includes(mode)) throw new MnemosError('validation_failed', `unknown search mode ${JSON.stringify(mode)}: use ${SEARCH_MODES.join(', ')}`, { field: 'mode' });
  const filter = toStoreFilter(q.filter);
  const terms = ctx.analyzeQuery(q.query);
  const time = parseTimeQuery(q.query, q.referenceTime ?? new Date(ctx.now()).toISOString());
  // Records are needed for the page (with room for near-tie reordering and filtered-out graph ids), and for the time list.
  const need = mode === 'hybrid' && time.range ? Math.max(DEPTH, q.offset + q.limit) : Math.min(Math.max(DEPTH, q.offset + q.limit), 2 * (q.offset + q.limit) + 10);
  // Fusion needs deep lists; a single list needs only the records that will be read (ranks past `need` are never fetched).
  const depth = mode === 'hybrid' ? Math.max(DEPTH, q.offset + q.limit) : need;
  const lists: RankedList[] = [];
  const skipped: Record<string, string> = {};

  const keywordRun = mode !== 'vector' && terms.length ? ctx.store.keywordCandidates(p, { terms, filter, limit: depth }) : Promise.resolve([]);
  const [ledger, keyword, vector, graph] = await Promise.all([
    ledgerExactHits(ctx, p, q.query).catch(() => []),
    keywordRun,
    mode !== 'keyword' ? vectorList(ctx, p, time.text || q.query, filter, depth, skipped, mode === 'hybrid' ? keywordRun : null) : Promise.resolve(null),
    mode === 'hybrid' ? graphCandidates(ctx, p, q.query, depth).catch(() => []) : Promise.resolve([]),
  ]);
  if (mode !== 'vector') lists.push({ name: 'keyword', ids: keyword.map((k) => k.id) });
  if (vector) lists.push({ name: 'vector', ids: vector.ids });
  if (graph.length) lists.push({ name: 'graph', ids: graph, weight: ctx.config.graphListWeight });

  const first = rrf(lists, { k: ctx.config.rrfK });
  const byId = await fetchRecords(ctx, p, first, { want: mode === 'hybrid' && time.range ? need : q.offset + q.limit, cap: need, filter });
  // The graph list comes from outside the filtered queries: keep only what the filter admits.
  const known = (id: string) => byId.has(id) && admitsFilter(filter, byId.get(id)!);
  if (mode === 'hybrid' && time.range) {
    const from = Date.parse(time.range.from);
    const to = Date.parse(time.range.to);
    const inRange = first.map((f) => f.id).filter((id) => {
      if (!known(id)) return false;
      const t = Date.parse(byId.get(id)!.validFrom);
      return t >= from && t < to;
    });
    if (inRange.length) lists.push({ name: 'time', ids: inRange });
  }
  const fused = rrf(lists, { k: ctx.config.rrfK, tieBreaker: (id) => prior(byId.get(id)) }).filter((f) => known(f.id));

  const termSet = new Set(terms);
  const hits: SearchHit[] = fused
    .filter((f) => q.minScore === undefined || f.score >= q.minScore)
    .slice(q.offset, q.offset + q.limit)
    .map((f) => {
      const memory = byId.get(f.id)!;
      const own = new Set(ctx.analyzeQuery(memory.text));
      return { memory, score: f.score, why: { matchedTerms: [...termSet].filter((t) => own.has(t)), ranks: f.ranks } };
    });

  const explain: SearchExplain = {
    terms,
    lists: lists.map((l) => l.name),
    skipped,
    filter: q.filter,
    scope: { namespace: p.namespace, role: p.role },
    time: time.range ? { phrases: time.expressions.map((e) => e.phrase), from: time.range.from, to: time.range.to } : null,
    vectorModel: vector?.model ?? null,
    vectorIndex: vector?.index ?? null,
  };
  if (hits.length === 0) {
    // Counting what was searched costs a scan, so it is paid only when it is the answer, and only so far.
    const seen = await ctx.store.count(p, filter, VISIBLE_COUNT_CAP + 1);
    explain.visibleMemories = Math.min(seen, VISIBLE_COUNT_CAP);
    if (seen > VISIBLE_COUNT_CAP) explain.visibleMemoriesCapped = true;
    const searched = seen > VISIBLE_COUNT_CAP ? `more than ${VISIBLE_COUNT_CAP.toLocaleString('en')}` : String(seen);
    explain.message =
      terms.length === 0 && !vector
        ? `the query "${q.query}" has no searchable words (only stop words or punctuation)`
        : `nothing among the ${searched} memories visible to ${p.role} "${p.id}" in namespace "${p.namespace}" matched ${terms.length ? `the words ${terms.join(', ')}` : 'the query'} (lists searched: ${explain.lists.join(', ') || 'none'})`;
  }
  return {
    query: q.query,
    ledger: ledger.map((f) => ({ key: f.key, value: f.value, statement: f.statement ?? null, confidence: f.confidence, score: f.score })),
    hits,
    explain,
  };
}

async function vectorList(
  ctx: ServiceContext,
  p: Principal,
  text: string,
  filter: MemoryFilter,
  depth: number,
  skipped: Record<string, string>,
  keywordRun: Promise<unknown[]> | null,
): Promise<{ ids: string[]; model: string; index: VectorIndexUse } | null> {
  if (!ctx.store.vectors) {
    skipped.vector = `the ${ctx.store.backend} store has no vector index`;
    return null;
  }
  let svc: Awaited<ReturnType<typeof embeddingsFor>>;
  try {
    svc = await embeddingsFor(ctx, p);
  } catch (err) {
    // A model that cannot be loaded (a missing or broken ONNX directory) leaves keywords, as a failing endpoint does.
    if (!MnemosError.is(err, 'unavailable')) throw err;
    skipped.vector = `${(err as Error).message}; results are keyword-only`;
    return null;
  }
  if (!svc) {
    skipped.vector = 'embeddings are off (MNEMOS_EMBEDDINGS=off)';
    return null;
  }
  // Untrained, the built-in embedder's vectors know only word pieces. Fused with the keyword list they push good
  // keyword hits down (LoCoMo recall@5 0.546 keyword-only, 0.371 fused), so in a hybrid search they stand in
  // only when no keyword matched (a misspelt word, say). A vector-only search still gets them.
  if (keywordRun && svc.embedder instanceof BuiltinEmbedder && !svc.embedder.trained && (await keywordRun).length > 0) {
    skipped.vector = 'the built-in model is not trained yet (consolidation trains it once the namespace holds enough memories; `mnemos embed --backfill --retrain` trains it now): until then its vectors join a search only when no keyword matches';
    return null;
  }
  try {
    const qv = await svc.embedOne(text, { kind: 'query' });
    const { hits, index } = await ctx.store.vectors.nearest(p, { model: svc.model, vector: qv, filter, limit: depth });
    // Nearest neighbours always exist; only similar enough ones are evidence of a match.
    return { ids: hits.filter((h) => h.score >= ctx.config.vectorMinSimilarity).map((h) => h.id), model: svc.model, index };
  } catch (err) {
    // The index's own refusals (e.g. an approximate index configured but not installable) say so themselves.
    const e = err as Error & { code?: string };
    skipped.vector = e.code === 'unavailable' && /vector index/.test(e.message) ? `${e.message}; results are keyword-only` : `the embedder failed (${e.message}); results are keyword-only`;
    return null;
  }
}

/**
 * The records of fused candidates, best first, until `want` of them are
 * admitted by the filter and the tie group at that point is complete (priors
 * reorder ties, so a group is read whole), never past `cap`. Every record is
 * a table look-up: a page of ten usually costs ten or eleven, not the cap.
 * Whatever is not read ranks below everything that was, so the page is the
 * same as reading all `cap` records first.
 */
async function fetchRecords(ctx: ServiceContext, p: Principal, first: readonly FusedResult[], o: { want: number; cap: number; filter: MemoryFilter }): Promise<Map<string, Memory>> {
  const byId = new Map<string, Memory>();
  const cap = Math.min(o.cap, first.length);
  let fetched = 0;
  let admitted = 0;
  while (fetched < cap && admitted < o.want) {
    let end = Math.min(cap, fetched + Math.max(1, o.want - admitted));
    while (end < cap && first[end - 1]!.score - first[end]!.score <= DEFAULT_TIE_EPSILON) end++;
    const batch = first.slice(fetched, end);
    for (const m of await ctx.store.getMany(p, batch.map((f) => f.id))) byId.set(m.id, m);
    for (const f of batch) if (byId.has(f.id) && admitsFilter(o.filter, byId.get(f.id)!)) admitted++;
    fetched = end;
  }
  return byId;
}

/** Near-tie prior: importance, then recency. Never outranks the fusion itself. */
function prior(m: Memory | undefined): number {
  if (!m) return 0;
  return m.importance + Date.parse(m.validFrom) / 1e15;
}


