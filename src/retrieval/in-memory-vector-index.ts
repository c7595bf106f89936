/**
 * Exact nearest-neighbour scan over unit vectors held in one growing
 * Float32Array. The reference for the store's vector index and the benchmark
 * search; at LoCoMo/SciFact sizes a scan is both exact and fast.
 */
import { MnemosError } from '../domain/errors.ts';
import { dot } from '../embedding/vectors.ts';

export interface VectorHit {
  id: string;
  score: number;
}

export class InMemoryVectorIndex {
  readonly dimensions: number;
  private readonly ids: string[] = [];
  private readonly position = new Map<string, number>();
  private data: Float32Array;

  constructor(dimensions: number) {
    if (!Number.isInteger(dimensions) || dimensions <= 0) throw new MnemosError('validation_failed', `vector dimensions must be a positive integer, got ${dimensions}`);
    this.dimensions = dimensions;
    this.data = new Float32Array(dimensions * 64);
  }

  get size(): number {
    return this.ids.length;
  }

  add(id: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) {
      throw new MnemosError('validation_failed', `vector for "${id}" has ${vector.length} dimensions, the index has ${this.dimensions}`, { id });
    }
    if (this.position.has(id)) throw new MnemosError('conflict', `vector "${id}" is already in the index`, { id });
    const at = this.ids.length * this.dimensions;
    if (at + this.dimensions > this.data.length) {
      const grown = new Float32Array(Math.max(this.data.length * 2, at + this.dimensions));
      grown.set(this.data);
      this.data = grown;
    }
    this.data.set(vector, at);
    this.position.set(id, this.ids.length);
    this.ids.push(id);
  }

  /** Similarity (dot product; cosine for unit vectors) of every document, or of those `allow` admits. */
  scores(query: Float32Array, allow?: (id: string) => boolean): Map<string, number> {
    if (query.length !== this.dimensions) throw new MnemosError('validation_failed', `query vector has ${query.length} dimensions, the index has ${this.dimensions}`);
    const out = new Map<string, number>();
    for (let d = 0; d < this.ids.length; d++) {
      const id = this.ids[d]!;
      if (allow && !allow(id)) continue;
      out.set(id, dot(query, this.data.subarray(d * this.dimensions, (d + 1) * this.dimensions)));
    }
    return out;
  }

  /** Best `limit` documents, best first; equal scores in insertion order. Filters apply before ranking. */
  search(query: Float32Array, limit: number, allow?: (id: string) => boolean): VectorHit[] {
    const hits = [...this.scores(query, allow)].map(([id, score]) => ({ id, score, at: this.position.get(id)! }));
    hits.sort((a, b) => b.score - a.score || a.at - b.at);
    return hits.slice(0, Math.max(0, limit)).map(({ id, score }) => ({ id, score }));
  }
}
