import type { VectorHit } from '../ports/vectors.ts';

/**
 * An in-process copy of one model's vectors, kept in step with the database
 * through an append-only change log (rowids only), so several processes can
 * share a store and each scans its own contiguous matrix. Backend-neutral:
 * an adapter supplies the few reads below.
 */
export interface VectorRows {
  /** Highest change-log sequence, or 0. */
  logHead(): Promise<number>;
  /** Lowest sequence still in the log (older entries were pruned), or 0. */
  logTail(): Promise<number>;
  changedSince(seq: number): Promise<{ seq: number; rowid: number }[]>;
  load(model: string, rowids: number[] | null): Promise<{ rowid: number; id: string; vector: Float32Array }[]>;
}

export class VectorCache {
  private slots = new Map<number, number>(); // rowid -> slot
  private ids: (string | null)[] = [];
  private rowids: number[] = [];
  private matrix: Float32Array;
  private seq = -1;
  private free: number[] = [];

  constructor(
    readonly model: string,
    readonly dims: number,
    private readonly rows: VectorRows,
  ) {
    this.matrix = new Float32Array(1024 * dims);
  }

  get size(): number {
    return this.slots.size;
  }

  async refresh(): Promise<void> {
    if (this.seq < 0 || (await this.rows.logTail()) > this.seq + 1) return this.reload();
    const changes = await this.rows.changedSince(this.seq);
    if (changes.length === 0) return;
    const rowids = [...new Set(changes.map((c) => c.rowid))];
    for (const r of rowids) this.remove(r);
    for (let i = 0; i < rowids.length; i += 500) for (const v of await this.rows.load(this.model, rowids.slice(i, i + 500))) this.add(v.rowid, v.id, v.vector);
    this.seq = changes[changes.length - 1]!.seq;
  }

  private async reload(): Promise<void> {
    const head = await this.rows.logHead();
    this.slots.clear();
    this.ids = [];
    this.rowids = [];
    this.free = [];
    for (const v of await this.rows.load(this.model, null)) this.add(v.rowid, v.id, v.vector);
    this.seq = head;
  }

  private add(rowid: number, id: string, vector: Float32Array): void {
    if (vector.length !== this.dims) return; // another model's dimensions: never mixed
    let slot = this.free.pop();
    if (slot === undefined) {
      slot = this.ids.length;
      this.ids.push(null);
      this.rowids.push(-1);
      if ((slot + 1) * this.dims > this.matrix.length) {
        const grown = new Float32Array(this.matrix.length * 2);
        grown.set(this.matrix);
        this.matrix = grown;
      }
    }
    this.matrix.set(vector, slot * this.dims);
    this.ids[slot] = id;
    this.rowids[slot] = rowid;
    this.slots.set(rowid, slot);
  }

  private remove(rowid: number): void {
    const slot = this.slots.get(rowid);
    if (slot === undefined) return;
    this.slots.delete(rowid);
    this.ids[slot] = null;
    this.rowids[slot] = -1;
    this.free.push(slot);
  }

  /** Exact cosine scan over the allowed rows only (vectors are unit length, so a dot product). */
  nearest(query: Float32Array, allowed: ReadonlySet<number> | null, limit: number): VectorHit[] {
    const d = this.dims;
    const m = this.matrix;
    const best: { slot: number; score: number }[] = [];
    let floor = -Infinity;
    for (let slot = 0; slot < this.ids.length; slot++) {
      const rowid = this.rowids[slot]!;
      if (rowid < 0 || (allowed !== null && !allowed.has(rowid))) continue;
      let s = 0;
      const o = slot * d;
      for (let j = 0; j < d; j++) s += m[o + j]! * query[j]!;
      if (best.length < limit) {
        best.push({ slot, score: s });
        if (best.length === limit) {
          best.sort((a, b) => b.score - a.score);
          floor = best[best.length - 1]!.score;
        }
      } else if (s > floor) {
        best[best.length - 1] = { slot, score: s };
        best.sort((a, b) => b.score - a.score);
        floor = best[best.length - 1]!.score;
      }
    }
    best.sort((a, b) => b.score - a.score || (this.ids[a.slot]! < this.ids[b.slot]! ? -1 : 1));
    return best.map((b) => ({ id: this.ids[b.slot]!, score: b.score }));
  }
}
