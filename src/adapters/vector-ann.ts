import type { VectorCache, VectorCacheListener } from './vector-cache.ts';
import { newHnswIndex, type HnswIndex, type loadUsearch } from './usearch.ts';

type UsearchModule = Extract<ReturnType<typeof loadUsearch>, { module: unknown }>['module'];

/** Graph parameters: usearch's default degree; an insert width of 64 kept recall@10 at 0.99-1.0 on clustered 192-d data while inserting 2.6 times faster than 128. */
const CONNECTIVITY = 16;
const EXPANSION_ADD = 64;
const EXPANSION_SEARCH = 128;
/** Rows waiting to enter the graph that a search still scores exactly; with more, the exact scan answers until the build catches up. */
export const PENDING_MAX = 4096;
/** Longest run of inserts between two turns of the event loop, so a build never stalls searches and requests. */
const SLICE_MS = 8;
/** Removed rows (dead graph nodes) tolerated before the graph is rebuilt from the live rows. */
const REBUILD_DEAD_FRACTION = 0.25;
const REBUILD_DEAD_MIN = 1024;

/**
 * An HNSW graph (usearch) over one namespace's vectors of one model, derived
 * from the in-process VectorCache and kept in step by listening to it: a row
 * the cache gains waits in `pending` until a background pump inserts it; a
 * row the cache loses leaves the graph at once. The database remains the
 * source of truth (the cache follows its change log), so nothing here needs
 * saving and a restart simply builds it again.
 *
 * The graph only proposes candidates: rows still pending are proposed too,
 * and the caller scores every candidate exactly from the cache, so a row
 * written a moment ago is found and a removed one (gone from the cache) never
 * comes back, whatever the graph's state.
 *
 * The build runs on the main thread in slices of a few milliseconds between
 * turns of the event loop (usearch has no asynchronous insert), scheduled
 * with unreferenced zero-delay timers: an unfinished build never keeps a
 * process from exiting (unless someone awaits `whenBuilt`), and `close`
 * stops it. Not immediates: an unreferenced immediate does not stop the loop
 * from sleeping in its poll phase, so an idle process ran one slice per
 * wake-up and took minutes over a build of seconds.
 */
export class ApproximateIndex implements VectorCacheListener {
  private graph!: HnswIndex;
  /** Rows in the cache but not yet in the graph; `queue` holds them in arrival order (with stale entries skipped). */
  private pending = new Set<number>();
  private queue: number[] = [];
  private head = 0;
  private dead = 0;
  /** The next slice of the build, when one is due. */
  private next: NodeJS.Timeout | null = null;
  private closed = false;
  private waiters: (() => void)[] = [];
  private chunk = 64;
  /** Set when the native library threw: the scan answers exactly from then on, and says why. */
  failure: string | null = null;

  constructor(
    private readonly cache: VectorCache,
    readonly namespace: string,
    private readonly usearch: UsearchModule,
  ) {
    this.cache.listen(this);
    this.rebuild();
  }

  /** Rows in the graph plus rows waiting for it. */
  get size(): number {
    return this.graph.size() + this.pending.size;
  }

  get pendingRows(): number {
    return this.pending.size;
  }

  /** Few enough rows are waiting that a search may use the graph (and score the waiting rows exactly). */
  get usable(): boolean {
    return this.failure === null && !this.closed && this.pending.size <= PENDING_MAX;
  }

  added(rowid: number, namespace: string): void {
    if (namespace !== this.namespace) return;
    this.enqueue(rowid);
    this.schedule();
  }

  removed(rowid: number, namespace: string): void {
    if (namespace !== this.namespace) return;
    // A row is either waiting or in the graph, never both (the cache removes a row before adding it again).
    if (this.pending.delete(rowid)) return;
    try {
      this.graph.remove(BigInt(rowid));
    } catch (err) {
      this.fail(err);
      return;
    }
    this.dead++;
    if (this.dead > Math.max(REBUILD_DEAD_MIN, REBUILD_DEAD_FRACTION * this.graph.size())) this.rebuild();
  }

