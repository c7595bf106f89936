import type { KeywordHit } from '../ports/store.ts';
import { candidatesNeeded, firstCandidates } from './candidate-sizes.ts';
import { KeywordCache, type KeywordScore } from './keyword-cache.ts';
import type { SqlPart } from './sql/scope-sql.ts';

/**
 * What a backend supplies so its keyword search can rank from the in-process
 * copy: its memory row log (row keys of memories written and removed, in
 * commit order), the rows' text, and its own scope-and-filter SQL.
 */
export interface KeywordRows {
  /** Highest log sequence, or 0. */
  logHead(): Promise<number>;
  /** Lowest sequence still in the log (older entries were pruned), or 0. */
  logTail(): Promise<number>;
  /** Distinct row keys logged after `after`, up to `upTo`. */
  changedSince(after: number, upTo: number): Promise<number[]>;
  /** The text of those rows that still exist. */
  texts(rowids: number[]): Promise<Map<number, string>>;
  rowCount(): Promise<number>;
  /** The next rows in row-key order, for a build. */
  page(after: number, limit: number): Promise<{ rowid: number; text: string }[]>;
  /** Ids of the rows `w` admits among these. */
  admitted(w: SqlPart, rowids: number[]): Promise<Map<number, string>>;
}

export interface KeywordIndexLimits {
  /** Up to this many memories the copy is built inside the first keyword search (a quarter of a second at most). */
  buildNowRows: number;
  /** Rows read and analyzed per slice of a background build (a few milliseconds between turns of the event loop). */
  sliceRows: number;
  /** A copy further behind the log than this is rebuilt rather than caught up inside one search. */
  catchUpMax: number;
  /** Matching documents checked against scope and filter at most; past it (a guest, a very common word) the backend's own query answers. */
  checkMax: number;
}

export const KEYWORD_INDEX_LIMITS: Readonly<KeywordIndexLimits> = Object.freeze({ buildNowRows: 20_000, sliceRows: 500, catchUpMax: 20_000, checkMax: 20_000 });

/**
 * Keyword search from an in-process copy of the full-text index
 * (keyword-cache.ts) that follows the backend's memory log, as the vector
 * copy follows its vector log, so several processes can share a store. The
 * first keyword search builds it (at once for a small store, in slices in
 * the background for a large one, the backend's own query answering
 * meanwhile: `search` returns null).
 *
 * Scope before ranking, as on the vector path: the copy ranks every
 * document of the store; the best K are checked against the store's
 * scope-and-filter SQL (which also names their ids) best first, and if
 * `limit` of them pass, those are the true top of the admitted documents,
 * because any admitted document outside the best K ranks below all of them.
 * Too few: K widens, up to every matching document; past `checkMax`
 * matches the backend's exact query answers instead.
 */
export class KeywordIndex {
  private cache: KeywordCache | null = null;
  private seq = 0;
  /** The build in progress: each call reads and indexes the next slice of rows, true once the copy is complete. */
  private build: { slice: () => Promise<boolean> } | null = null;
  /** One slice or one catch-up at a time: concurrent searches share it. */
  private inFlight: Promise<unknown> | null = null;
  private closed = false;

  constructor(
    private readonly rows: KeywordRows,
    private readonly analyze: (text: string) => string[],
    private readonly limits: KeywordIndexLimits = KEYWORD_INDEX_LIMITS,
  ) {}

  /** The copy's state for status lines and tests. */
  get state(): { ready: boolean; documents: number; terms: number; building: boolean } {
    return { ready: this.cache !== null, documents: this.cache?.size ?? 0, terms: this.cache?.vocabulary ?? 0, building: this.build !== null };
  }

  /** Whether the copy holds a term (tests: a forgotten memory's words must leave it). */
  knows(term: string): boolean {
    return this.cache?.knows(term) ?? false;
  }

  /** Stops a background build; the copy is dropped. */
  close(): void {
    this.closed = true;
    this.cache = null;
    this.build = null;
  }

  /**
   * The `limit` best documents `w` admits for these analyzed terms, or null
   * when the copy cannot answer yet (building) or the check would be too
   * large; the caller then asks its backend's own index.
   */
  async search(terms: readonly string[], w: SqlPart, limit: number): Promise<KeywordHit[] | null> {
    if (this.closed) return null;
    if (!this.cache) {
      if (this.build) await this.step();
      else await this.start();
      if (!this.cache) return null;
    }
    if (!(await this.catchUp())) return null;
    const cache = this.cache;
    if (!cache) return null;
    let k = firstCandidates(limit);
    for (;;) {
      const { hits, matching } = cache.top(terms, k);
      const admitted = await this.admitted(w, hits);
      const out: KeywordHit[] = [];
      for (const h of hits) {
        const id = admitted.get(h.rowid);
        if (id !== undefined && out.length < limit) out.push({ id, score: h.score });
      }
      // Enough admitted, or every matching document was checked: this is the true top.
      if (out.length >= limit || hits.length >= matching) return out;
      if (k >= this.limits.checkMax || matching > this.limits.checkMax) return null;
      // At this round's survival rate, enough to fill the page (with a margin), and at least four times wider.
      const needed = candidatesNeeded(limit, hits.length, admitted.size);
      k = Math.min(Math.max(4 * k, needed), matching, this.limits.checkMax);
    }
  }

