/**
 * The ONNX provider against the real @huggingface/transformers and
 * onnxruntime-node, on a tiny BERT-shaped model this file writes itself
 * (test/helpers/onnx-model.ts): the expected vectors are computed here from
 * the same embedding tables, so tokenisation, the inputs the pipeline feeds,
 * pooling, normalisation and batching are all checked end to end.
 *
 * The package is optional. Without it these tests are skipped with a message,
 * unless MNEMOS_TEST_REQUIRE_ONNX=1 (set by .ci/run), which makes its absence
 * a failure so CI never passes by skipping.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { loadOnnxEmbedder, TRANSFORMERS_PACKAGE } from '../../src/embedding/providers/onnx-directory.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { seededTable, vocabulary, writeTinyBert, type TinyBertDirectory } from '../helpers/onnx-model.ts';
import { embeddingConfigFromEnv } from '../../src/surfaces/cli/embedding-env.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';

async function packageAbsence(): Promise<string | null> {
  try {
    await import(TRANSFORMERS_PACKAGE);
    return null;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return (err as Error).message;
    throw err; // installed but broken: let the import error fail the file
  }
}

const absent = await packageAbsence();
const required = process.env.MNEMOS_TEST_REQUIRE_ONNX === '1';
const skip = absent && !required ? `${TRANSFORMERS_PACKAGE} is not installed (optional dependency); set MNEMOS_TEST_REQUIRE_ONNX=1 to make this a failure` : false;
if (skip) console.error(`\n!!! SKIPPED the real ONNX model tests: ${skip}\n`);
if (absent && required) {
  test(`${TRANSFORMERS_PACKAGE} is installed (MNEMOS_TEST_REQUIRE_ONNX=1)`, () => {
    assert.fail(`MNEMOS_TEST_REQUIRE_ONNX=1 but ${TRANSFORMERS_PACKAGE} cannot be imported: ${absent}. Install with ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm install (README, "Local ONNX models").`);
  });
}

const HIDDEN = 8;
const VOCAB = vocabulary(['the', 'cat', '##s', 'dog', 'sleep', '##ing', 'dana', 'prefers', 'tea', 'over', 'coffee', '.']);

function tinyBert(seed: number): TinyBertDirectory {
  return { vocab: VOCAB, hidden: HIDDEN, words: seededTable(VOCAB.size * HIDDEN, seed), types: seededTable(2 * HIDDEN, seed + 1) };
}

/**
 * What the provider should return for a text that tokenises to `tokens`
 * (written out by hand, [CLS] and [SEP] included), computed from the tables:
 * each token's state is its word row plus the type-0 row; mean over the
 * tokens (or the first token for 'cls'), then unit length.
 */
function expected(model: TinyBertDirectory, tokens: string[], pooling: 'mean' | 'cls' = 'mean', normalize = true): number[] {
  const state = (t: string): number[] => {
    const id = model.vocab.get(t);
    assert.ok(id !== undefined, `token ${t} is not in the test vocabulary`);
    return Array.from({ length: HIDDEN }, (_, j) => model.words[id * HIDDEN + j]! + model.types[j]!);
  };
  const rows = (pooling === 'cls' ? tokens.slice(0, 1) : tokens).map(state);
  const pooled = Array.from({ length: HIDDEN }, (_, j) => rows.reduce((s, r) => s + r[j]!, 0) / rows.length);
  if (!normalize) return pooled;
  const norm = Math.hypot(...pooled);
  return pooled.map((v) => v / norm);
}

function assertClose(actual: Float32Array, want: number[], what: string): void {
  assert.equal(actual.length, want.length, `${what}: length`);
  for (let j = 0; j < want.length; j++) {
    assert.ok(Math.abs(actual[j]! - want[j]!) < 1e-5, `${what}: component ${j} is ${actual[j]}, expected ${want[j]}\n  got      ${[...actual].map((v) => v.toFixed(5)).join(' ')}\n  expected ${want.map((v) => v.toFixed(5)).join(' ')}`);
  }
}

const cosine = (a: Float32Array, b: Float32Array): number => a.reduce((s, v, i) => s + v * b[i]!, 0) / Math.hypot(...a) / Math.hypot(...b);

