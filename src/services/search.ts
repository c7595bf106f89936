import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import { graphCandidates } from '../graph/graph-query.ts';
import { admitsFilter } from './filter-check.ts';
import { currentVersion } from './memories.ts';
import { ledgerExactHits } from '../lifecycle/ledger.ts';
import { DEFAULT_TIE_EPSILON, rrf, type FusedResult, type RankedList } from '../retrieval/rrf.ts';
import { parseTimeQuery } from '../retrieval/time/time-expressions.ts';
import type { MemoryFilter } from '../ports/store.ts';
import type { VectorIndexUse } from '../ports/vectors.ts';
import { toStoreFilter } from './build-memory.ts';
import type { ServiceContext } from './context.ts';
import { embeddingsFor } from './embeddings.ts';
import { BuiltinEmbedder } from '../embedding/builtin/builtin-embedder.ts';
import { MAX_SEARCH_OFFSET, searchSchema, type SearchInput } from './inputs.ts';
import { parseInput } from './validate.ts';
import { parseIso } from '../domain/time.ts';
import { analyze } from '../retrieval/text/analyze.ts';

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
  /** Whether the ranking goes on past this page (above minScore, when one was given). */
  hasMore: boolean;
  /** The offset of the next page, or null: none follows, or it would start past MAX_SEARCH_OFFSET. */
  nextOffset: number | null;
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
  /** Set when minScore dropped a result that matched: the best score among those dropped. */
  belowMinScore?: { minScore: number; bestScore: number };
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

/** How deep each list goes into the fusion: the first tier of a hybrid search (tierDepths). */
const DEPTH = 100;

/**
 * The depths a hybrid search fuses at: DEPTH, then doubling until the page
 * fits. Each tier is a fixed depth, so the fused order never depends on
 * offset or limit: a page is a slice of the one ranking every page of the
 * query shares. (The lists used to be read max(DEPTH, offset + limit) deep,
 * and the time list built from as many records: page 15 of ten fused other
 * lists than page 1, repeating some memories and never showing others.)
 */
function tierDepths(want: number): number[] {
  const out = [DEPTH];
  while (out[out.length - 1]! < want) out.push(out[out.length - 1]! * 2);
  return out;
}

/**
 * The retrieval pipeline: canonical-ledger exact hits first, then keyword
 * (BM25 over the full-text index), vector (the namespace's embedder) and
 * graph lists fused with Reciprocal Rank Fusion. A time phrase in the query
 * ("last week", "in May 2023") adds a list of the fused results whose event
 * time falls in its range. Importance and recency only order near-ties.
 *
 * A hybrid ranking is built in tiers (tierDepths): the fusion of the lists
 * cut at 100, then what the fusion at 200 adds, and so on, each read only as
 * far as the page needs. Results stop at the first below `minScore`.
 */
