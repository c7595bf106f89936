import type { VectorHit } from '../ports/vectors.ts';
import { VectorMatrix } from './vector-matrix.ts';
import { vectorHash } from './graph-snapshots.ts';
import { TopK, bestFirst } from './vector-top-k.ts';

/**
 * An in-process copy of one model's vectors, kept in step with the database
 * through a change log (rowids only; its oldest entries are pruned by
 * consolidation, and a copy older than what is left reloads), so several processes can
 * share a store and each scans its own contiguous matrix. Backend-neutral:
 * an adapter supplies the few reads below.
 */
export interface VectorRows {
  /** Highest change-log sequence, or 0. */
  logHead(): Promise<number>;
  /** Lowest sequence still in the log (older entries were pruned), or 0. */
  logTail(): Promise<number>;
  changedSince(seq: number): Promise<{ seq: number; rowid: number }[]>;
  /**
   * Hands `visit` each stored vector of `model` (every one, or those of
   * `rowids`). The visits run in one synchronous stretch, with no wait between
   * them, so a copy that swaps its rows inside them is never seen half-swapped.
   * A row's vector may be a view into the driver's buffer: copy it to keep it.
   */
  eachVector(model: string, rowids: number[] | null, visit: (row: VectorRow) => void): Promise<void>;
  /**
   * Every stored vector of `model` for a one-off scan that keeps nothing
   * (vector-stream.ts), read a page at a time so the client never holds them
   * all; visits may be separated by waits. Absent where `eachVector` already
   * streams from a cursor.
   */
  scanVectors?(model: string, visit: (row: VectorRow) => void): Promise<void>;
}

export interface VectorRow {
  rowid: number;
  id: string;
  /** The memory's namespace: an approximate index is kept per namespace (vector-ann.ts). */
  namespace: string;
  vector: Float32Array;
}

/** Told about every row the cache gains or loses, in order (an approximate index follows the cache this way). */
export interface VectorCacheListener {
  added(rowid: number, namespace: string): void;
  removed(rowid: number, namespace: string): void;
  /** Every row is about to be loaded again (the change log was pruned past this cache). */
  cleared(): void;
}

export class VectorCache {
  private slots = new Map<number, number>(); // rowid -> slot
  private ids: (string | null)[] = [];
  private rowids: number[] = [];
  /** Namespace of each slot, and how many rows each namespace has. */
  private namespaces: (string | null)[] = [];
  private perNamespace = new Map<string, number>();
  private listeners: VectorCacheListener[] = [];
  private readonly matrix: VectorMatrix;
  private seq = -1;
  private free: number[] = [];
  /** 1 for each slot holding a row (removed rows leave holes until reused). */
  private live = new Uint8Array(1024);

  /** The last full scan: rows it covered and how many it scored in float32 (all of them unless the bounding pass ruled rows out). */
  lastScan: { rows: number; scoredExactly: number } | null = null;

  constructor(
    readonly model: string,
    readonly dims: number,
    private readonly rows: VectorRows,
    opts: { quantized?: boolean } = {},
  ) {
    this.matrix = new VectorMatrix(dims, { quantized: opts.quantized !== false });
  }

  get size(): number {
    return this.slots.size;
  }

  /** Rows of one namespace in the cache. */
  countIn(namespace: string): number {
    return this.perNamespace.get(namespace) ?? 0;
  }

  listen(l: VectorCacheListener): void {
    this.listeners.push(l);
  }

  unlisten(l: VectorCacheListener): void {
    this.listeners = this.listeners.filter((x) => x !== l);
  }

  /** Row keys of one namespace (an approximate index starting its build). */
  rowidsIn(namespace: string): number[] {
    const out: number[] = [];
    for (const [rowid, slot] of this.slots) if (this.namespaces[slot] === namespace) out.push(rowid);
    return out;
  }

  /** Copies a row's vector into `out` at `offset`; false when the row is gone. */
  copyVector(rowid: number, out: Float32Array, offset = 0): boolean {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return false;
    out.set(this.matrix.row(slot), offset);
    return true;
  }

  /** A hash of a row's vector (vectorHash), or undefined when the row is gone: a saved graph's rows are checked with it. */
  vectorHashOf(rowid: number): number | undefined {
    const slot = this.slots.get(rowid);
    return slot === undefined ? undefined : vectorHash(this.matrix.row(slot));
  }

  private inFlight: Promise<void> | null = null;

  /** Whether the rows were ever loaded, or are being loaded now. */
  get started(): boolean {
    return this.seq >= 0 || this.inFlight !== null;
  }