async function withModelDir<T>(name: string, fn: (dir: string) => Promise<T>): Promise<T> {
  const parent = await mkdtemp(join(tmpdir(), 'mnemos-onnx-real-'));
  try {
    return await fn(join(parent, name));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

/** Replaces fetch for the duration of `fn` and returns the URLs anything tried to fetch. */
async function fetchesDuring(fn: () => Promise<void>): Promise<string[]> {
  const original = globalThis.fetch;
  const urls: string[] = [];
  globalThis.fetch = async (input: Parameters<typeof fetch>[0]) => {
    urls.push(String(input instanceof Request ? input.url : input));
    throw new Error('the ONNX provider must not touch the network');
  };
  try {
    await fn();
  } finally {
    globalThis.fetch = original;
  }
  return urls;
}

const TEXTS = {
  cats: { text: 'Cats sleep', tokens: ['[CLS]', 'cat', '##s', 'sleep', '[SEP]'] },
  dana: { text: 'Dana prefers tea over coffee.', tokens: ['[CLS]', 'dana', 'prefers', 'tea', 'over', 'coffee', '.', '[SEP]'] },
  // "is" is not in the vocabulary: [UNK]; "sleeping" is sleep + ##ing
  dog: { text: 'the DOG is sleeping', tokens: ['[CLS]', 'the', 'dog', '[UNK]', 'sleep', '##ing', '[SEP]'] },
};

test('a generated model loads through the real package and embeds known words to the vectors its tables give', { skip }, async () => {
  const model = tinyBert(11);
  await withModelDir('tiny-bert', async (dir) => {
    await writeTinyBert(dir, model);
    const fetched = await fetchesDuring(async () => {
      const embedder = await loadOnnxEmbedder({ directory: dir });
      assert.equal(embedder.dimensions, HIDDEN);
      assert.equal(embedder.model, `onnx/tiny-bert/${HIDDEN}/mean`);
      const cases = Object.values(TEXTS);
      const vectors = await embedder.embed(cases.map((c) => c.text));
      assert.equal(vectors.length, cases.length);
      cases.forEach((c, i) => {
        assertClose(vectors[i]!, expected(model, c.tokens), c.text);
        assert.ok(Math.abs(Math.hypot(...vectors[i]!) - 1) < 1e-5, `${c.text}: unit length`);
      });
    });
    assert.deepEqual(fetched, [], 'nothing was fetched while loading and embedding');
  });
});

test('identical texts give identical vectors, different texts different ones, and a batch equals one text at a time', { skip }, async () => {
  const model = tinyBert(23);
  await withModelDir('tiny-bert', async (dir) => {
    await writeTinyBert(dir, model);
    const embedder = await loadOnnxEmbedder({ directory: dir });
    const texts = [TEXTS.dana.text, TEXTS.cats.text, TEXTS.dana.text, TEXTS.dog.text, 'cat'];
    const batch = await embedder.embed(texts);
    assert.deepEqual([...batch[0]!], [...batch[2]!], 'the same text twice in one batch');
    const again = await embedder.embed([TEXTS.dana.text]);
    assert.deepEqual([...again[0]!], [...batch[0]!], 'the same text in another call');
    for (const [i, j] of [[0, 1], [0, 3], [1, 3], [1, 4]] as const) {
      assert.ok(cosine(batch[i]!, batch[j]!) < 0.99, `"${texts[i]}" and "${texts[j]}" should differ (cosine ${cosine(batch[i]!, batch[j]!)})`);
    }
    // In the batch the short texts are padded to the longest; the padding must not reach their vectors.
    for (let i = 0; i < texts.length; i++) {
      const [single] = await embedder.embed([texts[i]!]);
      assertClose(batch[i]!, [...single!], `"${texts[i]}" in a batch vs alone`);
    }
    assertClose(batch[4]!, expected(model, ['[CLS]', 'cat', '[SEP]']), 'cat');
    assert.deepEqual(await embedder.embed([]), []);
  });
});

test('prefixes, cls pooling and unnormalised output reach the real pipeline', { skip }, async () => {
  const model = tinyBert(37);
  await withModelDir('tiny-bert', async (dir) => {
    await writeTinyBert(dir, model);
    const prefixed = await loadOnnxEmbedder({ directory: dir, queryPrefix: 'tea ', documentPrefix: 'coffee ' });
    assert.equal(prefixed.model, `onnx/tiny-bert/${HIDDEN}/mean/q="tea ",d="coffee "`, 'prefixes change every vector, so they name a model of their own');
    const [query] = await prefixed.embed(['cat'], { kind: 'query' });
    assertClose(query!, expected(model, ['[CLS]', 'tea', 'cat', '[SEP]']), 'query prefix');
    const [doc] = await prefixed.embed(['cat'], { kind: 'document' });
    assertClose(doc!, expected(model, ['[CLS]', 'coffee', 'cat', '[SEP]']), 'document prefix');

    const cls = await loadOnnxEmbedder({ directory: dir, pooling: 'cls', normalize: false });
    assert.equal(cls.model, `onnx/tiny-bert/${HIDDEN}/cls`);
    const vectors = await cls.embed([TEXTS.cats.text, TEXTS.dana.text]);
    // This graph has no attention between tokens, so the [CLS] state is the same for every text.
    for (const v of vectors) assertClose(v, expected(model, ['[CLS]'], 'cls', false), 'cls pooling, not normalised');

    const raw = await loadOnnxEmbedder({ directory: dir, normalize: false });
    const [mean] = await raw.embed([TEXTS.dog.text]);
    assertClose(mean!, expected(model, TEXTS.dog.tokens, 'mean', false), 'mean pooling, not normalised');
  });
});

test('directory names that are not Hugging Face model ids load from the directory itself', { skip }, async () => {
  const model = tinyBert(41);
  for (const name of ['tiny model', 'tiny--bert', 'tiny-bert-']) {
    await withModelDir(name, async (dir) => {
      await writeTinyBert(dir, model);
      const embedder = await loadOnnxEmbedder({ directory: dir });
      assert.equal(embedder.model, `onnx/${name}/${HIDDEN}/mean`);
      const [v] = await embedder.embed([TEXTS.cats.text]);
      assertClose(v!, expected(model, TEXTS.cats.tokens), `directory "${name}"`);
    });
  }
});

test('only onnx/model_quantized.onnx present: that file is the one loaded', { skip }, async () => {
  const model = tinyBert(53);
  await withModelDir('tiny-bert-q8', async (dir) => {
    await writeTinyBert(dir, model, 'onnx/model_quantized.onnx');
    const embedder = await loadOnnxEmbedder({ directory: dir });
    const [v] = await embedder.embed([TEXTS.dana.text]);
    assertClose(v!, expected(model, TEXTS.dana.tokens), 'quantized file');
  });
});

test('with the real package, a broken model file or a wrong dimension is an unavailable error naming the directory', { skip }, async () => {
  const model = tinyBert(61);
  await withModelDir('tiny-bert', async (dir) => {
    await writeTinyBert(dir, model);
    const wrongSize = await loadOnnxEmbedder({ directory: dir, dimensions: HIDDEN * 2 });
    await assert.rejects(wrongSize.embed(['cat']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'dimension_mismatch');

    await mkdir(join(dir, 'onnx'), { recursive: true });
    await writeFile(join(dir, 'onnx', 'model.onnx'), 'not a protobuf');
    await assert.rejects(loadOnnxEmbedder({ directory: dir }), (e: unknown) => {
      assert.ok(MnemosError.is(e, 'unavailable'));
      assert.match(e.message, new RegExp(`cannot load the ONNX model in .*${basename(dir)}`));
      return true;
    });
  });
});

test('the environment settings reach the model through the engine: pooling and prefixes name the model the stored vectors carry', { skip }, async () => {
  const model = tinyBert(71);
  await withModelDir('tiny-bert', async (dir) => {
    await writeTinyBert(dir, model);
    const embeddings = embeddingConfigFromEnv({
      MNEMOS_EMBEDDINGS: 'onnx',
      MNEMOS_EMBEDDINGS_DIR: dir,
      MNEMOS_EMBEDDINGS_POOLING: 'cls',
      MNEMOS_EMBEDDINGS_QUERY_PREFIX: 'tea ',
      MNEMOS_EMBEDDINGS_DOCUMENT_PREFIX: 'coffee ',
    });
    const m = await openMemory({ db: join(dir, '..', 'memory.db'), config: { embeddings } });
    try {
      const dog = await m.remember({ text: 'dog' });
      await m.remember({ text: 'cat' });
      const found = await m.search({ query: 'dog', mode: 'vector', limit: 2 });
      assert.equal(found.hits.length, 2);
      assert.equal(found.explain.vectorModel, `onnx/tiny-bert/${HIDDEN}/cls/q="tea ",d="coffee "`);
      assert.ok(found.hits.some((h) => h.memory.id === dog.id));
    } finally {
      await m.close();
    }
  });
});
