/**
 * An in-process copy of the full-text index: postings per analyzed term and
 * each document's length, scored with FTS5's own bm25() (k1 1.2, b 0.75, its
 * IDF floor, its order of arithmetic), so it ranks as the SQLite index does.
 * FTS5 computes that for every matching row through its auxiliary-function
 * API and reads each row's size from a table: 0.7-1.4 ms for a top 100 at
 * 100k memories, and ten times that when another connection's commit has
 * emptied the page cache. Here the same ranking is a loop over the query
 * terms' postings.
 *
 * Pure data structure: documents are whatever rows the caller adds, keyed by
 * a numeric row key; scope, filters and the database log are the adapter's
 * business (sqlite/keyword-index.ts). A removed document leaves its postings
 * until a compaction, but its terms leave the dictionary as soon as no live
 * document has them, so a forgotten memory's words do not linger.
 */

/** FTS5's bm25() constants. */
const K1 = 1.2;
const B = 0.75;
/**
 * A posting (slot, term count) or a forward entry (term id, term count) is
 * one number, `key * TF_SPAN + count`: one 8-byte array element instead of
 * two, which halves the copy (about 45 MB at 100k memories).
 */
const TF_SPAN = 65536;

export interface KeywordScore {
  rowid: number;
  score: number;
}

export class KeywordCache {
  private readonly termIds = new Map<string, number>();
  private terms: (string | null)[] = [];
  private postings: (number[] | null)[] = [];
  /** Live documents holding each term. */
  private df: number[] = [];
  private freeTerms: number[] = [];

  private readonly slots = new Map<number, number>(); // rowid -> slot
  private rowids: number[] = [];
  private lengths: number[] = [];
  private alive: Uint8Array = new Uint8Array(1024);
  /** Each slot's distinct terms and their counts (packed), at fwdStart[slot] .. + fwdCount[slot]. */
  private fwd: number[] = [];
  private fwdStart: number[] = [];
  private fwdCount: number[] = [];
  private dead = 0;
  private totalLength = 0;

  private scores = new Float64Array(1024);

  /** Live documents. */
  get size(): number {
    return this.slots.size;
  }

  /** Distinct terms of live documents. */
  get vocabulary(): number {
    return this.termIds.size;
  }

  /** Whether a live document holds the term. */
  knows(term: string): boolean {
    return this.termIds.has(term);
  }

  /** Adds (or replaces) a document from its analyzed terms, in order; its length is their count, as FTS5 counts tokens. */
  add(rowid: number, terms: readonly string[]): void {
    if (this.slots.has(rowid)) this.remove(rowid);
    const slot = this.rowids.length;
    this.rowids.push(rowid);
    this.lengths.push(terms.length);
    if (slot >= this.alive.length) {
      const grown = new Uint8Array(this.alive.length * 2);
      grown.set(this.alive);
      this.alive = grown;
      this.scores = new Float64Array(grown.length);
    }
    this.alive[slot] = 1;
    this.slots.set(rowid, slot);
    this.totalLength += terms.length;
    const counts = new Map<string, number>();
    for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
    this.fwdStart.push(this.fwd.length);
    this.fwdCount.push(counts.size);
    for (const [t, count] of counts) {
      const id = this.termId(t);
      const tf = Math.min(count, TF_SPAN - 1);
      this.postings[id]!.push(slot * TF_SPAN + tf);
      this.df[id]!++;
      this.fwd.push(id * TF_SPAN + tf);
    }
  }

  remove(rowid: number): void {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return;
    this.slots.delete(rowid);
    this.alive[slot] = 0;
    this.dead++;
    this.totalLength -= this.lengths[slot]!;
    const start = this.fwdStart[slot]!;
    for (let i = start; i < start + this.fwdCount[slot]!; i++) {
      const id = Math.floor(this.fwd[i]! / TF_SPAN);
      if (--this.df[id]! === 0) this.dropTerm(id);
    }
    // Dead entries cost every query that meets them; past a quarter of all slots, rebuild.
    if (this.dead > 1024 && this.dead * 4 > this.rowids.length) this.compact();
  }