  /**
   * Brings the matrix up to date with the change log. Concurrent callers (a
   * server answering many searches at once) share one refresh: otherwise each
   * would start its own full load of every vector, all at the same time.
   */
  refresh(): Promise<void> {
    this.inFlight ??= this.catchUp().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  private async catchUp(): Promise<void> {
    if (this.seq < 0) return this.reload();
    // No entry after ours means nothing changed since: a prune always keeps the newest entry, so it
    // cannot have taken every entry this copy missed. The log's tail matters only when there are
    // changes (one read a search fewer: a round trip on PostgreSQL).
    const changes = await this.rows.changedSince(this.seq);
    if (changes.length === 0) return;
    // Entries this copy never saw were pruned: only a reload brings it back in step.
    if ((await this.rows.logTail()) > this.seq + 1) return this.reload();
    const rowids = [...new Set(changes.map((c) => c.rowid))];
    // Read every changed row first, then apply: a search running beside this refresh sees the old state or the new, not half.
    const loaded: VectorRow[] = [];
    for (let i = 0; i < rowids.length; i += 500) {
      await this.rows.eachVector(this.model, rowids.slice(i, i + 500), (r) => loaded.push({ ...r, vector: r.vector.slice() }));
    }
    for (const r of rowids) this.remove(r);
    for (const v of loaded) this.add(v);
    this.seq = changes[changes.length - 1]!.seq;
  }

  /**
   * Loads every row again, straight from the driver's rows into the matrix:
   * building the whole list first cost twice the time and memory (at 100k
   * vectors, 2.4 s of a 3.7 s one-shot search). The old rows go at the first
   * visit, so a search sees the old rows or the new ones, never half of each.
   */
  private async reload(): Promise<void> {
    const head = await this.rows.logHead();
    let cleared = false;
    const clearOnce = () => {
      if (cleared) return;
      cleared = true;
      this.clear();
    };
    try {
      await this.rows.eachVector(this.model, null, (v) => {
        clearOnce();
        this.add(v);
      });
    } catch (e) {
      // A read that failed part way left some rows in: the next refresh starts over.
      if (cleared) this.seq = -1;
      throw e;
    }
    clearOnce();
    this.seq = head;
  }

  private clear(): void {
    this.slots.clear();
    this.ids = [];
    this.rowids = [];
    this.namespaces = [];
    this.perNamespace.clear();
    this.free = [];
    this.live.fill(0);
    for (const l of this.listeners) l.cleared();
  }

  private add({ rowid, id, namespace, vector }: VectorRow): void {
    if (vector.length !== this.dims) return; // another model's dimensions: never mixed
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(null);
      this.rowids.push(-1);
      this.namespaces.push(null);
      this.matrix.reserve(slot + 1);
      if (slot >= this.live.length) {
        const grown = new Uint8Array(this.live.length * 2);
        grown.set(this.live);
        this.live = grown;
      }
    }
    this.live[slot] = 1;
    this.matrix.set(slot, vector);
    this.ids[slot] = id;
    this.rowids[slot] = rowid;
    this.namespaces[slot] = namespace;
    this.perNamespace.set(namespace, (this.perNamespace.get(namespace) ?? 0) + 1);
    this.slots.set(rowid, slot);
    this.version++;
    for (const l of this.listeners) l.added(rowid, namespace);
  }

  private remove(rowid: number): void {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return;
    const namespace = this.namespaces[slot]!;
    this.slots.delete(rowid);
    this.ids[slot] = null;
    this.rowids[slot] = -1;
    this.live[slot] = 0;
    this.namespaces[slot] = null;
    const left = (this.perNamespace.get(namespace) ?? 1) - 1;
    if (left > 0) this.perNamespace.set(namespace, left);
    else this.perNamespace.delete(namespace);
    this.free.push(slot);
    this.version++;
    for (const l of this.listeners) l.removed(rowid, namespace);
  }

  private maskFor: { allowed: ReadonlySet<number>; version: number; mask: Uint8Array } | null = null;
  private version = 0;

  /** Admitted slots as a byte mask: one array read per row in the scan instead of a hash look-up. */
  private mask(allowed: ReadonlySet<number>): Uint8Array {
    const m = this.maskFor;
    if (m && m.allowed === allowed && m.version === this.version && m.mask.length >= this.ids.length) return m.mask;
    const mask = new Uint8Array(this.ids.length);
    for (const rowid of allowed) {
      const slot = this.slots.get(rowid);
      if (slot !== undefined) mask[slot] = 1;
    }
    this.maskFor = { allowed, version: this.version, mask };
    return mask;
  }

  /**
   * Exact cosine scan over the allowed rows only (vectors are unit length, so
   * a dot product). A small admitted set (a guest's share of a large store, a
   * narrow filter) is scored row by row; otherwise every row is scored in one
   * pass and the admitted ones compete.
   */
  nearest(query: Float32Array, allowed: ReadonlySet<number> | null, limit: number): VectorHit[] {
    if (allowed !== null && allowed.size * SPARSE_FRACTION < this.ids.length) return this.scoreRows(query, allowed, limit);
    return this.ranked(this.scan(query, allowed === null ? null : this.mask(allowed), limit));
  }

