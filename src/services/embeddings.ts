import { BUILTIN_MODEL_FAMILY, BuiltinEmbedder } from '../embedding/builtin/builtin-embedder.ts';
import { deserializeModel, type LearnedModel, type LearnedModelState } from '../embedding/builtin/model.ts';
import { trainOffThread } from '../embedding/builtin/train-off-thread.ts';
import { EmbeddingService } from '../embedding/embedding-service.ts';
import type { Embedder } from '../embedding/port.ts';
import { loadOnnxEmbedder } from '../embedding/providers/onnx-directory.ts';
import { OpenAiCompatibleEmbedder } from '../embedding/providers/openai-compatible.ts';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import type { WriteOp } from '../ports/store.ts';
import type { VectorIndexUse } from '../ports/vectors.ts';

/**
 * Which embedder the engine uses. `builtin` (the default) needs no network
 * and no download: its learned part is trained from the namespace's own text
 * and kept in the store; `openai` speaks /v1/embeddings; `onnx` loads a local
 * model directory; `off` leaves search keyword-only.
 */
export type EmbeddingConfig =
  | { provider: 'builtin' }
  | { provider: 'off' }
  | { provider: 'openai'; baseUrl: string; apiKey?: string; model: string; dimensions: number; timeoutMs?: number }
  | { provider: 'onnx'; directory: string; pooling?: 'mean' | 'cls'; queryPrefix?: string; documentPrefix?: string };

interface Loaded {
  service: EmbeddingService;
  checkedAt: number;
}

/**
 * Where consolidation keeps a newly trained built-in model while it gives
 * every memory a vector of it; searches go on with the current model until it
 * is switched in (model-refresh.ts).
 */
export const STAGED_BUILTIN = 'builtin:staged';

/** Marks that a switch left the replaced built-in model's vectors behind, for the next consolidation to delete. */
export const REPLACED_BUILTIN = 'builtin:replaced';

/** A stored built-in model's learned part, or why this build cannot use it. */
export function readableModel(state: unknown): { model: LearnedModel; problem?: never } | { model?: never; problem: string } {
  try {
    return { model: deserializeModel(state as LearnedModelState) };
  } catch (err) {
    if (!(err instanceof MnemosError)) throw err;
    return { problem: err.message };
  }
}

/** Makes this process load the namespace's built-in model afresh at its next use (after a new one was saved). */
export function forgetLoadedModel(ctx: ServiceContext, p: Principal): void {
  ctx.embedders?.delete(`builtin:${p.namespace}`);
  ctx.embedderLoads?.delete(`builtin:${p.namespace}`);
  ctx.embedderGeneration = (ctx.embedderGeneration ?? 0) + 1;
}

/** How long a process trusts its copy of a namespace's learned model before looking for a newer one. */
const MODEL_RECHECK_MS = 10_000;

/**
 * The embedding service for the caller's namespace, or null when vectors are off or the store cannot hold them.
 * `fresh`: look for a newer stored built-in model now rather than trusting this process's copy for
 * MODEL_RECHECK_MS. Writes ask for it: a vector of a model another process has just replaced (and
 * `embed --backfill` has deleted the vectors of) would leave the memory out of vector search until the next
 * consolidation. Searches keep the cheaper check; the worst they see is a thin vector list for those seconds.
 */
export async function embeddingsFor(ctx: ServiceContext, p: Principal, opts: { fresh?: boolean } = {}): Promise<EmbeddingService | null> {
  const cfg = ctx.config.embeddings;
  if (cfg.provider === 'off' || !ctx.store.capabilities.vectors || !ctx.store.vectors) return null;
  ctx.embedders ??= new Map();
  const key = cfg.provider === 'builtin' ? `builtin:${p.namespace}` : cfg.provider;
  const cached = ctx.embedders.get(key);
  if (cached && (cfg.provider !== 'builtin' || (!opts.fresh && ctx.now() - cached.checkedAt < MODEL_RECHECK_MS))) return cached.service;
  // One load at a time per namespace. A trained model's state is megabytes to read, parse and check: a server's
  // first burst of writes (16 at once in bench serve) each loaded it, and on PostgreSQL writes stalled for seconds.
  ctx.embedderLoads ??= new Map();
  const generation = ctx.embedderGeneration ?? 0;
  const inFlight = ctx.embedderLoads.get(key);
  if (inFlight && inFlight.generation === generation) return inFlight.load;
  const load = loadEmbedder(ctx, p, cfg, key, generation).finally(() => {
    if (ctx.embedderLoads?.get(key)?.load === load) ctx.embedderLoads.delete(key);
  });
  ctx.embedderLoads.set(key, { generation, load });
  return load;
}