  cleared(): void {
    // The cache reloads every row next and tells us about each one again.
    this.graph = this.newGraph();
    this.pending.clear();
    this.queue = [];
    this.head = 0;
    this.dead = 0;
  }

  /**
   * Candidate rows for a query: the graph's `k` nearest (by its half-precision
   * copy) and every row still waiting to enter it. Row keys, unordered; the
   * caller scores them exactly.
   */
  candidates(query: Float32Array, k: number): number[] {
    const out: number[] = [];
    const inGraph = this.graph.size();
    if (inGraph > 0 && k > 0) {
      try {
        const found = this.graph.search(query, Math.min(k, inGraph), 1);
        for (const key of found.keys) out.push(Number(key));
      } catch (err) {
        this.fail(err);
        return [];
      }
    }
    for (const rowid of this.pending) out.push(rowid);
    return out;
  }

  /** Resolves when no row is waiting (the graph holds every row of the namespace), or at once if the index failed or closed. */
  whenBuilt(): Promise<void> {
    if (this.pending.size === 0 || this.failure !== null || this.closed) return Promise.resolve();
    // Someone waits for the build now, so it must keep the process alive (slices are unreferenced otherwise).
    this.next?.ref();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  close(): void {
    this.closed = true;
    if (this.next) clearTimeout(this.next);
    this.next = null;
    this.cache.unlisten(this);
    this.pending.clear();
    this.queue = [];
    this.wake();
  }

  private newGraph(): HnswIndex {
    return newHnswIndex(this.usearch, { dimensions: this.cache.dims, connectivity: CONNECTIVITY, expansionAdd: EXPANSION_ADD, expansionSearch: EXPANSION_SEARCH });
  }

  /** Starts over from the cache's rows: a fresh graph, every row of the namespace waiting. */
  private rebuild(): void {
    this.cleared();
    for (const rowid of this.cache.rowidsIn(this.namespace)) this.enqueue(rowid);
    this.schedule();
  }

  private enqueue(rowid: number): void {
    this.pending.add(rowid);
    this.queue.push(rowid);
  }

  private schedule(): void {
    if (this.next || this.closed || this.failure !== null || this.pending.size === 0) return;
    this.next = setTimeout(() => this.pump(), 0);
    if (this.waiters.length === 0) this.next.unref();
  }

  /** Inserts waiting rows for one slice of time, then yields to the event loop. */
  private pump(): void {
    this.next = null;
    if (this.closed || this.failure !== null) return;
    const dims = this.cache.dims;
    const deadline = performance.now() + SLICE_MS;
    while (this.pending.size > 0 && performance.now() < deadline) {
      const keys: bigint[] = [];
      const vectors = new Float32Array(this.chunk * dims);
      while (keys.length < this.chunk && this.head < this.queue.length) {
        const rowid = this.queue[this.head++]!;
        // Stale entries: removed since, or queued twice (removed and added again) and already taken.
        if (!this.pending.delete(rowid)) continue;
        if (!this.cache.copyVector(rowid, vectors, keys.length * dims)) continue;
        keys.push(BigInt(rowid));
      }
      if (keys.length === 0) break;
      const started = performance.now();
      try {
        this.graph.add(BigUint64Array.from(keys), vectors.subarray(0, keys.length * dims), 1);
      } catch (err) {
        this.fail(err);
        return;
      }
      // Size the next batch so one insert call takes about half a slice.
      const perRow = (performance.now() - started) / keys.length;
      this.chunk = Math.max(8, Math.min(4096, Math.floor(SLICE_MS / 2 / Math.max(perRow, 1e-4))));
    }
    if (this.head > 65_536 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.pending.size > 0) this.schedule();
    else this.wake();
  }

  private fail(err: unknown): void {
    this.failure = `the approximate index failed (${(err as Error).message}); exact scans answer`;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
