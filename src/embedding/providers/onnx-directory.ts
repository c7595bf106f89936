/**
 * A local ONNX sentence-embedding model (a Hugging Face model directory
 * exported for transformers.js) run through @huggingface/transformers, an
 * OPTIONAL dependency: it is imported only when this provider is configured,
 * and its absence, or missing model files, give MnemosError('unavailable')
 * naming exactly what is missing.
 *
 * Expected directory layout (what transformers.js loads):
 *   config.json, tokenizer.json, tokenizer_config.json,
 *   onnx/model.onnx (fp32) or onnx/model_quantized.onnx (q8)
 */
import { existsSync } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { MnemosError } from '../../domain/errors.ts';
import type { EmbedOptions, Embedder } from '../port.ts';

export const TRANSFORMERS_PACKAGE = '@huggingface/transformers';
export const REQUIRED_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
export const MODEL_FILES = ['onnx/model.onnx', 'onnx/model_quantized.onnx'] as const;

export interface OnnxDirectoryOptions {
  directory: string;
  /** Default: config.json's hidden_size. */
  dimensions?: number;
  pooling?: 'mean' | 'cls';
  normalize?: boolean;
  maxBatch?: number;
  /** Prefixes some models expect (e5: "query: " / "passage: "). */
  queryPrefix?: string;
  documentPrefix?: string;
  /** Injected for tests; default: dynamic import(). */
  importModule?: (specifier: string) => Promise<unknown>;
}

interface TransformersModule {
  env: { allowRemoteModels: boolean; allowLocalModels: boolean };
  pipeline: (task: string, model: string, options: Record<string, unknown>) => Promise<FeatureExtractor>;
}

type FeatureExtractor = (texts: string[], options: { pooling: string; normalize: boolean }) => Promise<{ data: Float32Array; dims: number[] }>;

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/** As missingModelFiles, without waiting: for self_state, which reports at once (the package is checked when the model loads). */
export function missingModelFilesNow(directory: string): string[] {
  if (!existsSync(directory)) return ['the directory itself'];
  const missing: string[] = REQUIRED_FILES.filter((f) => !existsSync(join(directory, f)));
  if (!MODEL_FILES.some((f) => existsSync(join(directory, f)))) missing.push(`one of ${MODEL_FILES.join(' or ')}`);
  return missing;
}

/** Files the directory lacks, named relative to it (the model file as "one of ..."). */
export async function missingModelFiles(directory: string): Promise<string[]> {
  const missing: string[] = [];
  for (const f of REQUIRED_FILES) if (!(await exists(join(directory, f)))) missing.push(f);
  const found = await Promise.all(MODEL_FILES.map((f) => exists(join(directory, f))));
  if (!found.some(Boolean)) missing.push(`one of ${MODEL_FILES.join(' or ')}`);
  return missing;
}

function isModuleNotFound(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

async function importTransformers(importModule: (s: string) => Promise<unknown>): Promise<TransformersModule | null> {
  try {
    return (await importModule(TRANSFORMERS_PACKAGE)) as TransformersModule;
  } catch (err) {
    if (isModuleNotFound(err)) return null;
    throw new MnemosError('unavailable', `${TRANSFORMERS_PACKAGE} is installed but failed to load: ${(err as Error).message}`, { package: TRANSFORMERS_PACKAGE }, { cause: err });
  }
}

/** Loads the model, or throws 'unavailable' listing everything that is missing (package and files together). */
export async function loadOnnxEmbedder(options: OnnxDirectoryOptions): Promise<Embedder> {
  const directory = resolve(options.directory);
  const missingFiles = (await exists(directory)) ? await missingModelFiles(directory) : ['the directory itself'];
  const mod = await importTransformers(options.importModule ?? ((s) => import(s)));
  if (!mod || missingFiles.length > 0) {
    const parts: string[] = [];
    if (!mod) parts.push(`the optional package ${TRANSFORMERS_PACKAGE} is not installed (an optional dependency: npm install leaves it out with --omit=optional or when its install fails; README, "Local ONNX models", says how to install it)`);
    if (missingFiles.length > 0) parts.push(`the model directory ${directory} lacks ${missingFiles.join(', ')}`);
    throw new MnemosError('unavailable', `cannot use the local ONNX embedding model: ${parts.join('; and ')}`, {
      provider: 'onnx',
      directory,
      missingPackage: mod ? null : TRANSFORMERS_PACKAGE,
      missingFiles,
    });
  }
  let config: { hidden_size?: number };
  try {
    config = JSON.parse(await readFile(join(directory, 'config.json'), 'utf8')) as { hidden_size?: number };
  } catch (err) {
    throw new MnemosError('unavailable', `cannot read ${join(directory, 'config.json')}: ${(err as Error).message}`, { provider: 'onnx', directory }, { cause: err });
  }
  const dimensions = options.dimensions ?? config.hidden_size;
  if (!dimensions) throw new MnemosError('unavailable', `cannot tell the vector size of ${directory}: config.json has no hidden_size; set dimensions`, { directory });
  const quantized = !(await exists(join(directory, MODEL_FILES[0])));
  // No download, ever: remote models off for the process (the package has one
  // global env), and local files only for this load.
  mod.env.allowRemoteModels = false;
  mod.env.allowLocalModels = true;
  let extractor: FeatureExtractor;
  try {
    // The absolute path, not a name under env.localModelPath: transformers.js
    // resolves a name that is not a valid Hub model id ("my model", "e5--v2",
    // "model-") against the working directory instead, and never finds the
    // files; and it looks a name up in its download cache first, where another
    // model of the same name may sit. Under an absolute path neither happens.
    extractor = await mod.pipeline('feature-extraction', directory, { dtype: quantized ? 'q8' : 'fp32', local_files_only: true });
  } catch (err) {
    throw new MnemosError('unavailable', `cannot load the ONNX model in ${directory}: ${(err as Error).message}`, { provider: 'onnx', directory }, { cause: err });
  }
  return new OnnxEmbedder(extractor, basename(directory), dimensions, options);
}

class OnnxEmbedder implements Embedder {
  readonly id = 'onnx';
  readonly model: string;
  readonly maxBatch: number;

  constructor(
    private readonly extractor: FeatureExtractor,
    name: string,
    readonly dimensions: number,
    private readonly options: OnnxDirectoryOptions,
  ) {
    // Prefixes change every vector, so they are part of the model id (and absent from it when unset, as before).
    const prefixes = options.queryPrefix || options.documentPrefix ? `/q=${JSON.stringify(options.queryPrefix ?? '')},d=${JSON.stringify(options.documentPrefix ?? '')}` : '';
    this.model = `onnx/${name}/${dimensions}/${options.pooling ?? 'mean'}${prefixes}`;
    this.maxBatch = options.maxBatch ?? 32;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const prefix = (options.kind === 'query' ? this.options.queryPrefix : this.options.documentPrefix) ?? '';
    const output = await this.extractor(texts.map((t) => prefix + t), { pooling: this.options.pooling ?? 'mean', normalize: this.options.normalize ?? true });
    const width = output.dims[output.dims.length - 1] ?? 0;
    if (width !== this.dimensions) {
      throw new MnemosError('unavailable', `ONNX model ${this.model} produced ${width}-dimensional vectors, expected ${this.dimensions}`, { reason: 'dimension_mismatch', retryable: false });
    }
    return texts.map((_, i) => output.data.slice(i * width, (i + 1) * width));
  }
}
