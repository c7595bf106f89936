/**
 * The embedder port. A provider declares what it is and its limits and turns
 * texts into vectors; the engine-side EmbeddingService does batching, retries
 * with back-off and caching, so providers stay thin.
 */

/** Documents are what gets stored; queries are what gets searched (some models embed them differently). */
export type EmbeddingKind = 'document' | 'query';

export interface EmbedOptions {
  kind?: EmbeddingKind;
  signal?: AbortSignal;
}

export interface Embedder {
  /** Provider id: 'builtin', 'openai-compatible', 'onnx', ... */
  readonly id: string;
  /**
   * Model identity. Stored vectors carry it; vectors of different models are
   * never compared, and a change of model means re-embedding.
   */
  readonly model: string;
  readonly dimensions: number;
  /** Most texts one `embed` call accepts. */
  readonly maxBatch: number;
  /**
   * True when working a vector out costs less than looking it up (in-process
   * arithmetic, like the built-in embedder): the service then skips its cache,
   * whose key alone is a SHA-256 of the text.
   */
  readonly cheapToRecompute?: boolean;
  /**
   * One vector per text, in order, each of length `dimensions`. Transient
   * failures throw MnemosError('unavailable') with `details.retryable = true`
   * (and `details.retryAfterMs` when the provider said how long to wait).
   */
  embed(texts: readonly string[], options?: EmbedOptions): Promise<Float32Array[]>;
}
