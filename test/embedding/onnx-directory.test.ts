import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadOnnxEmbedder, missingModelFiles, TRANSFORMERS_PACKAGE } from '../../src/embedding/providers/onnx-directory.ts';
import { MnemosError } from '../../src/domain/errors.ts';

async function modelDir(files: string[]): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'mnemos-onnx-'));
  for (const f of files) {
    await mkdir(join(dir, f, '..'), { recursive: true });
    await writeFile(join(dir, f), f === 'config.json' ? JSON.stringify({ hidden_size: 4 }) : '{}');
  }
  return dir;
}

const ALL = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx'];
const notFound = async (): Promise<never> => {
  throw Object.assign(new Error(`Cannot find package '${TRANSFORMERS_PACKAGE}'`), { code: 'ERR_MODULE_NOT_FOUND' });
};

/** A stand-in for @huggingface/transformers recording how it is called. */
function fakeTransformers(width = 4) {
  const calls: Array<{ task: string; model: string; options: Record<string, unknown>; texts?: string[] }> = [];
  const mod = {
    env: { allowRemoteModels: true, allowLocalModels: false },
    pipeline: async (task: string, model: string, options: Record<string, unknown>) => {
      calls.push({ task, model, options });
      return async (texts: string[]) => {
        calls.push({ task: 'run', model, options: {}, texts });
        return { data: Float32Array.from({ length: texts.length * width }, (_, i) => i), dims: [texts.length, width] };
      };
    },
  };
  return { mod, calls };
}

test('package absent and files missing: the error names the package and every missing file', async () => {
  const empty = await modelDir([]);
  try {
    await assert.rejects(loadOnnxEmbedder({ directory: empty, importModule: notFound }), (e: unknown) => {
      assert.ok(MnemosError.is(e, 'unavailable'));
      assert.match(e.message, /@huggingface\/transformers is not installed/);
      assert.match(e.message, /config\.json, tokenizer\.json, tokenizer_config\.json, one of onnx\/model\.onnx or onnx\/model_quantized\.onnx/);
      assert.equal(e.details?.['missingPackage'], TRANSFORMERS_PACKAGE);
      return true;
    });
  } finally {
    await rm(empty, { recursive: true, force: true });
  }
});

test('complete directory, package absent: only the package is named', async () => {
  const dir = await modelDir(ALL);
  try {
    await assert.rejects(loadOnnxEmbedder({ directory: dir, importModule: notFound }), (e: unknown) => {
      assert.ok(MnemosError.is(e, 'unavailable'));
      assert.doesNotMatch(e.message, /lacks/);
      assert.deepEqual(e.details?.['missingFiles'], []);
      return true;
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('package present, files missing: exactly the missing files are named', async () => {
  const dir = await modelDir(['config.json', 'onnx/model_quantized.onnx']);
  try {
    assert.deepEqual(await missingModelFiles(dir), ['tokenizer.json', 'tokenizer_config.json']);
    const { mod } = fakeTransformers();
    await assert.rejects(loadOnnxEmbedder({ directory: dir, importModule: async () => mod }), (e: unknown) => {
      assert.ok(MnemosError.is(e, 'unavailable'));
      assert.match(e.message, /lacks tokenizer\.json, tokenizer_config\.json$/);
      assert.equal(e.details?.['missingPackage'], null);
      return true;
    });
    await assert.rejects(loadOnnxEmbedder({ directory: join(dir, 'nope'), importModule: async () => mod }), /lacks the directory itself/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a package that is installed but broken is reported as such', async () => {
  const dir = await modelDir(ALL);
  try {
    const broken = async (): Promise<never> => {
      throw new Error('onnxruntime-node binding missing');
    };
    await assert.rejects(loadOnnxEmbedder({ directory: dir, importModule: broken }), (e: unknown) => MnemosError.is(e, 'unavailable') && /failed to load: onnxruntime-node/.test(e.message));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('loading code: local files only, dtype from the files present, prefixes, pooled vectors', async () => {
  const dir = await modelDir(['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model_quantized.onnx']);
  try {
    const { mod, calls } = fakeTransformers();
    const e = await loadOnnxEmbedder({ directory: dir, importModule: async () => mod, queryPrefix: 'query: ', documentPrefix: 'passage: ' });
    assert.equal(mod.env.allowRemoteModels, false);
    assert.equal(calls[0]!.task, 'feature-extraction');
    assert.equal(calls[0]!.model, dir, 'the model is named by its absolute directory, not looked up by name');
    assert.deepEqual(calls[0]!.options, { dtype: 'q8', local_files_only: true });
    assert.equal(e.dimensions, 4);
    assert.match(e.model, /^onnx\/mnemos-onnx-.+\/4\/mean\/q="query: ",d="passage: "$/, 'the prefixes are part of the model id');
    const vectors = await e.embed(['a', 'b'], { kind: 'query' });
    assert.deepEqual(calls[1]!.texts, ['query: a', 'query: b']);
    assert.deepEqual([...vectors[1]!], [4, 5, 6, 7]);
    const wrong = await loadOnnxEmbedder({ directory: dir, importModule: async () => mod, dimensions: 8 });
    await assert.rejects(wrong.embed(['x']), (err: unknown) => MnemosError.is(err, 'unavailable') && err.details?.['reason'] === 'dimension_mismatch');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