export async function searchMemories(ctx: ServiceContext, p: Principal, input: SearchInput & { mode?: SearchMode }): Promise<SearchResult> {
  const { mode: requested, ...rest } = input;
  const q = parseInput(searchSchema, rest, 'search request');
  const mode: SearchMode = requested ?? 'hybrid';
  if (!SEARCH_MODES.includes(mode)) throw new MnemosError('validation_failed', `unknown search mode ${JSON.stringify(mode)}: use ${SEARCH_MODES.join(', ')}`, { field: 'mode' });
  const filter = toStoreFilter(q.filter);
  const terms = ctx.analyzeQuery(q.query);
  const time = parseTimeQuery(q.query, q.referenceTime ?? new Date(ctx.now()).toISOString());
  // One result past the page says whether another page follows, without a second search: a page is a slice of
  // the one ranking every page of the query shares, whatever its length.
  const want = q.offset + q.limit + 1;
  // A single list is the same order at any depth, so it is read only as deep as the page needs (with room for
  // records a race removed); fused lists are read to the deepest tier the page reaches.
  const tiers = mode === 'hybrid' ? tierDepths(want) : [Math.min(Math.max(DEPTH, want), 2 * want + 10)];
  const depth = tiers[tiers.length - 1]!;
  const skipped: Record<string, string> = {};

  const keywordRun = mode !== 'vector' && terms.length ? ctx.store.keywordCandidates(p, { terms, filter, limit: depth }) : Promise.resolve([]);
  const [ledger, keyword, vector, graph] = await Promise.all([
    ledgerExactHits(ctx, p, q.query).catch(() => []),
    keywordRun,
    mode !== 'keyword' ? vectorList(ctx, p, time.text || q.query, filter, depth, skipped, mode === 'hybrid' ? keywordRun : null) : Promise.resolve(null),
    mode === 'hybrid' ? graphCandidates(ctx, p, q.query, depth).catch(() => []) : Promise.resolve([]),
  ]);
  // A look-back search (asOf, knownAt) leads only with facts already settled by then: the ledger holds the facts
  // settled now, and one pinned later was put first as if it had been known at the time asked about.
  // parseIso, not Date.parse: a zone-less bound is UTC here as in the store's filters (Date.parse read it in the
  // machine's zone, so a server in Tokyo left out a fact a server in London put first).
  const lookBack = [filter.asOf, filter.knownAt].filter((t): t is string => t !== undefined).map(parseIso);
  const settled = lookBack.length === 0 ? ledger : ledger.filter((f) => Date.parse(f.validFrom) <= Math.min(...lookBack));
  const records = new RecordReader(ctx, p, filter);
  const keywordIds = keyword.map((k) => k.id);
  // The graph list comes from outside the store's scoped, filtered queries. Its ids that the filter (or the
  // caller's scope) refuses are dropped before fusion, in one read of the records the other lists lack: left in,
  // they took ranks and records from the page, and `--type fact --limit 10` found nothing where `--limit 20`
  // found five facts.
  let graphOk: (id: string) => boolean = () => true;
  if (graph.length) {
    const listed = new Set([...keywordIds, ...(vector?.ids ?? [])]);
    await records.read(graph.filter((id) => !listed.has(id)));
    graphOk = (id) => listed.has(id) || records.admitted(id);
  }
  const listsAt = (d: number): RankedList[] => {
    const lists: RankedList[] = [];
    if (mode !== 'vector') lists.push({ name: 'keyword', ids: keywordIds.slice(0, d) });
    if (vector) lists.push({ name: 'vector', ids: vector.ids.slice(0, d) });
    const g = graph.slice(0, d).filter(graphOk);
    if (g.length) lists.push({ name: 'graph', ids: g, weight: ctx.config.graphListWeight });
    return lists;
  };

  const from = time.range ? Date.parse(time.range.from) : 0;
  const to = time.range ? Date.parse(time.range.to) : 0;
  const ranking: FusedResult[] = [];
  const placed = new Set<string>();
  const used: string[] = [];
  let cut = false;
  let lastOrder: FusedResult[] = [];
  for (const d of tiers) {
    if (cut || ranking.length >= want) break;
    const lists = listsAt(d);
    if (mode === 'hybrid' && time.range) {
      // The time list: the tier's fused order cut at its depth, restricted to the phrase's range.
      const top = rrf(lists, { k: ctx.config.rrfK }).slice(0, d).map((f) => f.id);
      await records.read(top);
      const inRange = top.filter((id) => {
        if (!records.admitted(id)) return false;
        const t = Date.parse(records.get(id)!.validFrom);
        return t >= from && t < to;
      });
      if (inRange.length) lists.push({ name: 'time', ids: inRange });
    }
    for (const l of lists) if (!used.includes(l.name)) used.push(l.name);
    const order = rrf(lists, { k: ctx.config.rrfK });
    const { end, below } = await readPrefix(records, order, { need: want - ranking.length, placed, minScore: q.minScore });
    // Past the first new result below minScore the ranking ends: a deeper tier could score some memory higher,
    // but whether a page saw it would then depend on how far that page read.
    cut = below;
    lastOrder = order;
    // Priors reorder only inside tie groups, and readPrefix read whole groups: the first `end` are the same set.
    const final = rrf(lists, { k: ctx.config.rrfK, tieBreaker: (id) => prior(records.get(id)) });
    for (const f of final.slice(0, end)) {
      if (placed.has(f.id) || !records.admitted(f.id)) continue;
      if (q.minScore !== undefined && f.score < q.minScore) continue;
      placed.add(f.id);
      ranking.push(f);
    }
  }

  const termSet = new Set(terms);
  const hits: SearchHit[] = ranking.slice(q.offset, q.offset + q.limit).map((f) => {
    const memory = records.get(f.id)!;
    // The memory's document terms: a one-character Chinese or Japanese query term is among them, not among the pairs a query analysis of the same text gives.
    const own = new Set(analyze(memory.text));
    return { memory, score: f.score, why: { matchedTerms: [...termSet].filter((t) => own.has(t)), ranks: f.ranks } };
  });

  const explain: SearchExplain = {
    terms,
    lists: used,
    skipped,
    filter: q.filter,
    scope: { namespace: p.namespace, role: p.role },
    time: time.range ? { phrases: time.expressions.map((e) => e.phrase), from: time.range.from, to: time.range.to } : null,
    vectorModel: vector?.model ?? null,
    // Its figures are the whole namespace's (how many vectors, how many candidates): the owner's, as in status.
    vectorIndex: p.role === 'owner' ? (vector?.index ?? null) : null,
  };
  if (hits.length === 0 && q.offset > 0 && ranking.length > 0) {
    // A page past the end of a ranking that has results: "nothing matched" would deny the earlier pages.
    explain.message = `no results from offset ${q.offset} on: the query has ${ranking.length} result${ranking.length === 1 ? '' : 's'}, all on earlier pages`;
  } else if (hits.length === 0) {
    // Counting what was searched costs a scan, so it is paid only when it is the answer, and only so far.
    const seen = await ctx.store.count(p, filter, VISIBLE_COUNT_CAP + 1);
    explain.visibleMemories = Math.min(seen, VISIBLE_COUNT_CAP);
    if (seen > VISIBLE_COUNT_CAP) explain.visibleMemoriesCapped = true;
    const searched = seen > VISIBLE_COUNT_CAP ? `more than ${VISIBLE_COUNT_CAP.toLocaleString('en')}` : String(seen);
    const bestDropped = q.minScore !== undefined && ranking.length === 0 ? await bestAdmitted(records, lastOrder) : undefined;
    if (q.minScore !== undefined && bestDropped !== undefined) explain.belowMinScore = { minScore: q.minScore, bestScore: bestDropped };
    explain.message =
      terms.length === 0 && !vector
        ? `the query "${q.query}" has no searchable words (only stop words or punctuation)`
        : explain.belowMinScore
          ? `memories matched, but every one scored below minScore ${q.minScore} (the best scored ${explain.belowMinScore.bestScore.toFixed(4)}; scores are rank-fusion sums, at most about ${(explain.lists.length / (ctx.config.rrfK + 1)).toFixed(3)} here): lower minScore or leave it out`
          : `nothing among the ${searched} memories visible to ${p.role} "${p.id}" in namespace "${p.namespace}" matched ${terms.length ? `the words ${terms.join(', ')}` : 'the query'} (lists searched: ${explain.lists.join(', ') || 'none'})`;
  }
  const next = q.offset + q.limit;
  const hasMore = ranking.length > next;
  return {
    query: q.query,
    ledger: settled.map((f) => ({ key: f.key, value: f.value, statement: f.statement ?? null, confidence: f.confidence, score: f.score })),
    hits,
    hasMore,
    nextOffset: hasMore && next <= MAX_SEARCH_OFFSET ? next : null,
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
  // Trained, the built-in model has learnt which words go together from every memory of the namespace,
  // owner-only ones included: a guest's query for a word only the owner wrote ranked the guest's shared
  // memories by the owner's private associations. Guests and agents search by words and the graph then;
  // an external model (learnt elsewhere) serves them vectors as usual.
  if (p.role !== 'owner' && svc.embedder instanceof BuiltinEmbedder && svc.embedder.trained) {
    skipped.vector = "the built-in model is learnt from all of the namespace's memories, owner-only ones included, so only the owner's searches use it; results are keyword and graph (an external embedding model serves everyone)";
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
    let { hits, index } = await ctx.store.vectors.nearest(p, { model: svc.model, vector: qv, filter, limit: depth });
    // No vector of this process's built-in model in the namespace: another process's `embed --backfill --retrain`
    // may have replaced the model and dropped its vectors since this process last looked (every 10 s). Look now
    // rather than rank without vectors until then; an empty namespace costs one small read.
    if (index.vectors === 0 && svc.embedder instanceof BuiltinEmbedder) {
      const newer = await embeddingsFor(ctx, p, { fresh: true });
      if (newer && newer.model !== svc.model && !(p.role !== 'owner' && newer.embedder instanceof BuiltinEmbedder && newer.embedder.trained)) {
        svc = newer;
        ({ hits, index } = await ctx.store.vectors.nearest(p, { model: svc.model, vector: await svc.embedOne(text, { kind: 'query' }), filter, limit: depth }));
      }
    }
    // Nearest neighbours always exist; only similar enough ones are evidence of a match.
    return { ids: hits.filter((h) => h.score >= ctx.config.vectorMinSimilarity).map((h) => h.id), model: svc.model, index };
  } catch (err) {
    // The index's own refusals (e.g. an approximate index configured but not installable) say so themselves.
    const e = err as Error & { code?: string };
    skipped.vector = e.code === 'unavailable' && /vector index/.test(e.message) ? `${e.message}; results are keyword-only` : `the embedder failed (${e.message}); results are keyword-only`;
    return null;
  }
}

/** The records a search reads, each id asked for once, and whether the filter admits each. */
class RecordReader {
  private readonly byId = new Map<string, Memory>();
  private readonly asked = new Set<string>();
  private readonly admits = new Map<string, boolean>();
  /** Earlier versions whose own time to live ran out, of memories renewed since. */
  private readonly renewed = new Set<string>();
  // One clock for the whole search: expiry is checked against it.
  private readonly now = Date.now();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly p: Principal,
    private readonly filter: MemoryFilter,
  ) {}

  /** Reads the records not read yet, in one store call. */
  async read(ids: readonly string[]): Promise<void> {
    const missing = [...new Set(ids)].filter((id) => !this.asked.has(id));
    if (missing.length === 0) return;
    for (const id of missing) this.asked.add(id);
    const read = await this.ctx.store.getMany(this.p, missing);
    for (const m of read) this.byId.set(m.id, m);
    // "As known at", an earlier version's own expiresAt does not count when the memory was renewed since (scope-sql.ts):
    // its lineage's current version decides. Rare (a superseded version past its own TTL), so read lineage by lineage.
    if (this.filter.knownAt) {
      for (const m of read) {
        if (m.supersededAt === null || m.expiresAt === null || Date.parse(m.expiresAt) > this.now) continue;
        const current = await currentVersion(this.ctx, this.p, m);
        if (!current || current.expiresAt === null || Date.parse(current.expiresAt) > this.now) this.renewed.add(m.id);
      }
    }
  }

  get(id: string): Memory | undefined {
    return this.byId.get(id);
  }

  /** Read, visible and admitted by the filter (the store's filter, checked on the record: filter-check.ts). */
  admitted(id: string): boolean {
    let ok = this.admits.get(id);
    if (ok === undefined) {
      const m = this.byId.get(id);
      ok = m !== undefined && admitsFilter(this.filter, this.renewed.has(id) ? { ...m, expiresAt: null } : m, this.now);
      if (this.asked.has(id)) this.admits.set(id, ok);
    }
    return ok;
  }
}