  /** Brings the copy up to date after a write of this handle (forget: the forgotten words leave at once). */
  async refresh(): Promise<void> {
    if (this.cache) await this.catchUp();
  }

  /**
   * Builds the copy now if it is not ready (a search thread warming up,
   * benchmarks, tests; searches never wait for it). Between slices the event
   * loop gets a turn: a backend that reads synchronously (SQLite) resolves
   * each slice's promises at once, so without it the build held the thread
   * until it was done, and a served store of a million memories answered its
   * first search after the whole build (44 s) instead of from FTS5 meanwhile.
   */
  async prepare(): Promise<void> {
    if (this.closed) return;
    if (!this.cache && !this.build) await this.start();
    while (!(await this.step())) await new Promise<void>((resolve) => setImmediate(resolve));
    if (this.cache) await this.catchUp();
  }

  private async admitted(w: SqlPart, hits: KeywordScore[]): Promise<Map<number, string>> {
    return hits.length === 0 ? new Map() : this.rows.admitted(w, hits.map((h) => h.rowid));
  }

  /** Applies the log since the copy's position; false when it is too far behind (a rebuild starts). */
  private catchUp(): Promise<boolean> {
    return this.serially(async () => {
      if (!this.cache) return false;
      const head = await this.rows.logHead();
      if (head === this.seq) return true;
      if (head - this.seq > this.limits.catchUpMax) {
        this.cache = null;
        await this.startNow();
        return this.cache !== null;
      }
      const changed = await this.rows.changedSince(this.seq, head);
      // Read everything first, then apply, so a failed read leaves the copy as it was.
      const texts = await this.rows.texts(changed);
      // Entries this copy never saw were pruned (read after the changes: a prune between the two reads counts too).
      if ((await this.rows.logTail()) > this.seq + 1) {
        this.cache = null;
        await this.startNow();
        return this.cache !== null;
      }
      if (!this.cache) return false;
      for (const r of changed) {
        const text = texts.get(r);
        if (text !== undefined) this.cache.add(r, this.analyze(text));
        else this.cache.remove(r);
      }
      this.seq = head;
      return true;
    });
  }

  /** Runs `fn` after whatever slice or catch-up is in flight: they read the log and the copy's position. */
  private serially<T>(fn: () => Promise<T>): Promise<T> {
    const run = (this.inFlight ?? Promise.resolve()).then(fn, fn);
    this.inFlight = run.catch(() => {});
    return run;
  }

  private start(): Promise<void> {
    return this.serially(() => this.startNow());
  }

  /**
   * Starts building the copy: all of it here and now for a small store;
   * otherwise in slices, on timers that never keep the process alive, and one
   * slice inside each search that meets the build unfinished, so a caller
   * that searches in a tight loop still gets there.
   */
  private async startNow(): Promise<void> {
    if (this.build || this.closed || this.cache) return;
    const head = await this.rows.logHead();
    const cache = new KeywordCache();
    const rows = await this.rows.rowCount();
    let after = 0;
    // Rows written while this runs are in the log after `head`: the first catch-up applies them (adding twice replaces).
    const slice = async (): Promise<boolean> => {
      const batch = await this.rows.page(after, this.limits.sliceRows);
      if (this.build?.slice !== slice) return true; // closed or replaced meanwhile
      for (const b of batch) cache.add(b.rowid, this.analyze(b.text));
      if (batch.length > 0) after = batch[batch.length - 1]!.rowid;
      if (batch.length === this.limits.sliceRows) return false;
      this.build = null;
      if (!this.closed) {
        this.cache = cache;
        this.seq = head;
      }
      return true;
    };
    this.build = { slice };
    if (rows <= this.limits.buildNowRows) {
      while (!(await this.slice()));
      return;
    }
    const onTimer = () => {
      if (this.build?.slice !== slice) return;
      void this.step().then((done) => {
        if (!done) setTimeout(onTimer, 0).unref();
      });
    };
    setTimeout(onTimer, 0).unref();
  }

  /** One slice of the build in progress, after any other; true when there is none left to do (built, or given up). */
  private step(): Promise<boolean> {
    return this.serially(() => this.slice());
  }

  private async slice(): Promise<boolean> {
    if (!this.build || this.closed) return true;
    try {
      return await this.build.slice();
    } catch {
      // A busy or closing database: the backend's own index keeps answering, and the next search starts over.
      this.build = null;
      return true;
    }
  }
}
