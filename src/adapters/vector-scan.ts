import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { MemoryFilter } from '../ports/store.ts';
import { DEFAULT_VECTOR_INDEX, type VectorHit, type VectorIndexConfig, type VectorIndexUse, type VectorMatches } from '../ports/vectors.ts';
import type { SqlPart } from './sql/scope-sql.ts';
import type { GraphSnapshots } from './graph-snapshots.ts';
import { loadUsearch, usearchInstalled, USEARCH_VERSION } from './usearch.ts';
import { ApproximateIndex, PENDING_MAX } from './vector-ann.ts';
import { candidatesNeeded, firstCandidates } from './candidate-sizes.ts';
import { VectorCache, type VectorRows } from './vector-cache.ts';
import { streamedNearest } from './vector-stream.ts';

/** The stored form of a vector in both SQL backends: its float32 bytes, in the machine's byte order. */
export function vectorToBytes(v: Float32Array): Buffer {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength);
}

/** Copies the bytes, so the array is aligned and owns its memory whatever buffer the driver handed over. */
function vectorFromBytes(b: Uint8Array): Float32Array {
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
}

/**
 * The float32s of a stored vector without copying them when the driver's
 * buffer allows it (aligned), else a copy. A view lives only as long as the
 * driver's buffer: fine for a row copied into the matrix at once, as a load
 * of every vector does, where a copy per row was a third of the load's time.
 */
export function vectorView(b: Uint8Array): Float32Array {
  return b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2) : vectorFromBytes(b);
}

/** What an adapter supplies so the scan can ask its own SQL which rows a principal and filter admit. */
export interface AdmittedRowsSource {
  /** The store's scope-and-filter SQL (scope-sql.ts), with `?` placeholders. */
  where(p: Principal, filter: MemoryFilter): SqlPart;
  /** Numeric row keys (the ones the change log names) of the memories `w` admits. */
  rowsWhere(w: SqlPart): Promise<number[]>;
  /** Which of these row keys `w` admits: the approximate path checks its few hundred candidates, not every admitted row. */
  rowsAmong(w: SqlPart, rowids: number[]): Promise<number[]>;
  /** Changes whenever a write may have changed which rows a filter admits. */
  dataVersion(): Promise<string>;
}

/** The approximate path first asks the index for this many times `limit` candidates... */
const OVERFETCH = 4;
/** ...and at most this many times `limit` before the exact scan of the admitted rows answers instead. */
const MAX_OVERFETCH = 16;

/** Searches of one scope and filter with no write between them after which the exact path lists the admitted rows once and reuses the set. */
const QUIET_SEARCHES = 32;

/** Checks a vector index configuration before a store opens: an approximate index that is required must be installable. */
export function checkVectorIndexConfig(config: VectorIndexConfig): void {
  if (!['auto', 'exact', 'approximate'].includes(config.mode)) {
    throw new MnemosError('validation_failed', `the vector index mode must be auto, exact or approximate, not "${config.mode}"`, { field: 'vectorIndex.mode' });
  }
  if (!(Number.isInteger(config.threshold) && config.threshold >= 0)) {
    throw new MnemosError('validation_failed', `the approximate index threshold must be a whole number of vectors >= 0, not ${config.threshold}`, { field: 'vectorIndex.threshold' });
  }
  if (config.mode === 'approximate' && !usearchInstalled()) {
    throw new MnemosError('unavailable', `the vector index mode "approximate" needs the optional package usearch, which is not installed (npm install -E usearch@${USEARCH_VERSION}), or choose mode auto or exact`, {
      field: 'vectorIndex.mode',
    });
  }
}

/** A model not searched for this long has its in-process copy (and indexes) dropped the next time another model is searched. */
const MODEL_IDLE_MS = 10 * 60_000;

interface ModelState {
  cache: VectorCache;
  lastUsed: number;
  /** Searches of this model so far: the first one streams the rows instead of loading the copy (VectorScan.nearest). */
  searches: number;
  /** Approximate indexes of this model, one per namespace that has one. */
  approximate: Map<string, ApproximateIndex>;
}

