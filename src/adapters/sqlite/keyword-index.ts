import type Database from 'better-sqlite3';
import type { KeywordHit } from '../../ports/store.ts';
import { KeywordCache, type KeywordScore } from '../keyword-cache.ts';
import type { SqlPart } from '../sql/scope-sql.ts';
import type { StatementCache } from './statements.ts';

export interface KeywordIndexLimits {
  /** Up to this many memories the copy is built inside the first keyword search (a quarter of a second at most). */
  buildNowRows: number;
  /** Rows read and analyzed per slice of a background build (a few milliseconds between turns of the event loop). */
  sliceRows: number;
  /** A copy further behind the log than this is rebuilt rather than caught up inside one search. */
  catchUpMax: number;
  /** Matching documents checked against scope and filter at most; past it (a guest, a very common word) FTS5 answers. */
  checkMax: number;
}

export const KEYWORD_INDEX_LIMITS: Readonly<KeywordIndexLimits> = Object.freeze({ buildNowRows: 20_000, sliceRows: 500, catchUpMax: 20_000, checkMax: 20_000 });

/**
 * The full-text side of search on SQLite: an in-process copy of the index
 * (keyword-cache.ts) that follows the memory_log table, as the vector copy
 * follows vector_log, so several processes can share a file. The first
 * keyword search builds it (at once for a small store, in slices in the
 * background for a large one, FTS5 answering meanwhile: `search` returns
 * null).
 *
 * Scope before ranking, as on the vector path: the copy ranks every
 * document of the file; the best K are checked against the store's
 * scope-and-filter SQL (which also names their ids) best first, and if
 * `limit` of them pass, those are the true top of the admitted documents,
 * because any admitted document outside the best K ranks below all of them.
 * Too few: K widens, up to every matching document; past `checkMax` matches
 * FTS5's exact query answers instead.
 */
export class SqliteKeywordIndex {
  private cache: KeywordCache | null = null;
  private seq = 0;
  /** The build in progress: each call reads and indexes the next slice of rows, true once the copy is complete. */
  private build: { slice: () => boolean } | null = null;
  private closed = false;

  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
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
  }

  /**
   * The `limit` best documents `w` admits for these analyzed terms, or null
   * when the copy cannot answer yet (building) or the check would be too
   * large; the caller then asks FTS5.
   */
  search(terms: readonly string[], w: SqlPart, limit: number): KeywordHit[] | null {
    if (this.closed) return null;
    if (!this.cache) {
      if (this.build) this.step();
      else this.start();
      if (!this.cache) return null;
    }
    if (!this.catchUp()) return null;
    const cache = this.cache;
    let k = Math.ceil(1.25 * limit) + 10;
    for (;;) {
      const { hits, matching } = cache.top(terms, k);
      const admitted = this.admitted(w, hits);
      const out: KeywordHit[] = [];
      for (const h of hits) {
        const id = admitted.get(h.rowid);
        if (id !== undefined && out.length < limit) out.push({ id, score: h.score });
      }
      // Enough admitted, or every matching document was checked: this is the true top.
      if (out.length >= limit || hits.length >= matching) return out;
      if (k >= this.limits.checkMax || matching > this.limits.checkMax) return null;
      // At this round's survival rate, enough to fill the page (with a margin), and at least four times wider.
      const needed = admitted.size === 0 ? Infinity : Math.ceil((1.5 * limit * hits.length) / admitted.size);
      k = Math.min(Math.max(4 * k, needed), matching, this.limits.checkMax);
    }
  }

  /** Brings the copy up to date after a write of this handle (forget: the forgotten words leave at once). */
  refresh(): void {
    if (this.cache) this.catchUp();
  }

  /** Ids of the candidates `w` admits, by row key. */
  private admitted(w: SqlPart, hits: KeywordScore[]): Map<number, string> {
    if (hits.length === 0) return new Map();
    // The candidates drive the join (CROSS JOIN pins the order), as on the vector path.
    const rows = this.statements
      .get(`SELECT m.rowid AS r, m.id AS id FROM json_each(?) c CROSS JOIN memories m ON m.rowid = c.value WHERE ${w.sql}`)
      .all(JSON.stringify(hits.map((h) => h.rowid)), ...w.params) as { r: number; id: string }[];
    return new Map(rows.map((r) => [r.r, r.id]));
  }

  private logHead(): number {
    return (this.statements.get('SELECT coalesce(max(seq), 0) AS s FROM memory_log').get() as { s: number }).s;
  }

  /** Applies the log since the copy's position; false when it is too far behind (a rebuild starts). */
  private catchUp(): boolean {
    const head = this.logHead();
    if (head === this.seq) return true;
    if (head - this.seq > this.limits.catchUpMax) {
      this.cache = null;
      this.start();
      return this.cache !== null;
    }
    const changed = this.statements.get('SELECT DISTINCT memory_rowid AS r FROM memory_log WHERE seq > ? AND seq <= ?').all(this.seq, head) as { r: number }[];
    const text = this.statements.get('SELECT text FROM memories WHERE rowid = ?');
    // Read everything first, then apply, so a failed read leaves the copy as it was.
    const now = changed.map(({ r }) => ({ r, row: text.get(r) as { text: string } | undefined }));
    for (const { r, row } of now) {
      if (row) this.cache!.add(r, this.analyze(row.text));
      else this.cache!.remove(r);
    }
    this.seq = head;
    return true;
  }

  /**
   * Starts building the copy: all of it here and now for a small store;
   * otherwise in slices, on timers that never keep the process alive, and one
   * slice inside each search that meets the build unfinished, so a caller
   * that searches in a tight loop (its timers never get a turn) still gets
   * there.
   */
  private start(): void {
    if (this.build || this.closed) return;
    const head = this.logHead();
    const cache = new KeywordCache();
    const rows = (this.statements.get('SELECT count(*) AS n FROM memories').get() as { n: number }).n;
    const next = this.statements.get('SELECT rowid AS r, text FROM memories WHERE rowid > ? ORDER BY rowid LIMIT ?');
    let after = 0;
    // Rows written while this runs are in the log after `head`: the first catch-up applies them (adding twice replaces).
    const slice = (): boolean => {
      const batch = next.all(after, this.limits.sliceRows) as { r: number; text: string }[];
      for (const b of batch) cache.add(b.r, this.analyze(b.text));
      if (batch.length > 0) after = batch[batch.length - 1]!.r;
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
      while (!this.step());
      return;
    }
    const onTimer = () => {
      if (this.build?.slice !== slice || this.step()) return;
      setTimeout(onTimer, 0).unref();
    };
    setTimeout(onTimer, 0).unref();
  }

  /** One slice of the build in progress; true when there is none left to do (built, or given up). */
  private step(): boolean {
    if (!this.build || this.closed) return true;
    try {
      return this.build.slice();
    } catch {
      // A busy or closing database: FTS5 keeps answering, and the next search starts over.
      this.build = null;
      return true;
    }
  }

  /** Builds the copy now if it is not ready (benchmarks and tests; searches never wait for it). */
  prepare(): void {
    if (this.closed) return;
    if (!this.cache) this.start();
    while (!this.step());
    if (this.cache) this.catchUp();
  }
}