/**
 * Reads the records of a fused order, best first, until `need` new results
 * (not placed by an earlier tier, admitted, at or above minScore) are found
 * or the order ends or falls below minScore, and the tie group at that point
 * is complete (priors reorder ties, so a group is read whole). Returns how
 * many of the order were read, and whether a new result below minScore was
 * met. Usually one store call: candidates are admitted unless a race
 * removed them; when some are not, the next read doubles so the calls stay few.
 */
async function readPrefix(
  records: RecordReader,
  order: readonly FusedResult[],
  o: { need: number; placed: ReadonlySet<string>; minScore: number | undefined },
): Promise<{ end: number; below: boolean }> {
  let end = 0;
  let found = 0;
  while (found < o.need && end < order.length) {
    let next = end;
    let counted = 0;
    const step = Math.max(o.need - found, end);
    while (next < order.length && counted < step) {
      const f = order[next]!;
      // Scores fall along the order: past the first new result below minScore nothing more is taken.
      if (o.minScore !== undefined && f.score < o.minScore && !o.placed.has(f.id)) break;
      if (!o.placed.has(f.id)) counted++;
      next++;
    }
    const below = next < order.length && counted < step;
    while (next < order.length && next > 0 && order[next - 1]!.score - order[next]!.score <= DEFAULT_TIE_EPSILON) next++;
    if (next > end) {
      await records.read(order.slice(end, next).map((f) => f.id));
      for (const f of order.slice(end, next)) if (!o.placed.has(f.id) && records.admitted(f.id) && (o.minScore === undefined || f.score >= o.minScore)) found++;
      end = next;
    }
    if (below) return { end, below };
  }
  return { end, below: false };
}

/**
 * The score of the best result the caller may see in a fused order (best
 * first), reading its first rows a chunk at a time: what minScore dropped,
 * for the answer left empty by it.
 */
async function bestAdmitted(records: RecordReader, order: readonly FusedResult[]): Promise<number | undefined> {
  for (let i = 0; i < Math.min(order.length, 400); i += 100) {
    const chunk = order.slice(i, i + 100);
    await records.read(chunk.map((f) => f.id));
    const f = chunk.find((x) => records.admitted(x.id));
    if (f) return f.score;
  }
  return undefined;
}

/** Near-tie prior: importance, then recency. Never outranks the fusion itself. */
function prior(m: Memory | undefined): number {
  if (!m) return 0;
  return m.importance + Date.parse(m.validFrom) / 1e15;
}