/**
 * Nearest neighbours for the SQL adapters, with scope and filters before
 * ranking. Each model's vectors live in an in-process matrix (VectorCache)
 * that follows the database's change log. Which index answers is decided
 * here and nowhere else, per query, from the configuration and the size of
 * the caller's namespace:
 *
 * - exact: the store's SQL names the admitted rows and only those are scored
 *   (a full SIMD pass, or row by row for a small admitted set);
 * - approximate: an HNSW graph per namespace and model (vector-ann.ts)
 *   proposes candidates, which are checked against the same SQL and scored
 *   exactly; see `approximate` for why scope still comes before ranking.
 *
 * Admitted sets are reused until the store's data version moves.
 */
export class VectorScan {
  private readonly models = new Map<string, ModelState>();
  private readonly admitted = new Map<string, { version: string; rows: Set<number> }>();
  /** The data version each scope-and-filter key was last searched at (VectorScan.exact). */
  private readonly lastSearched = new Map<string, { version: string; count: number }>();
  private closed = false;

  constructor(
    private readonly rows: VectorRows,
    private readonly source: AdmittedRowsSource,
    readonly config: VectorIndexConfig = DEFAULT_VECTOR_INDEX,
    /** Where approximate indexes are saved and loaded from (graph-snapshots.ts); null: built by every process. */
    private readonly snapshots: GraphSnapshots | null = null,
  ) {}

  /**
   * Memories of a namespace were forgotten: its saved graphs go, since
   * usearch's files keep a removed row's vector. Called by the store after
   * the forget commits; a process killed in between leaves files that the
   * next loader finds out of date and deletes.
   */
  forgotten(namespace: string): void {
    this.discard(namespace);
  }

  /** A namespace's vectors of every model but `current` were dropped: their saved graphs go too. */
  modelsReplaced(namespace: string, current: string): void {
    this.discard(namespace, current);
  }

  private discard(namespace: string, keepModel?: string): void {
    try {
      this.snapshots?.discard(namespace, keepModel);
    } catch {
      // The files are a cache; a loader checks every row against the store before trusting one.
    }
  }

  /** Whether this scan may use an approximate index (the configuration allows one and its package is installed): the store's capability. */
  get approximateAvailable(): boolean {
    return this.config.mode !== 'exact' && usearchInstalled();
  }

  /** One line for status and notes: what answers vector queries under this configuration. */
  describe(): string {
    const exact = 'exact in-process scan over stored float32 arrays (every admitted row is scored; scope and filters apply before ranking)';
    const ann = 'an approximate HNSW index (usearch) per namespace and model proposes candidates, checked against scope and filters and scored exactly';
    const saved = this.snapshots ? `; a built graph is saved under ${this.snapshots.dir} and loaded by the next process` : '; graphs are not saved (each process builds its own)';
    switch (this.config.mode) {
      case 'exact':
        return `vectors: ${exact}; the approximate index is turned off`;
      case 'approximate':
        return `vectors: ${ann}, whatever the namespace's size; while it builds, the ${exact} answers${saved}`;
      case 'auto':
        return `vectors: ${exact} up to ${this.config.threshold.toLocaleString('en')} vectors of a model in a namespace; above, ${ann}${usearchInstalled() ? saved : ' (usearch is not installed, so the exact scan answers at any size)'}`;
    }
  }

  /** Brings every model's copy held here up to date with the change log (no new copies, no index builds). */
  async refresh(): Promise<void> {
    for (const m of [...this.models.values()]) await m.cache.refresh();
  }