/** Checks the cached service against the stored model (built-in) or creates one, and caches it unless a newer model was announced meanwhile. */
async function loadEmbedder(ctx: ServiceContext, p: Principal, cfg: Exclude<EmbeddingConfig, { provider: 'off' }>, key: string, generation: number): Promise<EmbeddingService> {
  const now = ctx.now();
  const cached = ctx.embedders!.get(key);
  if (cached && cfg.provider === 'builtin') {
    const stored = await ctx.store.vectors!.modelId(p, 'builtin');
    if (!stored || stored === cached.service.model) {
      cached.checkedAt = now;
      return cached.service;
    }
  }
  const service = new EmbeddingService(await createEmbedder(ctx, p, cfg));
  if ((ctx.embedderGeneration ?? 0) === generation) ctx.embedders!.set(key, { service, checkedAt: now } satisfies Loaded);
  return service;
}

async function createEmbedder(ctx: ServiceContext, p: Principal, cfg: Exclude<EmbeddingConfig, { provider: 'off' }>): Promise<Embedder> {
  switch (cfg.provider) {
    case 'builtin': {
      const stored = await ctx.store.vectors!.loadModel(p, 'builtin');
      // A model this build cannot read (trained by another text analyzer, or damaged) must not stop writes and
      // searches: they go on untrained, status says so, and the next consolidation trains a model again.
      return new BuiltinEmbedder(stored?.state ? (readableModel(stored.state).model ?? null) : null);
    }
    case 'openai':
      return new OpenAiCompatibleEmbedder({ baseUrl: cfg.baseUrl, model: cfg.model, dimensions: cfg.dimensions, ...(cfg.apiKey ? { apiKey: cfg.apiKey } : {}), ...(cfg.timeoutMs ? { timeoutMs: cfg.timeoutMs } : {}) });
    case 'onnx': {
      const { directory, pooling, queryPrefix, documentPrefix } = cfg;
      return loadOnnxEmbedder({ directory, ...(pooling ? { pooling } : {}), ...(queryPrefix ? { queryPrefix } : {}), ...(documentPrefix ? { documentPrefix } : {}) });
    }
  }
}

/** Vectors for new memory texts at write time; null when vectors are off. A provider failure never loses the write: the text is stored and backfilled later. */
export async function embedForWrite(
  ctx: ServiceContext,
  p: Principal,
  texts: string[],
  onProgress?: (done: number, total: number) => void,
): Promise<{ model: string; vectors: Float32Array[] } | null> {
  if (texts.length === 0) return null;
  try {
    // Loading counts as the provider too: a missing or broken ONNX model directory refused every write.
    const svc = await embeddingsFor(ctx, p, { fresh: true });
    if (!svc) return null;
    return { model: svc.model, vectors: await svc.embed(texts, { kind: 'document', ...(onProgress ? { onProgress } : {}) }) };
  } catch (err) {
    if (MnemosError.is(err, 'unavailable')) return null;
    throw err;
  }
}

export interface BackfillProgress {
  phase: 'training' | 'embedding' | 'done';
  done: number;
  total: number;
}

export interface BackfillResult {
  provider: string;
  model: string;
  trained: boolean;
  embedded: number;
  total: number;
  /** Vectors of built-in models this one replaced, deleted once every memory had a vector of this one. */
  droppedVectors: number;
}

const TRAIN_PAGE = 5000;

/**
 * Makes every visible current memory carry a vector of the current model.
 * For the built-in embedder it first (re)trains the learned part from the
 * namespace's own text when asked or when there is none yet; a new model
 * means every memory is re-embedded, never mixed with old vectors.
 */
export async function backfillEmbeddings(ctx: ServiceContext, p: Principal, opts: { retrain?: boolean; onProgress?: (x: BackfillProgress) => void } = {}): Promise<BackfillResult> {
  const cfg = ctx.config.embeddings;
  const store = ctx.store;
  if (cfg.provider === 'off') throw new MnemosError('unavailable', 'embeddings are off (MNEMOS_EMBEDDINGS=off); nothing to backfill');
  if (!store.capabilities.vectors || !store.vectors) throw new MnemosError('unsupported', `the ${store.backend} store in use cannot hold vectors yet; search stays keyword-only`);
  let trained = false;
  if (cfg.provider === 'builtin') {
    const existing = await store.vectors.loadModel(p, 'builtin');
    if (opts.retrain || !existing?.state) {
      opts.onProgress?.({ phase: 'training', done: 0, total: 1 });
      const { sequences, total } = await trainingSequences(ctx, p);
      if (total > 0) {
        const embedder = await trainOffThread(sequences);
        await store.vectors.saveModel(p, 'builtin', { model: embedder.model, state: embedder.state(), texts: total });
        // A model consolidation had staged but not yet switched to is older than this one: never let it take over later.
        if (p.role === 'owner') await store.vectors.deleteModel(p, STAGED_BUILTIN);
        forgetLoadedModel(ctx, p);
        trained = true;
      }
    }
  }
  const svc = await embeddingsFor(ctx, p);
  if (!svc) throw new MnemosError('unavailable', 'no embedder is configured');
  const total = await store.count(p, {});
  const embedded = await embedMissing(ctx, p, svc, Infinity, (done) => opts.onProgress?.({ phase: 'embedding', done, total }));
  // Every memory now has a vector of the current built-in model: the models it replaced are dead weight. (Other
  // providers' models are left alone: another process may be configured to use them.)
  const droppedVectors = cfg.provider === 'builtin' && p.role === 'owner' ? await store.vectors.dropReplacedModels(p, BUILTIN_MODEL_FAMILY, svc.model) : 0;
  opts.onProgress?.({ phase: 'done', done: embedded, total });
  return { provider: cfg.provider, model: svc.model, trained, embedded, total, droppedVectors };
}

