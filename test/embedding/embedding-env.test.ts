/** The embedder settings the CLI and server read from the environment: what each gives, and the errors that name the setting to fix. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MnemosError } from '../../src/domain/errors.ts';
import { embeddingConfigFromEnv } from '../../src/surfaces/cli/embedding-env.ts';

test('embedding settings from the environment', () => {
  const ok: Array<[env: Record<string, string>, config: unknown]> = [
    [{}, { provider: 'builtin' }],
    [{ MNEMOS_EMBEDDINGS: 'OFF' }, { provider: 'off' }],
    [{ MNEMOS_EMBEDDINGS: 'onnx', MNEMOS_EMBEDDINGS_DIR: '/m' }, { provider: 'onnx', directory: '/m' }],
    [
      { MNEMOS_EMBEDDINGS: 'onnx', MNEMOS_EMBEDDINGS_DIR: '/m', MNEMOS_EMBEDDINGS_POOLING: 'CLS', MNEMOS_EMBEDDINGS_QUERY_PREFIX: 'query: ', MNEMOS_EMBEDDINGS_DOCUMENT_PREFIX: 'passage: ' },
      { provider: 'onnx', directory: '/m', pooling: 'cls', queryPrefix: 'query: ', documentPrefix: 'passage: ' },
    ],
    [
      { MNEMOS_EMBEDDINGS: 'openai', MNEMOS_EMBEDDINGS_URL: 'http://127.0.0.1:11434/v1', MNEMOS_EMBEDDINGS_MODEL: 'nomic', MNEMOS_EMBEDDINGS_DIMENSIONS: '768' },
      { provider: 'openai', baseUrl: 'http://127.0.0.1:11434/v1', model: 'nomic', dimensions: 768 },
    ],
    [
      { MNEMOS_EMBEDDINGS: 'openai', MNEMOS_EMBEDDINGS_URL: 'http://x/v1', MNEMOS_EMBEDDINGS_MODEL: 'm', MNEMOS_EMBEDDINGS_DIMENSIONS: '8', MNEMOS_EMBEDDINGS_TIMEOUT_MS: '2500' },
      { provider: 'openai', baseUrl: 'http://x/v1', model: 'm', dimensions: 8, timeoutMs: 2500 },
    ],
  ];
  for (const [env, config] of ok) assert.deepEqual(embeddingConfigFromEnv(env), config, JSON.stringify(env));
  const bad: Array<[env: Record<string, string>, field: string]> = [
    [{ MNEMOS_EMBEDDINGS: 'magic' }, 'MNEMOS_EMBEDDINGS'],
    [{ MNEMOS_EMBEDDINGS: 'onnx' }, 'MNEMOS_EMBEDDINGS_DIR'],
    [{ MNEMOS_EMBEDDINGS: 'onnx', MNEMOS_EMBEDDINGS_DIR: '/m', MNEMOS_EMBEDDINGS_POOLING: 'max' }, 'MNEMOS_EMBEDDINGS_POOLING'],
    [{ MNEMOS_EMBEDDINGS: 'openai', MNEMOS_EMBEDDINGS_URL: 'http://x/v1', MNEMOS_EMBEDDINGS_MODEL: 'm' }, 'MNEMOS_EMBEDDINGS'],
    [{ MNEMOS_EMBEDDINGS: 'openai', MNEMOS_EMBEDDINGS_URL: 'http://x/v1', MNEMOS_EMBEDDINGS_MODEL: 'm', MNEMOS_EMBEDDINGS_DIMENSIONS: '8', MNEMOS_EMBEDDINGS_TIMEOUT_MS: '0x10' }, 'MNEMOS_EMBEDDINGS_TIMEOUT_MS'],
    // A vector size that is set but not a whole number is named, not reported as missing (and 1.5 is no size).
    ...['abc', '1.5', '0', '-8', '0x10'].map((d): [Record<string, string>, string] => [
      { MNEMOS_EMBEDDINGS: 'openai', MNEMOS_EMBEDDINGS_URL: 'http://x/v1', MNEMOS_EMBEDDINGS_MODEL: 'm', MNEMOS_EMBEDDINGS_DIMENSIONS: d },
      'MNEMOS_EMBEDDINGS_DIMENSIONS',
    ]),
  ];
  for (const [env, field] of bad) {
    assert.throws(() => embeddingConfigFromEnv(env), (e: unknown) => MnemosError.is(e, 'validation_failed') && e.details?.['field'] === field, JSON.stringify(env));
  }
});