  /**
   * The `k` best documents for the query terms (duplicates count once, as in
   * the OR query FTS5 runs), best first; equal scores by smaller row key.
   * Also how many live documents match at all.
   */
  top(queryTerms: readonly string[], k: number): { hits: KeywordScore[]; matching: number } {
    const n = this.slots.size;
    if (n === 0 || k <= 0) return { hits: [], matching: 0 };
    const avgdl = this.totalLength / n;
    const touched: number[] = [];
    const scores = this.scores;
    for (const term of new Set(queryTerms)) {
      const id = this.termIds.get(term);
      if (id === undefined) continue;
      const df = this.df[id]!;
      // FTS5's IDF, floored the way it floors it (a term in over half the rows still counts a little).
      let idf = Math.log((n - df + 0.5) / (df + 0.5));
      if (idf <= 0) idf = 1e-6;
      const post = this.postings[id]!;
      for (let i = 0; i < post.length; i++) {
        const slot = Math.floor(post[i]! / TF_SPAN);
        if (this.alive[slot] !== 1) continue;
        const tf = post[i]! - slot * TF_SPAN;
        if (scores[slot] === 0) touched.push(slot);
        scores[slot] += idf * ((tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * this.lengths[slot]!) / avgdl)));
      }
    }
    const hits = this.best(touched, k);
    for (const slot of touched) scores[slot] = 0;
    return { hits, matching: touched.length };
  }

  private best(slots: number[], k: number): KeywordScore[] {
    const scores = this.scores;
    const rowids = this.rowids;
    const better = (a: number, b: number) => scores[a]! > scores[b]! || (scores[a] === scores[b] && rowids[a]! < rowids[b]!);
    let chosen: number[];
    if (slots.length <= k) chosen = slots.slice();
    else {
      // A min-heap of the k best: most documents lose to its root with one comparison.
      const heap: number[] = [];
      const down = (i: number) => {
        for (;;) {
          const l = 2 * i + 1;
          if (l >= heap.length) return;
          const r = l + 1;
          const c = r < heap.length && better(heap[l]!, heap[r]!) ? r : l;
          if (!better(heap[i]!, heap[c]!)) return;
          [heap[i], heap[c]] = [heap[c]!, heap[i]!];
          i = c;
        }
      };
      for (const s of slots) {
        if (heap.length < k) {
          heap.push(s);
          let i = heap.length - 1;
          while (i > 0) {
            const parent = (i - 1) >> 1;
            if (!better(heap[parent]!, heap[i]!)) break;
            [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
            i = parent;
          }
        } else if (better(s, heap[0]!)) {
          heap[0] = s;
          down(0);
        }
      }
      chosen = heap;
    }
    chosen.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
    return chosen.map((s) => ({ rowid: rowids[s]!, score: scores[s]! }));
  }

  private termId(term: string): number {
    let id = this.termIds.get(term);
    if (id !== undefined) return id;
    id = this.freeTerms.pop() ?? this.terms.length;
    this.terms[id] = term;
    this.postings[id] = [];
    this.df[id] = 0;
    this.termIds.set(term, id);
    return id;
  }

  private dropTerm(id: number): void {
    this.termIds.delete(this.terms[id]!);
    this.terms[id] = null;
    this.postings[id] = null;
    this.freeTerms.push(id);
  }

  /** Rebuilds slots, postings and the forward index from the live documents only. */
  private compact(): void {
    const live = [...this.slots.entries()].sort((a, b) => a[1] - b[1]);
    const old = { fwd: this.fwd, fwdStart: this.fwdStart, fwdCount: this.fwdCount, lengths: this.lengths };
    this.slots.clear();
    this.rowids = [];
    this.lengths = [];
    this.fwd = [];
    this.fwdStart = [];
    this.fwdCount = [];
    this.alive = new Uint8Array(Math.max(1024, live.length * 2));
    this.scores = new Float64Array(this.alive.length);
    this.dead = 0;
    for (let id = 0; id < this.postings.length; id++) if (this.postings[id]) this.postings[id] = [];
    for (const [rowid, oldSlot] of live) {
      const slot = this.rowids.length;
      this.rowids.push(rowid);
      this.lengths.push(old.lengths[oldSlot]!);
      this.alive[slot] = 1;
      this.slots.set(rowid, slot);
      this.fwdStart.push(this.fwd.length);
      this.fwdCount.push(old.fwdCount[oldSlot]!);
      const start = old.fwdStart[oldSlot]!;
      for (let i = start; i < start + old.fwdCount[oldSlot]!; i++) {
        const entry = old.fwd[i]!;
        const id = Math.floor(entry / TF_SPAN);
        this.postings[id]!.push(slot * TF_SPAN + (entry - id * TF_SPAN));
        this.fwd.push(entry);
      }
    }
  }
}