/**
 * Gives up to `limit` visible current memories without a vector of the
 * service's model one. Writes that bypass write-time vectors (the cognitive
 * cycle's sleep flush, consolidation's new versions) and writes made while the
 * embedder was unreachable are caught up here. Returns how many were embedded.
 */
export async function embedMissing(ctx: ServiceContext, p: Principal, svc: EmbeddingService, limit: number, onBatch?: (done: number) => void | Promise<void>): Promise<number> {
  const vectors = ctx.store.vectors;
  if (!vectors) return 0;
  let embedded = 0;
  let after: string | null = null;
  while (embedded < limit) {
    const batch = await vectors.missing(p, svc.model, Math.min(512, limit - embedded), after);
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.id;
    const out = await svc.embed(batch.map((b) => b.text), { kind: 'document' });
    // Rows the principal may not write (another's, in a shared namespace) are skipped; their owners backfill them.
    embedded += await vectors.put(p, batch.map((b, i) => ({ id: b.id, model: svc.model, vector: out[i]! })));
    await onBatch?.(embedded);
  }
  return embedded;
}

/**
 * The most texts the built-in model learns from. Co-occurrence statistics
 * settle long before this; past it, training time and memory only grow
 * (100k texts train in about a minute and a half on two cores).
 */
const TRAIN_MAX_TEXTS = 200_000;

/**
 * Texts grouped the way they belong together (a session's turns, a file's
 * chunks) and in order, for co-occurrence: the newest TRAIN_MAX_TEXTS when
 * there are more. `total`: the namespace's current memories, which a model
 * records as the size it was trained at.
 */
export async function trainingSequences(ctx: ServiceContext, p: Principal): Promise<{ sequences: string[][]; total: number }> {
  const total = await ctx.store.count(p, {});
  const newest = total > TRAIN_MAX_TEXTS;
  const picked: { key: string; at: string; text: string }[] = [];
  for (let offset = 0; picked.length < Math.min(total, TRAIN_MAX_TEXTS); offset += TRAIN_PAGE) {
    const page = await ctx.store.list(p, {}, { limit: Math.min(TRAIN_PAGE, TRAIN_MAX_TEXTS - picked.length), offset }, newest ? 'valid_desc' : 'valid_asc');
    for (const m of page) picked.push({ key: m.sessionId ? `s:${m.sessionId}` : m.source.path ? `f:${m.source.path}` : `m:${m.id}`, at: m.validFrom, text: m.text });
    if (page.length === 0) break;
  }
  if (newest) picked.reverse(); // oldest first, as below the cap
  const groups = new Map<string, string[]>();
  for (const x of picked) {
    const g = groups.get(x.key) ?? [];
    g.push(x.text);
    groups.set(x.key, g);
  }
  return { sequences: [...groups.values()], total };
}

/**
 * Attaches write-time vectors to the insert and update operations of a batch
 * (same transaction as the rows). `alreadyStored` names inserts the caller
 * knows the store will find unchanged: they get no vector, since the store
 * keeps the one it has. Should such an insert turn out to write after all (a
 * concurrent change), its vector is missing, as after a provider failure, and
 * the backfill adds it.
 */
export async function withVectors<T extends WriteOp>(
  ctx: ServiceContext,
  p: Principal,
  ops: T[],
  onProgress?: (done: number, total: number) => void,
  alreadyStored?: (op: Extract<WriteOp, { kind: 'insert' }>) => boolean,
): Promise<T[]> {
  const wants = (op: WriteOp): string | null =>
    op.kind === 'insert' ? (op.memory.supersededAt === null && !alreadyStored?.(op) ? op.memory.text : null) : op.kind === 'update' ? op.next.text : null;
  const texts: string[] = [];
  for (const op of ops) {
    const text = wants(op);
    if (text !== null) texts.push(text);
  }
  const emb = await embedForWrite(ctx, p, texts, onProgress);
  if (!emb) return ops;
  let i = 0;
  return ops.map((op) => (wants(op) === null ? op : { ...op, vector: { model: emb.model, vector: emb.vectors[i++]! } }));
}

/**
 * Brings the vector index of the caller's namespace and current model up to
 * date, waiting for an approximate index to finish building when one applies
 * (searches never wait: the exact scan answers meanwhile), or with `wait:
 * false` only starting it. For benchmarks, tests and warm-ups; null when
 * there is no vector search.
 */
export async function prepareVectorIndex(ctx: ServiceContext, p: Principal, opts: { wait?: boolean } = {}): Promise<VectorIndexUse | null> {
  const svc = await embeddingsFor(ctx, p);
  if (!svc || !ctx.store.vectors) return null;
  return ctx.store.vectors.prepare(p, { model: svc.model, dimensions: svc.dimensions, ...(opts.wait === false ? { wait: false } : {}) });
}
