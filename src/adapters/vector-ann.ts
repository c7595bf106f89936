import type { GraphIdentity, GraphSnapshots } from './graph-snapshots.ts';
import type { VectorCache, VectorCacheListener } from './vector-cache.ts';
import { HNSW_STORAGE, newHnswIndex, type HnswIndex, type loadUsearch } from './usearch.ts';

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
/** A graph that has changed by this share since it was last saved or loaded is saved again (once no row is waiting). */
const SAVE_GROWTH = 0.1;
/** After a removal, a graph with no rows waiting is saved this long after the last change (a purge removes many rows at once). */
const SAVE_AFTER_REMOVAL_MS = 30_000;
/**
 * Keys of placeholder nodes (zero vectors that overwrite removed rows' vectors before a save; see `scrub`),
 * far above any row key (row keys are below 2^53).
 */
const PLACEHOLDER_BASE = 2n ** 62n;

/**
 * An HNSW graph (usearch) over one namespace's vectors of one model, derived
 * from the in-process VectorCache and kept in step by listening to it: a row
 * the cache gains waits in `pending` until a background pump inserts it; a
 * row the cache loses leaves the graph at once. The database remains the
 * source of truth (the cache follows its change log). With somewhere to keep
 * it (graph-snapshots.ts) a finished graph is saved, and the next process
 * loads it and inserts only the rows that came since; without, or when the
 * saved graph cannot be trusted, a restart builds it again.
 *
 * usearch keeps a removed row's vector in its node until an insert reuses
 * the node (removed nodes wait in a first-in, first-out free list), and
 * writes it in a save: a forgotten memory's vector must not outlive the
 * forget on disk. So before a save every node still on that list is reused
 * by a placeholder with a zero vector (`scrub`); a test checks the saved
 * bytes.
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
  /** The next slice of the build, when one is due. */
  private next: NodeJS.Timeout | null = null;
  private closed = false;
  private waiters: (() => void)[] = [];
  private chunk = 64;
  /** Set when the native library threw: the scan answers exactly from then on, and says why. */
  failure: string | null = null;
  /** Removed nodes on usearch's free list (each still holds its row's vector until an insert reuses it). */
  private freed = 0;
  /** Placeholder nodes in the graph (zero vectors, never removed until a rebuild); see `scrub`. */
  private placeholders = 0;
  /** A save due after removals (SAVE_AFTER_REMOVAL_MS). */
  private saveTimer: NodeJS.Timeout | null = null;
  /** Rows inserted or removed since the graph was last saved or loaded here, and its size then (null: never, or those files were deleted). */
  private unsaved = 0;
  private savedRows: number | null = null;
  /** Rows that came from a saved graph, and rows this process inserted, since the graph was last started. */
  private fromSaved = 0;
  private built = 0;
  /** Why the saved graph was not used, or why saving failed, for the search's explain. */
  private savedNote: string | null = null;
  /** The graph was saved or loaded here, and those files may still be there. */
  private onDisk = false;

  constructor(
    private readonly cache: VectorCache,
    readonly namespace: string,
    private readonly usearch: UsearchModule,
    private readonly snapshots: GraphSnapshots | null = null,
  ) {
    this.cache.listen(this);
    if (!this.snapshots || !this.loadSaved()) this.rebuild();
  }

  /** Where the graph came from: rows loaded from its saved copy and rows inserted here; and a note on saving, if any. */
  get origin(): { fromSaved: number; built: number; note: string | null } {
    return { fromSaved: this.fromSaved, built: this.built, note: this.savedNote };
  }

  /** Rows in the graph plus rows waiting for it. */
  get size(): number {
    return this.graph.size() - this.placeholders + this.pending.size;
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
    let n: number;
    try {
      n = count(this.graph.remove(BigInt(rowid)));
    } catch (err) {
      this.fail(err);
      return;
    }
    this.freed += n;
    this.unsaved++;
    // The saved copy this graph came from or went to holds the row too. Whoever forgot it deleted the
    // files it could see, but it may have run elsewhere (another machine, another directory): every
    // process that holds such a copy deletes it as soon as it learns of a removal, and saves a scrubbed one.
    if (this.onDisk) this.dropSaved();
    if (this.tooManyDead()) this.rebuild();
    else this.saveLater();
  }

  cleared(): void {
    // The cache reloads every row next and tells us about each one again.
    this.graph = this.newGraph();
    this.pending.clear();
    this.queue = [];
    this.head = 0;
    this.freed = 0;
    this.placeholders = 0;
    this.unsaved = 0;
    this.savedRows = null;
    this.fromSaved = 0;
    this.built = 0;
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
        for (const key of found.keys) if (key < PLACEHOLDER_BASE) out.push(Number(key));
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

  /** `save: false` when this graph may hold rows the store no longer has (its caller could not follow the change log). */
  close(o: { save?: boolean } = {}): void {
    // Rows inserted since the last save would be inserted again by the next process.
    if (!this.closed && this.failure === null && o.save !== false) this.saveIfDue(true);
    this.closed = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
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

  private identity(): GraphIdentity {
    return { model: this.cache.model, namespace: this.namespace, dims: this.cache.dims, params: { storage: HNSW_STORAGE, connectivity: CONNECTIVITY, expansionAdd: EXPANSION_ADD } };
  }

  /** The namespace's cached row keys in ascending order, the order of a saved graph's rows. */
  private sortedRows(): Float64Array {
    return Float64Array.from(this.cache.rowidsIn(this.namespace)).sort();
  }

  /** Nodes that hold no row: removed ones not yet reused, and placeholders. */
  private get dead(): number {
    return this.freed + this.placeholders;
  }

  private tooManyDead(): boolean {
    return this.dead > Math.max(REBUILD_DEAD_MIN, REBUILD_DEAD_FRACTION * (this.graph.size() - this.placeholders));
  }

  /**
   * Overwrites the vector of every removed node still on usearch's free
   * list: an insert takes the oldest free node and copies its vector over the
   * old one, so as many placeholder inserts (zero vectors, keys no row has)
   * as there are free nodes leave none holding a removed row's vector. The
   * placeholders stay (never proposed as candidates) until a rebuild.
   */
  private scrub(): void {
    if (this.freed === 0) return;
    const keys = BigUint64Array.from({ length: this.freed }, (_, i) => PLACEHOLDER_BASE + BigInt(this.placeholders + i));
    this.graph.add(keys, new Float32Array(this.freed * this.cache.dims), 1);
    this.placeholders += this.freed;
    this.freed = 0;
  }

  /** Saves once removals have settled, when no insert ends a build first. */
  private saveLater(): void {
    if (!this.snapshots || this.saveTimer || this.closed) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      if (!this.closed && this.failure === null) this.saveIfDue(false);
    }, SAVE_AFTER_REMOVAL_MS);
    this.saveTimer.unref();
  }

  /**
   * Starts from the saved graph, when there is one to trust: rows the cache
   * holds with the vector the graph was saved with stay; rows new since the
   * save wait for the pump; rows whose vector changed, or that are gone,
   * leave the graph. False when there is nothing to load (the caller builds).
   */
  private loadSaved(): boolean {
    // load() answers why instead of throwing, whatever the files hold.
    const loaded = this.snapshots!.load(this.identity(), () => this.newGraph());
    if ('reason' in loaded) {
      this.savedNote = loaded.reason;
      return false;
    }
    this.cleared();
    this.graph = loaded.graph;
    // Both lists in row-key order (a save writes them so), walked side by side: a map of a million
    // saved rows cost 2.4 s of a 6.8 s load.
    const { rowids: saved, hashes } = loaded.rows;
    const live = this.sortedRows();
    const out: number[] = [];
    let i = 0;
    for (const rowid of live) {
      while (i < saved.length && saved[i]! < rowid) out.push(saved[i++]!); // gone since the save
      if (i < saved.length && saved[i] === rowid) {
        if (hashes[i] !== this.cache.vectorHashOf(rowid)) {
          out.push(rowid);
          this.enqueue(rowid);
        }
        i++;
      } else this.enqueue(rowid); // new since the save
    }
    while (i < saved.length) out.push(saved[i++]!);
    this.fromSaved = loaded.rows.rowids.length - out.length;
    this.savedRows = loaded.rows.rowids.length;
    this.placeholders = loaded.rows.placeholders;
    this.onDisk = true;
    if (out.length > 0) {
      try {
        this.freed = count(this.graph.remove(BigUint64Array.from(out, (r) => BigInt(r))));
      } catch (err) {
        this.savedNote = `the saved graph could not be brought up to date (${(err as Error).message})`;
        return false;
      }
      this.unsaved += out.length;
      // Its files hold the vectors of rows the store no longer has (perhaps forgotten): they go now, and a
      // scrubbed graph is saved in their place.
      this.dropSaved();
      this.saveLater();
      this.savedNote = `rows of the saved graph gone or changed since it was saved: ${out.length}; its files were deleted`;
      if (this.tooManyDead()) {
        this.savedNote = `the saved graph was too far behind the store (rows gone or changed: ${out.length}); built again`;
        return false;
      }
    }
    this.schedule();
    return true;
  }

  /**
   * Saves the graph when no row is waiting, its removed nodes overwritten
   * first (`scrub`): after a build, once it has changed by SAVE_GROWTH since
   * its last save, after removals (`saveLater`), or at close if it changed.
   * A failure is noted, never thrown: the graph still answers, the next
   * process only builds again.
   */
  private saveIfDue(atClose: boolean): void {
    if (!this.snapshots || this.pending.size > 0 || this.unsaved === 0) return;
    if (!atClose && this.savedRows !== null && this.unsaved < SAVE_GROWTH * this.savedRows) return;
    // With nothing waiting, the graph holds exactly the namespace's cached rows (beside placeholders), each with the vector the cache holds.
    const rowids = this.sortedRows();
    if (rowids.length !== this.graph.size() - this.placeholders) return;
    const hashes = Uint32Array.from(rowids, (r) => this.cache.vectorHashOf(r) ?? 0);
    try {
      this.scrub();
      this.snapshots.save(this.identity(), this.graph, { rowids, hashes, placeholders: this.placeholders });
      this.savedRows = rowids.length;
      this.unsaved = 0;
      this.onDisk = true;
    } catch (err) {
      this.savedNote = `saving the graph to ${this.snapshots.dir} failed (${(err as Error).message})`;
    }
  }

  private dropSaved(): void {
    this.onDisk = false;
    // No saved copy now: the next save is due as soon as nothing waits, whatever the graph's growth.
    this.savedRows = null;
    try {
      this.snapshots?.drop(this.identity());
    } catch (err) {
      this.savedNote = `the saved graph in ${this.snapshots?.dir} could not be deleted (${(err as Error).message})`;
    }
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
      this.unsaved += keys.length;
      this.built += keys.length;
      // Each insert takes a removed node off the free list while there is one.
      this.freed = Math.max(0, this.freed - keys.length);
      // Size the next batch so one insert call takes about half a slice.
      const perRow = (performance.now() - started) / keys.length;
      this.chunk = Math.max(8, Math.min(4096, Math.floor(SLICE_MS / 2 / Math.max(perRow, 1e-4))));
    }
    if (this.head > 65_536 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    if (this.pending.size > 0) this.schedule();
    else {
      this.saveIfDue(false);
      this.wake();
    }
  }

  private fail(err: unknown): void {
    this.failure = `the approximate index failed (${(err as Error).message}); exact scans answer`;
    this.wake();
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

/** usearch's remove answers a count, or one per key asked. */
function count(removed: number | number[]): number {
  return Array.isArray(removed) ? removed.reduce((a, b) => a + b, 0) : removed;
}
