/**
 * The engine side of embedding: splits work into the provider's batch size,
 * retries transient failures with exponential back-off, checks dimensions, and
 * caches vectors by content hash + model id (a changed model never hits an old
 * vector). The cache here is an in-memory LRU; the store persists vectors with
 * their model id for the long term.
 */
import { sha256Hex } from '../domain/hash.ts';
import { MnemosError, toMnemosError } from '../domain/errors.ts';
import type { EmbedOptions, Embedder, EmbeddingKind } from './port.ts';
import { LruCache } from './lru-cache.ts';

export interface RetryPolicy {
  /** Retries after the first attempt. */
  retries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface EmbeddingServiceOptions {
  cacheSize?: number;
  retry?: Partial<RetryPolicy>;
  /** Injected for tests; default setTimeout-based, honours the abort signal. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
}

export const DEFAULT_RETRY: Readonly<RetryPolicy> = Object.freeze({ retries: 4, baseDelayMs: 250, maxDelayMs: 8_000 });

function defaultSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Delay before retry `attempt` (0-based): base·2^attempt, capped, or what the provider asked for. */
export function backoffDelay(attempt: number, policy: RetryPolicy, retryAfterMs?: number): number {
  const exponential = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
  return retryAfterMs !== undefined && retryAfterMs >= 0 ? Math.min(policy.maxDelayMs, Math.max(exponential, retryAfterMs)) : exponential;
}

export function isRetryable(err: unknown): boolean {
  return MnemosError.is(err, 'unavailable') && err.details?.['retryable'] === true;
}

export class EmbeddingService {
  readonly embedder: Embedder;
  private readonly cache: LruCache<string, Float32Array>;
  private readonly retry: RetryPolicy;
  private readonly sleep: (ms: number, signal?: AbortSignal) => Promise<void>;

  constructor(embedder: Embedder, options: EmbeddingServiceOptions = {}) {
    if (!(embedder.maxBatch >= 1)) throw new MnemosError('validation_failed', `embedder ${embedder.id} declares maxBatch ${embedder.maxBatch}; it must be >= 1`);
    this.embedder = embedder;
    this.cache = new LruCache(options.cacheSize ?? 10_000);
    this.retry = { ...DEFAULT_RETRY, ...options.retry };
    this.sleep = options.sleep ?? defaultSleep;
  }

  get model(): string {
    return this.embedder.model;
  }

  get dimensions(): number {
    return this.embedder.dimensions;
  }

  /** The cache key: content hash of kind + text, scoped by model id. */
  cacheKey(text: string, kind: EmbeddingKind = 'document'): string {
    return `${this.embedder.model}\u0000${kind}\u0000${sha256Hex(text)}`;
  }

  /** `onProgress` hears how many of the texts have vectors after each provider batch (long imports show it). */
  async embed(texts: readonly string[], { onProgress, ...options }: EmbedOptions & { onProgress?: (done: number, total: number) => void } = {}): Promise<Float32Array[]> {
    const kind = options.kind ?? 'document';
    if (this.embedder.cheapToRecompute) return this.embedUncached(texts, { ...options, kind }, onProgress);
    const out: Array<Float32Array | undefined> = texts.map((t) => this.cache.get(this.cacheKey(t, kind)));
    // Each distinct missing text is embedded once, however often it repeats.
    const missing = [...new Set(texts.filter((_, i) => out[i] === undefined))];
    const fresh = new Map<string, Float32Array>();
    const cached = texts.length - missing.length;
    for (let at = 0; at < missing.length; at += this.embedder.maxBatch) {
      const batch = missing.slice(at, at + this.embedder.maxBatch);
      const vectors = await this.embedBatch(batch, { ...options, kind });
      batch.forEach((text, i) => {
        fresh.set(text, vectors[i]!);
        this.cache.set(this.cacheKey(text, kind), vectors[i]!);
      });
      onProgress?.(Math.min(texts.length, cached + at + batch.length), texts.length);
    }
    return texts.map((t, i) => out[i] ?? fresh.get(t)!);
  }

  private async embedUncached(texts: readonly string[], options: EmbedOptions, onProgress?: (done: number, total: number) => void): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += this.embedder.maxBatch) {
      out.push(...(await this.embedBatch(texts.slice(at, at + this.embedder.maxBatch), options)));
      onProgress?.(out.length, texts.length);
    }
    return out;
  }

  async embedOne(text: string, options: EmbedOptions = {}): Promise<Float32Array> {
    return (await this.embed([text], options))[0]!;
  }

  private async embedBatch(batch: string[], options: EmbedOptions): Promise<Float32Array[]> {
    // A search waits for its query's vector and has keywords without it: one retry, not the write path's four
    // (a hung endpoint held every search for five timeouts, about two and a half minutes).
    const retries = options.kind === 'query' ? Math.min(1, this.retry.retries) : this.retry.retries;
    for (let attempt = 0; ; attempt++) {
      try {
        const vectors = await this.embedder.embed(batch, options);
        this.check(batch, vectors);
        return vectors;
      } catch (err) {
        if (!isRetryable(err) || attempt >= retries || options.signal?.aborted) throw toMnemosError(err);
        const after = (err as MnemosError).details?.['retryAfterMs'];
        await this.sleep(backoffDelay(attempt, this.retry, typeof after === 'number' ? after : undefined), options.signal);
      }
    }
  }

  private check(batch: string[], vectors: Float32Array[]): void {
    const e = this.embedder;
    if (vectors.length !== batch.length) {
      throw new MnemosError('internal', `embedder ${e.id} (${e.model}) returned ${vectors.length} vectors for ${batch.length} texts`);
    }
    for (const v of vectors) {
      if (v.length !== e.dimensions) {
        throw new MnemosError('unavailable', `embedder ${e.id} (${e.model}) returned ${v.length} dimensions, it declares ${e.dimensions}`, { reason: 'dimension_mismatch', retryable: false });
      }
    }
  }
}
