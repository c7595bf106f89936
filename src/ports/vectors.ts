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

/**
 * Which index answers nearest-neighbour queries. `auto`: an exact scan while
 * a namespace has at most `threshold` vectors of a model, an approximate
 * (HNSW) index above; `exact`: always the scan; `approximate`: the index
 * whatever the size. The index is derived data: the database stays the
 * source of truth, so a crash or restart loses nothing; a saved graph only
 * spares the next process its build.
 */
export type VectorIndexMode = 'auto' | 'exact' | 'approximate';

export interface VectorIndexConfig {
  mode: VectorIndexMode;
  /** Vectors of one model in one namespace above which `auto` uses the approximate index. */
  threshold: number;
  /**
   * Where approximate-index graphs are saved for the next process to load:
   * a directory, or null to build them in every process. Unset: beside a
   * SQLite file (`<file>-graphs`), or under ./.mnemos for PostgreSQL.
   */
  graphDir?: string | null;
}

export const DEFAULT_VECTOR_INDEX: VectorIndexConfig = { mode: 'auto', threshold: 200_000 };

/** Which index answered a query, and why (reported by search's explain). */
export interface VectorIndexUse {
  kind: 'exact' | 'approximate';
  /** Vectors of the model in the caller's namespace. */
  vectors: number;
  reason: string;
  /** Approximate path, last round: candidates the index proposed, and how many of those checked (best first, until enough) scope and filter admitted. */
  candidates?: number;
  admitted?: number;
  /** Approximate path: too few candidates were in scope, so the exact scan of the admitted rows answered. */
  fallback?: boolean;
  /**
   * Approximate path: rows of the graph loaded from its saved copy and rows
   * inserted by this process since the graph was started; `note` says why a
   * saved graph was not (fully) used, or why saving failed.
   */
  graph?: { fromSaved: number; built: number; note?: string };
}

export interface VectorMatches {
  hits: VectorHit[];
  index: VectorIndexUse;
}

export interface VectorIndex {
  nearest(p: Principal, q: { model: string; vector: Float32Array; filter: MemoryFilter; limit: number }): Promise<VectorMatches>;
  /**
   * Brings the in-process copy of a model's vectors up to date and, when the
   * approximate index applies to the caller's namespace, waits until it is
   * built. Searches never wait (the exact scan answers meanwhile); benchmarks
   * and tests call this before timing or comparing. With `wait: false` the
   * build is started (or its saved graph loaded) but not waited for: a
   * server's warm-up, which a first build of a million vectors (minutes)
   * must not hold up.
   */
  prepare(p: Principal, q: { model: string; dimensions: number; wait?: boolean }): Promise<VectorIndexUse>;
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
  /**
   * The learned model of a namespace (e.g. the built-in embedder's state),
   * persisted with the data. `texts`: how many memories the namespace held
   * when it was trained (what retraining is measured against).
   */
  loadModel(p: Principal, provider: string): Promise<{ model: string; state: unknown; trainedAt: string; texts: number } | null>;
  /** Just the id of the stored model: a cheap check for a newer model than the one in hand. */
  modelId(p: Principal, provider: string): Promise<string | null>;
  saveModel(p: Principal, provider: string, model: { model: string; state: unknown; texts: number }): Promise<void>;
  /** Removes a stored model (owner only): a staged model once promoted or superseded. True when there was one. */
  deleteModel(p: Principal, provider: string): Promise<boolean>;
  /**
   * Deletes all but the newest `keep` entries of the vector change log (it
   * gains one per vector written or removed, in every namespace), never the
   * newest one. A process whose in-memory copy is further behind than what
   * is kept reloads it in full. Maintenance, owner only; returns the entries
   * deleted.
   */
  pruneLog(p: Principal, keep: number): Promise<number>;
  /**
   * Deletes the caller's namespace's vectors of the models `current` replaced:
   * ids that start with `family` other than `current` itself. A retrained
   * built-in model otherwise leaves the previous model's vectors behind for
   * good. Owner only; returns the vectors deleted.
   */
  dropReplacedModels(p: Principal, family: string, current: string): Promise<number>;
}
