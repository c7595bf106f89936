/**
 * Keeping the best rows of a scan, and the one order every vector path
 * returns them in (vector-cache.ts, vector-stream.ts): best score first,
 * equal scores by id.
 */

/**
 * The k best (slot, score) pairs seen so far, kept in a min-heap so most rows
 * cost one comparison. Equal scores rank by id (smaller first), as the
 * final order does: which of several rows tied at the k-th place stays
 * then never depends on the order rows were offered in, so every path that
 * scores the same rows keeps the same ones.
 */
export class TopK {
  private readonly slots: Int32Array;
  private readonly scores: Float64Array;
  private size = 0;

  constructor(
    private readonly k: number,
    private readonly ids: readonly (string | null)[],
  ) {
    this.slots = new Int32Array(Math.max(1, k));
    this.scores = new Float64Array(Math.max(1, k));
  }

  /** A score below this cannot enter (minus infinity until the heap is full); an equal one enters only on a smaller id. */
  get floor(): number {
    return this.size < this.k ? -Infinity : this.scores[0]!;
  }

  /** Whether entry a ranks below entry b: a lower score, or an equal score and a larger id. */
  private below(scoreA: number, slotA: number, scoreB: number, slotB: number): boolean {
    if (scoreA !== scoreB) return scoreA < scoreB;
    return this.ids[slotA]! > this.ids[slotB]!;
  }

  offer(slot: number, score: number): void {
    if (this.k <= 0) return;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const parent = (i - 1) >> 1;
        if (!this.below(score, slot, this.scores[parent]!, this.slots[parent]!)) break;
        this.slots[i] = this.slots[parent]!;
        this.scores[i] = this.scores[parent]!;
        i = parent;
      }
      this.slots[i] = slot;
      this.scores[i] = score;
      return;
    }
    if (!this.below(this.scores[0]!, this.slots[0]!, score, slot)) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= this.size) break;
      const r = l + 1;
      const c = r < this.size && this.below(this.scores[r]!, this.slots[r]!, this.scores[l]!, this.slots[l]!) ? r : l;
      if (!this.below(this.scores[c]!, this.slots[c]!, score, slot)) break;
      this.slots[i] = this.slots[c]!;
      this.scores[i] = this.scores[c]!;
      i = c;
    }
    this.slots[i] = slot;
    this.scores[i] = score;
  }

  sorted(): { slot: number; score: number }[] {
    const out: { slot: number; score: number }[] = [];
    for (let i = 0; i < this.size; i++) out.push({ slot: this.slots[i]!, score: this.scores[i]! });
    return out;
  }
}

/** The heap's rows best first; equal scores by id, so every path gives the same order. */
export function bestFirst(heap: TopK, ids: readonly (string | null)[]): { slot: number; score: number }[] {
  return heap.sorted().sort((a, b) => b.score - a.score || (ids[a.slot]! < ids[b.slot]! ? -1 : 1));
}
