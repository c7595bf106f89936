/**
 * Client for the OpenAI-compatible `POST {baseUrl}/embeddings` endpoint
 * (OpenAI, Ollama, vLLM, LM Studio, ...). Thin on purpose: batching, retries
 * and caching belong to EmbeddingService. Errors become
 * MnemosError('unavailable') with `details.retryable` set for the failures a
 * retry can fix (429, 408, 5xx, network, timeout) and `details.retryAfterMs`
 * when the server sent Retry-After.
 */
import { z } from 'zod';
import { MnemosError } from '../../domain/errors.ts';
import type { EmbedOptions, Embedder } from '../port.ts';

export interface OpenAiCompatibleOptions {
  /** e.g. https://api.openai.com/v1 or http://127.0.0.1:11434/v1 */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Expected vector length; every response is checked against it. */
  dimensions: number;
  /** Send `dimensions` in the request (models that can shorten vectors, e.g. text-embedding-3-*). */
  requestDimensions?: boolean;
  timeoutMs?: number;
  maxBatch?: number;
  /** Injected for tests or proxies; default globalThis.fetch. */
  fetch?: typeof fetch;
}

const ResponseSchema = z.object({
  data: z.array(z.object({ embedding: z.array(z.number()), index: z.number().int().nonnegative().optional() })),
});

const RETRYABLE_STATUS = new Set([408, 409, 425, 429, 500, 502, 503, 504]);

/** Retry-After as milliseconds: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  if (/^\d+(\.\d+)?$/.test(header.trim())) return Math.round(Number(header) * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

function unavailable(message: string, details: Record<string, unknown>, cause?: unknown): MnemosError {
  return new MnemosError('unavailable', message, details, cause === undefined ? undefined : { cause });
}

export class OpenAiCompatibleEmbedder implements Embedder {
  readonly id = 'openai-compatible';
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatch: number;
  private readonly url: string;

  constructor(private readonly options: OpenAiCompatibleOptions) {
    if (!/^https?:\/\//.test(options.baseUrl)) throw new MnemosError('validation_failed', `embedding base URL must start with http:// or https://, got "${options.baseUrl}"`, { field: 'baseUrl' });
    if (!options.model) throw new MnemosError('validation_failed', 'embedding model name is required', { field: 'model' });
    if (!Number.isInteger(options.dimensions) || options.dimensions <= 0) throw new MnemosError('validation_failed', `embedding dimensions must be a positive integer, got ${options.dimensions}`, { field: 'dimensions' });
    this.url = `${options.baseUrl.replace(/\/+$/, '')}/embeddings`;
    this.model = `openai-compatible/${options.model}/${options.dimensions}`;
    this.dimensions = options.dimensions;
    this.maxBatch = options.maxBatch ?? 96;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const o = this.options;
    const timeout = AbortSignal.timeout(o.timeoutMs ?? 30_000);
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
    const body: Record<string, unknown> = { model: o.model, input: texts, encoding_format: 'float' };
    if (o.requestDimensions) body['dimensions'] = o.dimensions;
    const where = { url: this.url, model: o.model };
    let response: Response;
    try {
      response = await (o.fetch ?? fetch)(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {}) },
        body: JSON.stringify(body),
        signal,
      });
    } catch (err) {
      if (options.signal?.aborted) throw unavailable(`embedding request to ${this.url} was cancelled`, { ...where, retryable: false }, err);
      const timedOut = timeout.aborted;
      throw unavailable(
        timedOut ? `embedding request to ${this.url} timed out after ${o.timeoutMs ?? 30_000} ms` : `cannot reach embedding server ${this.url}: ${(err as Error).message}`,
        { ...where, retryable: true, reason: timedOut ? 'timeout' : 'network' },
        err,
      );
    }
    if (!response.ok) throw await this.httpError(response);
    let parsed: z.infer<typeof ResponseSchema>;
    try {
      parsed = ResponseSchema.parse(await response.json());
    } catch (err) {
      throw unavailable(`embedding server ${this.url} sent a response that is not an embeddings list`, { ...where, retryable: false, reason: 'bad_response' }, err);
    }
    if (parsed.data.length !== texts.length) {
      throw unavailable(`embedding server returned ${parsed.data.length} vectors for ${texts.length} inputs`, { ...where, retryable: false, reason: 'bad_response' });
    }
    const ordered = [...parsed.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
    return ordered.map((d) => {
      if (d.embedding.length !== this.dimensions) {
        throw unavailable(
          `model ${o.model} returned ${d.embedding.length}-dimensional vectors, configured for ${this.dimensions}: fix the dimensions setting (changing it re-embeds)`,
          { ...where, retryable: false, reason: 'dimension_mismatch', expected: this.dimensions, actual: d.embedding.length },
        );
      }
      return Float32Array.from(d.embedding);
    });
  }

  private async httpError(response: Response): Promise<MnemosError> {
    const status = response.status;
    let detail = '';
    try {
      const text = await response.text();
      const json = JSON.parse(text) as { error?: { message?: string } | string };
      detail = typeof json.error === 'string' ? json.error : (json.error?.message ?? text);
    } catch {
      // The body is optional context; the status says enough.
    }
    const hint = status === 401 || status === 403 ? ': check the API key' : status === 404 ? ': check the base URL and model name' : '';
    return unavailable(`embedding server ${this.url} answered HTTP ${status}${hint}${detail ? ` (${detail.slice(0, 300)})` : ''}`, {
      url: this.url,
      model: this.options.model,
      status,
      retryable: RETRYABLE_STATUS.has(status),
      retryAfterMs: parseRetryAfter(response.headers.get('retry-after')),
    });
  }
}
