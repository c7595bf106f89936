import { MnemosError } from '../../domain/errors.ts';
import type { EmbeddingConfig } from '../../services/embeddings.ts';

/** Reads the embedder choice from the environment (the CLI and server are the only places that read it). */
export function embeddingConfigFromEnv(env: NodeJS.ProcessEnv): EmbeddingConfig {
  const provider = (env.MNEMOS_EMBEDDINGS || 'builtin').toLowerCase();
  switch (provider) {
    case 'builtin':
    case 'off':
      return { provider };
    case 'openai': {
      const baseUrl = env.MNEMOS_EMBEDDINGS_URL;
      const model = env.MNEMOS_EMBEDDINGS_MODEL;
      const dims = env.MNEMOS_EMBEDDINGS_DIMENSIONS;
      // A value that is set but no whole number is named as such: "needs MNEMOS_EMBEDDINGS_DIMENSIONS" read as if it were
      // missing, and 1.5 passed as a vector size.
      if (dims !== undefined && dims !== '' && !/^[1-9]\d*$/.test(dims.trim())) {
        throw new MnemosError('validation_failed', `MNEMOS_EMBEDDINGS_DIMENSIONS must be the model's vector size, a whole number above 0, not "${dims}"`, { field: 'MNEMOS_EMBEDDINGS_DIMENSIONS' });
      }
      const dimensions = Number(dims);
      if (!baseUrl || !model || !(dimensions > 0)) {
        throw new MnemosError('validation_failed', 'MNEMOS_EMBEDDINGS=openai needs MNEMOS_EMBEDDINGS_URL (e.g. http://127.0.0.1:11434/v1), MNEMOS_EMBEDDINGS_MODEL and MNEMOS_EMBEDDINGS_DIMENSIONS', { field: 'MNEMOS_EMBEDDINGS' });
      }
      // How long one request may take before it counts as failed (and is retried): 30 s unless set.
      const timeout = env.MNEMOS_EMBEDDINGS_TIMEOUT_MS;
      const timeoutMs = timeout === undefined || timeout === '' ? undefined : Number(timeout);
      if (timeoutMs !== undefined && !(/^\d+$/.test(timeout!) && timeoutMs > 0)) {
        throw new MnemosError('validation_failed', `MNEMOS_EMBEDDINGS_TIMEOUT_MS must be a whole number of milliseconds above 0, not "${timeout}"`, { field: 'MNEMOS_EMBEDDINGS_TIMEOUT_MS' });
      }
      return { provider, baseUrl, model, dimensions, ...(env.MNEMOS_EMBEDDINGS_KEY ? { apiKey: env.MNEMOS_EMBEDDINGS_KEY } : {}), ...(timeoutMs ? { timeoutMs } : {}) };
    }
    case 'onnx': {
      if (!env.MNEMOS_EMBEDDINGS_DIR) throw new MnemosError('validation_failed', 'MNEMOS_EMBEDDINGS=onnx needs MNEMOS_EMBEDDINGS_DIR (a local model directory)', { field: 'MNEMOS_EMBEDDINGS_DIR' });
      const pooling = env.MNEMOS_EMBEDDINGS_POOLING?.toLowerCase();
      if (pooling && pooling !== 'mean' && pooling !== 'cls') {
        throw new MnemosError('validation_failed', `MNEMOS_EMBEDDINGS_POOLING must be mean or cls, not "${pooling}"`, { field: 'MNEMOS_EMBEDDINGS_POOLING' });
      }
      // Prefixes are taken as given, trailing space included: e5 models want "query: " and "passage: ".
      const queryPrefix = env.MNEMOS_EMBEDDINGS_QUERY_PREFIX;
      const documentPrefix = env.MNEMOS_EMBEDDINGS_DOCUMENT_PREFIX;
      return {
        provider,
        directory: env.MNEMOS_EMBEDDINGS_DIR,
        ...(pooling ? { pooling: pooling as 'mean' | 'cls' } : {}),
        ...(queryPrefix ? { queryPrefix } : {}),
        ...(documentPrefix ? { documentPrefix } : {}),
      };
    }
    default:
      throw new MnemosError('validation_failed', `MNEMOS_EMBEDDINGS must be builtin, openai, onnx or off, not "${provider}"`, { field: 'MNEMOS_EMBEDDINGS' });
  }
}