  /**
   * A model's first search in this handle, with no copy loaded or loading,
   * reads the stored vectors once and keeps none (vector-stream.ts): the
   * copy pays for itself only from the second search, and a one-shot command
   * never makes one. At 100k memories a CLI search took 2.8 s with the copy.
   * The second search loads it; searches that arrive meanwhile wait for that
   * load rather than each reading every row.
   */
  async nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorMatches> {
    const m = this.modelFor(q.model, q.vector.length);
    if (m.searches++ === 0 && !m.cache.started) return this.streamed(p, q);
    await m.cache.refresh();
    const vectors = m.cache.countIn(p.namespace);
    const plan = this.plan(m, p.namespace, vectors);
    if (!plan.index) return { hits: await this.exact(m.cache, p, q), index: { kind: 'exact', vectors, reason: plan.reason } };
    return this.approximate(m.cache, plan.index, plan.reason, p, q, vectors);
  }

  /**
   * The first search's answer (see `nearest`), on the same argument as
   * `exact`: unless a current admitted set is at hand, the namespace's best
   * rows are checked against the store's SQL best first, and only when too
   * few pass (a guest, a narrow filter) are the admitted rows listed and the
   * vectors read again. Listing 100,000 row keys costs a third of a
   * one-shot search at 100k memories.
   */
  private async streamed(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorMatches> {
    const reason = 'the first search of this model here: its stored vectors were read once and scored exactly, without keeping a copy (the next search loads one)';
    const limit = Math.max(0, q.limit);
    const w = this.source.where(p, q.filter);
    const read = (admits: (rowid: number) => boolean, k: number) => streamedNearest(this.rows, { model: q.model, vector: q.vector, namespace: p.namespace, limit: k, admits });
    const known = await this.cachedAdmitted(w);
    if (!known && limit > 0) {
      const k = MAX_OVERFETCH * limit;
      const { ranked, inNamespace } = await read(() => true, k);
      const round = await this.checkBestFirst(ranked, limit, w, null);
      // Enough admitted, or the namespace has no rows beyond those ranked: the exact answer.
      if (round.hits.length >= limit || ranked.length < k) return { hits: round.hits, index: { kind: 'exact', vectors: inNamespace, reason } };
    }
    const admitted = known ?? (await this.admittedRows(p, q.filter));
    const { ranked, inNamespace } = await read((rowid) => admitted.has(rowid), limit);
    return { hits: ranked.map((r) => ({ id: r.id, score: r.score })), index: { kind: 'exact', vectors: inNamespace, reason } };
  }

  async prepare(p: Principal, q: { model: string; dimensions: number; wait?: boolean }): Promise<VectorIndexUse> {
    const m = this.modelFor(q.model, q.dimensions);
    await m.cache.refresh();
    const vectors = m.cache.countIn(p.namespace);
    // Planning starts the build an index should have; then wait for it (unless told not to) and plan again.
    this.plan(m, p.namespace, vectors);
    if (q.wait !== false) await m.approximate.get(p.namespace)?.whenBuilt();
    const plan = this.plan(m, p.namespace, vectors);
    return { kind: plan.index ? 'approximate' : 'exact', vectors, reason: plan.reason, ...(plan.index ? { graph: graphOrigin(plan.index) } : {}) };
  }

  /**
   * Stops background builds and drops every in-process index (the store is
   * closing). An index saves its graph as it closes, so the copies that have
   * one follow the change log first: a row another process forgot since this
   * process last looked would otherwise be written back to disk (its forget
   * deleted the saved files it could see). When the log cannot be read, the
   * graphs close unsaved; the next process only builds or inserts again.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    let caughtUp = true;
    try {
      for (const m of [...this.models.values()]) if (m.approximate.size > 0) await m.cache.refresh();
    } catch {
      caughtUp = false;
    }
    this.closed = true;
    for (const m of this.models.values()) for (const a of m.approximate.values()) a.close({ save: caughtUp });
    this.models.clear();
  }

  private modelFor(model: string, dims: number): ModelState {
    if (this.closed) throw new MnemosError('unavailable', 'the store is closed');
    const now = Date.now();
    // A retrained or replaced model leaves its vectors' copy behind; drop copies nobody searched for a while.
    for (const [name, other] of this.models) {
      if (name !== model && now - other.lastUsed > MODEL_IDLE_MS) {
        for (const a of other.approximate.values()) a.close();
        this.models.delete(name);
      }
    }
    let m = this.models.get(model);
    if (!m) {
      m = { cache: new VectorCache(model, dims, this.rows), lastUsed: now, searches: 0, approximate: new Map() };
      this.models.set(model, m);
    }
    m.lastUsed = now;
    if (m.cache.dims !== dims) throw new MnemosError('validation_failed', `query vector has ${dims} dimensions; model ${model} has ${m.cache.dims}`);
    return m;
  }

  /**
   * The one place that chooses the index: exact unless the configuration and
   * the namespace's size call for the approximate one and it is ready. An
   * index that should exist is started here, even if it cannot answer yet.
   */
  private plan(m: ModelState, namespace: string, vectors: number): { index?: ApproximateIndex; reason: string } {
    const { mode, threshold } = this.config;
    let index = m.approximate.get(namespace);
    if (mode === 'exact') return { reason: 'the approximate index is turned off (mode exact)' };
    if (mode === 'auto' && vectors <= threshold) {
      // Hysteresis: an index built above the threshold is kept until the namespace shrinks to half of it.
      if (index && vectors < threshold / 2) {
        index.close();
        m.approximate.delete(namespace);
        index = undefined;
      }
      if (!index) return { reason: `${vectors} vectors in the namespace, at most the threshold of ${threshold} for the approximate index` };
    }
    if (!index) {
      const lib = loadUsearch();
      if ('error' in lib) {
        if (mode === 'approximate') throw new MnemosError('unavailable', `the vector index mode "approximate" needs usearch: ${lib.error}`);
        return { reason: `${lib.error}, so the exact scan answers` };
      }
      index = new ApproximateIndex(m.cache, namespace, lib.module, this.snapshots);
      m.approximate.set(namespace, index);
    }
    if (index.failure) return { reason: index.failure };
    if (!index.usable) return { reason: `the approximate index is building (${index.pendingRows} of ${index.size} rows still to insert; more than ${PENDING_MAX} waiting), so the exact scan answers` };
    const why =
      mode === 'approximate'
        ? 'the approximate index is configured for every size (mode approximate)'
        : vectors > threshold
          ? `${vectors} vectors in the namespace, above the threshold of ${threshold}`
          : `${vectors} vectors in the namespace, at most the threshold of ${threshold} but more than half of it, so the index built above it is kept`;
    return { index, reason: why };
  }

  /**
   * The approximate path. The index proposes `OVERFETCH × limit` candidates,
   * all scored exactly; the store's own scope-and-filter SQL (or the cached
   * admitted set) checks them best first, a batch at a time, until `limit`
   * are admitted. If fewer than `limit` of the candidates are admitted, the
   * next round asks for as many candidates as the survival rate says are
   * needed, and past `MAX_OVERFETCH × limit` the exact scan of the admitted
   * rows answers.
   *
   * Why this is still "scope before ranking", never "filter after a global
   * top-k": let C be the best K rows of the namespace and S the admitted rows
   * among them. If S holds at least `limit` rows, the best `limit` admitted
   * rows of the whole namespace are exactly the best `limit` of S, because
   * every admitted row outside C ranks below every row of C. A global cut
   * goes wrong only when S is short (the caller's rows are crowded out by
   * rows it may not see), and that is precisely when we widen K or fall back
   * to scoring every admitted row. So a guest gets the same `limit` results
   * it would get from the exact scan of its own rows; what remains
   * approximate is only the index's recall (whether C really is the best K),
   * the same for every caller. Checking C best first and stopping at `limit`
   * admitted rows yields the same best `limit` of S with fewer questions.
   * No hit is ever a row the caller may not read: each one passed the SQL
   * and is still in the cache (removed rows leave it).
   */
  private async approximate(
    cache: VectorCache,
    index: ApproximateIndex,
    why: string,
    p: Principal,
    q: { vector: Float32Array; filter: MemoryFilter; limit: number },
    vectors: number,
  ): Promise<VectorMatches> {
    const use: VectorIndexUse = { kind: 'approximate', vectors, reason: why, candidates: 0, admitted: 0, graph: graphOrigin(index) };
    if (q.limit <= 0) return { hits: [], index: { ...use, reason: 'no results asked for' } };
    const maxK = MAX_OVERFETCH * q.limit;
    const w = this.source.where(p, q.filter);
    const known = await this.cachedAdmitted(w);
    let k = OVERFETCH * q.limit;
    // Asking for a large share of the namespace costs more than scanning it.
    while (k * 2 < vectors) {
      const found = index.candidates(q.vector, k);
      if (index.failure) break;
      const round = await this.checkBestFirst(cache.rankRows(q.vector, found), q.limit, w, known);
      use.candidates = found.length;
      use.admitted = round.admitted;
      if (round.hits.length >= q.limit) return { hits: round.hits, index: use };
      if (k >= maxK) break;
      // Ask for enough candidates that, at this round's survival rate, `limit` would be in scope (with a margin).
      const needed = candidatesNeeded(q.limit, round.checked, round.admitted);
      if (needed > maxK) break;
      k = Math.max(needed, 2 * k);
    }
    const reason =
      index.failure ??
      (use.candidates === 0
        ? `${why}; ${q.limit} results are a large share of the namespace, so the exact scan of the admitted rows answered`
        : `${why}; too few of the index's candidates were in scope, so the exact scan of the admitted rows answered`);
    return { hits: cache.nearest(q.vector, await this.admittedRows(p, q.filter), q.limit), index: { ...use, kind: 'exact', reason, fallback: true } };
  }

  /**
   * The exact scan's answer. With a current admitted set (nothing written
   * since it was listed) only the admitted rows are scored. Without one,
   * listing every admitted row again is what a search after a write paid
   * (100,000 row keys: over 100 ms at 100k memories, against a few ms for
   * the search itself), so instead the namespace's own best rows, ranked by
   * the same exact scan, are checked against the store's SQL best first.
   * It is the approximate path's argument with an exact proposer: if the
   * best K rows of the namespace hold `limit` admitted ones, those are the
   * best `limit` admitted rows, the same ids, scores and order as scoring
   * the admitted set. Too few (a guest among an owner's memories, a narrow
   * filter): K widens at the survival rate seen, and past `MAX_OVERFETCH ×
   * limit` the admitted rows are listed after all. A caller whose last
   * listed set was that sparse goes straight to the listing.
   */
  private async exact(cache: VectorCache, p: Principal, q: { vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorHit[]> {
    const w = this.source.where(p, q.filter);
    const key = this.admittedKey(w);
    const version = await this.source.dataVersion();
    const last = this.admitted.get(key);
    if (last && last.version === version) return cache.nearest(q.vector, last.rows, q.limit);
    // A listing costs about what a few hundred checks do (100 ms at 100k on SQLite, seconds over
    // PostgreSQL's wire): it pays only in a quiet spell, QUIET_SEARCHES searches with no write between,
    // and it runs beside the searches, never inside one; they use it once it is there and still current.
    // From the QUIET_SEARCHES-th search on, not only at it: a listing of an older version still running then
    // (slow over PostgreSQL's wire) made listLater skip this one, and the quiet spell never got its set.
    const seen = this.lastSearched.get(key);
    if (seen !== undefined && seen.version === version && ++seen.count >= QUIET_SEARCHES) this.listLater(key, p, q.filter);
    if (seen?.version !== version) {
      if (this.lastSearched.size > 64) this.lastSearched.clear();
      this.lastSearched.set(key, { version, count: 1 });
    }
    if (q.limit > 0 && !(last && last.rows.size * MAX_OVERFETCH < cache.countIn(p.namespace))) {
      const maxK = MAX_OVERFETCH * q.limit;
      let k = firstCandidates(q.limit);
      for (;;) {
        const ranked = cache.nearestIn(q.vector, p.namespace, k);
        const round = await this.checkBestFirst(ranked, q.limit, w, null);
        // Enough admitted, or the namespace has no rows beyond those ranked: this is the exact answer.
        if (round.hits.length >= q.limit || ranked.length < k) return round.hits;
        if (k >= maxK) break;
        const needed = candidatesNeeded(q.limit, round.checked, round.admitted);
        if (needed > maxK) break;
        k = Math.max(needed, 4 * k);
      }
    }
    return cache.nearest(q.vector, await this.admittedRows(p, q.filter), q.limit);
  }

  private readonly listing = new Set<string>();

  /** Lists a caller's admitted rows on a later turn of the event loop (one listing per key at a time); failures only mean no set. */
  private listLater(key: string, p: Principal, filter: MemoryFilter): void {
    if (this.listing.has(key)) return;
    this.listing.add(key);
    setTimeout(() => {
      this.admittedRows(p, filter)
        .catch(() => {})
        .finally(() => this.listing.delete(key));
    }, 0).unref();
  }

  /**
   * Ranked candidates checked against scope and filter best first, a batch
   * at a time (each batch sized to fill what is missing at the survival rate
   * seen so far, with a margin), until `limit` are admitted or none are left.
   */
  private async checkBestFirst(
    ranked: { rowid: number; id: string; score: number }[],
    limit: number,
    w: SqlPart,
    known: Set<number> | null,
  ): Promise<{ hits: VectorHit[]; checked: number; admitted: number }> {
    const hits: VectorHit[] = [];
    let checked = 0;
    let admitted = 0;
    while (hits.length < limit && checked < ranked.length) {
      const rate = checked === 0 ? 1 : Math.max(admitted / checked, 1 / MAX_OVERFETCH);
      const batch = ranked.slice(checked, checked + Math.ceil((1.25 * (limit - hits.length)) / rate) + 4);
      const ok = known ?? new Set(await this.source.rowsAmong(w, batch.map((r) => r.rowid)));
      for (const r of batch) {
        if (!ok.has(r.rowid)) continue;
        admitted++;
        if (hits.length < limit) hits.push({ id: r.id, score: r.score });
      }
      checked += batch.length;
    }
    return { hits, checked, admitted };
  }

  private admittedKey(w: SqlPart): string {
    // Epoch-ms parameters (the expiry cut-off is "now") are keyed by the minute, or no set would ever be reused.
    return `${w.sql}\u0000${JSON.stringify(w.params.map((x) => (typeof x === 'number' && x > 1e12 ? Math.floor(x / 60_000) : x)))}`;
  }

  /** The admitted set if one is cached and still current; null otherwise (the approximate path then asks about its candidates only). */
  private async cachedAdmitted(w: SqlPart): Promise<Set<number> | null> {
    const hit = this.admitted.get(this.admittedKey(w));
    if (!hit) return null;
    return hit.version === (await this.source.dataVersion()) ? hit.rows : null;
  }

  private async admittedRows(p: Principal, filter: MemoryFilter): Promise<Set<number>> {
    const w = this.source.where(p, filter);
    const key = this.admittedKey(w);
    // Read the version before the rows: a write landing in between makes the next call recompute, never miss.
    const version = await this.source.dataVersion();
    const hit = this.admitted.get(key);
    if (hit && hit.version === version) return hit.rows;
    const rows = new Set(await this.source.rowsWhere(w));
    if (this.admitted.size > 64) this.admitted.clear();
    this.admitted.set(key, { version, rows });
    return rows;
  }
}

/** Where an approximate index's graph came from, for explain. */
function graphOrigin(index: ApproximateIndex): NonNullable<VectorIndexUse['graph']> {
  const o = index.origin;
  return { fromSaved: o.fromSaved, built: o.built, ...(o.note ? { note: o.note } : {}) };
}
