import type { Principal } from '../domain/principal.ts';
import type { MemoryFilter } from './store.ts';

/**
 * Vectors beside memories, one per memory version and model. A store whose
 * capabilities say `vectors` exposes this as `store.vectors`. Scope and
 * filters apply before ranking: `nearest` only ever scores memories the
 * principal may read and the filter admits, never a global top-k cut later.
 */
export interface VectorHit {
  id: string;
  /** Cosine similarity (vectors are unit length), higher is better. */
  score: number;
}

export interface VectorIndex {
  nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorHit[]>;
  /** Writes (or replaces) vectors for memories the principal may write. */
  put(p: Principal, items: { id: string; model: string; vector: Float32Array }[]): Promise<number>;
  /**
   * Current memories the principal can see with no vector of this model, in
   * id order (oldest first), after `afterId` when given: a caller walking the
   * store passes the last id it saw, so each call starts where the last ended
   * instead of re-reading every memory already done.
   */
  missing(p: Principal, model: string, limit: number, afterId?: string | null): Promise<{ id: string; text: string }[]>;
  count(p: Principal, model: string): Promise<number>;
  /** The learned model of a namespace (e.g. the built-in embedder's state), persisted with the data. */
  loadModel(p: Principal, provider: string): Promise<{ model: string; state: unknown; trainedAt: string; texts: number } | null>;
  /** Just the id of the stored model: a cheap check for a newer model than the one in hand. */
  modelId(p: Principal, provider: string): Promise<string | null>;
  saveModel(p: Principal, provider: string, model: { model: string; state: unknown; texts: number }): Promise<void>;
}