  /**
   * The `limit` best rows of one namespace, exactly as `nearest` ranks them,
   * with their row keys: the candidates a caller then checks against scope
   * and filter (VectorScan, when no admitted set is current).
   */
  nearestIn(query: Float32Array, namespace: string, limit: number): { rowid: number; id: string; score: number }[] {
    const rows = this.countIn(namespace);
    if (rows === 0) return [];
    // A store with one namespace (the usual case) needs no mask beyond the live rows.
    const mask = rows === this.size ? null : this.namespaceMask(namespace);
    return this.ordered(this.scan(query, mask, limit)).map((b) => ({ rowid: this.rowids[b.slot]!, id: this.ids[b.slot]!, score: b.score }));
  }

  private nsMask: { namespace: string; version: number; mask: Uint8Array } | null = null;

  private namespaceMask(namespace: string): Uint8Array {
    const m = this.nsMask;
    if (m && m.namespace === namespace && m.version === this.version) return m.mask;
    const mask = new Uint8Array(this.ids.length);
    for (let slot = 0; slot < mask.length; slot++) if (this.namespaces[slot] === namespace) mask[slot] = 1;
    this.nsMask = { namespace, version: this.version, mask };
    return mask;
  }

  /** Every live row the mask admits (all live rows without one), the `limit` best kept. */
  private scan(query: Float32Array, mask: Uint8Array | null, limit: number): TopK {
    const n = this.ids.length;
    const admitted = (slot: number) => this.live[slot] === 1 && (mask === null || mask[slot] === 1);
    // From the 8-bit copy: only rows that may make the top `limit` are scored exactly (same result as scoring all).
    const candidates = n >= BOUNDED_SCAN_MIN_ROWS && limit > 0 ? this.matrix.candidates(query, n, limit, mask ?? this.live) : null;
    if (candidates) {
      this.lastScan = { rows: n, scoredExactly: candidates.length };
      return this.bestOfSlots(query, candidates, limit);
    }
    const heap = new TopK(limit, this.ids);
    // The SIMD kernel is cheaper over every row than skipping rows one by one.
    const scores = this.matrix.scores(query, n);
    this.lastScan = { rows: n, scoredExactly: n };
    for (let slot = 0; slot < n; slot++) {
      const score = scores[slot]!;
      // The heap's floor check first: most rows lose to it and never reach the scope test.
      if (!(score >= heap.floor) || !admitted(slot)) continue;
      heap.offer(slot, score);
    }
    return heap;
  }

  /**
   * Exact cosine of the query with the given rows only (an approximate
   * index's candidates, a small admitted set), skipping rows not cached (no
   * vector of this model, or gone), the `limit` best ordered like `nearest`.
   * The same arithmetic as the full scan, so a row scores and ranks the same
   * whichever path proposed it.
   */
  scoreRows(query: Float32Array, rowids: Iterable<number>, limit: number): VectorHit[] {
    return this.ranked(this.best(query, rowids, limit));
  }

  /** Every given row still cached, scored exactly and ranked like `nearest`, with its row key. */
  rankRows(query: Float32Array, rowids: number[]): { rowid: number; id: string; score: number }[] {
    return this.ordered(this.best(query, rowids, rowids.length)).map((b) => ({ rowid: this.rowids[b.slot]!, id: this.ids[b.slot]!, score: b.score }));
  }

  private best(query: Float32Array, rowids: Iterable<number>, limit: number): TopK {
    const slots: number[] = [];
    for (const rowid of rowids) {
      const slot = this.slots.get(rowid);
      if (slot !== undefined) slots.push(slot);
    }
    return this.bestOfSlots(query, slots, limit);
  }

  private bestOfSlots(query: Float32Array, slots: number[], limit: number): TopK {
    const heap = new TopK(limit, this.ids);
    const scores = this.matrix.scoresOf(query, slots);
    for (let i = 0; i < slots.length; i++) {
      const score = scores[i]!;
      if (score >= heap.floor) heap.offer(slots[i]!, score);
    }
    return heap;
  }

  private ranked(heap: TopK): VectorHit[] {
    return this.ordered(heap).map((b) => ({ id: this.ids[b.slot]!, score: b.score }));
  }

  private ordered(heap: TopK): { slot: number; score: number }[] {
    return bestFirst(heap, this.ids);
  }
}

/** An admitted set smaller than 1/SPARSE_FRACTION of the rows is scored row by row instead of by a full scan. */
const SPARSE_FRACTION = 8;
/** From this many rows the full scan bounds every row from the 8-bit copy first and scores only the rows it cannot rule out. */
export const BOUNDED_SCAN_MIN_ROWS = 4096;
