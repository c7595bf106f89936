import { BUILTIN_MODEL_FAMILY, BuiltinEmbedder } from '../embedding/builtin/builtin-embedder.ts';
import { modelRefreshDue } from '../embedding/builtin/refresh-policy.ts';
import { trainOffThread } from '../embedding/builtin/train-off-thread.ts';
import { EmbeddingService } from '../embedding/embedding-service.ts';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { ANALYZER_VERSION } from '../retrieval/text/analyze.ts';
import { REPLACED_BUILTIN, STAGED_BUILTIN, embedMissing, forgetLoadedModel, readableModel, trainingSequences } from './embeddings.ts';

/** What one refresh did with the built-in embedder's learned model (a consolidation report carries it). */
export interface ModelRefresh {
  /**
   * `off`: the built-in embedder is not in use; `current`: no training due;
   * `trained`: a new model was learned and switched in; `resumed`: a model
   * staged by an interrupted run was finished and switched in; `unchanged`:
   * training gave the same model (same text); `failed`: training or the new
   * vectors failed (the current model stays; the next run tries again).
   */
  status: 'off' | 'current' | 'trained' | 'resumed' | 'unchanged' | 'failed';
  reason: string;
  /** The model searches use after this refresh (null: none stored, the untrained embedder). */
  model: string | null;
  /** The model it replaced, when one was switched in. */
  previous?: string | null;
  /** Memories the new model learned from (at most the newest 200,000), and how long that took. */
  learnedFrom?: number;
  trainMs?: number;
  /** Memories given a vector of the new model before it was switched in. */
  embedded: number;
  /**
   * Vectors of a model that an earlier run replaced, deleted now. A switch
   * leaves the old vectors until the next run: other processes and search
   * threads look for a newer model only every 10 s, and meanwhile they search
   * with the old one.
   */
  droppedVectors: number;
}

export interface ModelRefreshOptions {
  /** The fewest memories a first model is learned from. */
  minTexts: number;
  /** Retrain once the namespace holds this many times its size at the last training. */
  growth: number;
  /** Stops training (the thread is terminated) when aborted. */
  signal?: AbortSignal;
  /** Called every `heartbeatMs` while the model trains, and after each batch of new vectors (a job renews its lease). */
  heartbeat?: () => Promise<void>;
  heartbeatMs?: number;
}

/**
 * Keeps the built-in embedder's learned model fresh, for consolidation.
 * Without it the model is learned only by `mnemos embed --backfill --retrain`,
 * and a store that grew since (or was never trained) searches with vectors
 * that know only word pieces.
 *
 * A new model is a new vector space, so it is never mixed with the old one:
 * it is trained on a thread, saved as a staged model, every memory gets a
 * vector of it, and only then does it become the namespace's model (searches
 * use the old model and its complete vectors until that moment). The old
 * model's vectors are deleted by the next run. A run interrupted after
 * staging finishes the staged model next time instead of training again.
 *
 * `sys` is the lifecycle principal: it sees every memory of the namespace.
 */
export async function refreshBuiltinModel(ctx: ServiceContext, sys: Principal, o: ModelRefreshOptions): Promise<ModelRefresh> {
  const vectors = ctx.store.vectors;
  if (ctx.config.embeddings.provider !== 'builtin' || !ctx.store.capabilities.vectors || !vectors) {
    return { status: 'off', reason: 'the built-in embedder is not in use', model: null, embedded: 0, droppedVectors: 0 };
  }
  const current = await vectors.loadModel(sys, 'builtin');
  const currentModel = current?.state ? current.model : null;
  // A stored model this build cannot read counts as none: searches already run untrained (embeddings.ts).
  const unreadable = current?.state ? readableModel(current.state).problem : undefined;
  // A model of an older, compatible text analyzer works, but has not learned the terms this build makes: retrain it now.
  const loaded = current?.state && !unreadable ? readableModel(current.state).model : undefined;
  const outdated = loaded && loaded.analyzer !== ANALYZER_VERSION ? loaded.analyzer : undefined;
  // A model of an earlier build keeps its vocabulary as words, a forgotten memory's among them: retrain it now (model.ts).
  const wordsKept = loaded !== undefined && !loaded.hashedTerms;
  let staged: { model: string; state: unknown; texts: number } | null = await vectors.loadModel(sys, STAGED_BUILTIN);
  let droppedVectors = 0;
  if (!staged?.state && currentModel && (await vectors.modelId(sys, REPLACED_BUILTIN))) {
    droppedVectors = await vectors.dropReplacedModels(sys, BUILTIN_MODEL_FAMILY, currentModel);
    await vectors.deleteModel(sys, REPLACED_BUILTIN);
  }
  let status: ModelRefresh['status'] = 'resumed';
  let reason = 'a model staged by an interrupted run was finished';
  let learnedFrom: number | undefined;
  let trainMs: number | undefined;
  if (!staged?.state) {
    const due = await trainingSequencesIfDue(ctx, sys, currentModel && !unreadable && !outdated && !wordsKept ? current!.texts : null, o, unreadable, outdated, wordsKept);
    if (!due.sequences) return { status: 'current', reason: due.reason, model: currentModel, embedded: 0, droppedVectors };
    const sequences = due.sequences;
    const started = performance.now();
    const embedder = await whileBeating(o, () => trainOffThread(sequences, o.signal));
    trainMs = Math.round(performance.now() - started);
    learnedFrom = sequences.reduce((n, s) => n + s.length, 0);
    if (embedder.model === currentModel) {
      // Same text, same model: note the size it was trained at, so the rule does not ask again at once.
      await vectors.saveModel(sys, 'builtin', { model: current!.model, state: current!.state, texts: due.texts });
      return { status: 'unchanged', reason: `${due.reason}; training gave the same model`, model: currentModel, learnedFrom, trainMs, embedded: 0, droppedVectors };
    }
    staged = { model: embedder.model, state: embedder.state(), texts: due.texts };
    await vectors.saveModel(sys, STAGED_BUILTIN, staged);
    status = 'trained';
    reason = due.reason;
  }
  const readable = readableModel(staged.state);
  if (!readable.model) {
    await vectors.deleteModel(sys, STAGED_BUILTIN);
    throw new MnemosError('corrupt', `the staged built-in model could not be read (${readable.problem}); it was discarded and the next run trains again`);
  }
  const svc = new EmbeddingService(new BuiltinEmbedder(readable.model));
  const embedded = await embedMissing(ctx, sys, svc, Infinity, async () => {
    if (o.signal?.aborted) throw new MnemosError('unavailable', 'the built-in model refresh was stopped (the process is shutting down); the next consolidation finishes it');
    await o.heartbeat?.();
  });
  // Every memory has a vector of the staged model: switch to it. A write that lands after the last batch carries
  // the old model's vector; the vectors phase, which runs next, gives it one of the new model.
  await vectors.saveModel(sys, 'builtin', { model: staged.model, state: staged.state, texts: staged.texts });
  await vectors.deleteModel(sys, STAGED_BUILTIN);
  await vectors.saveModel(sys, REPLACED_BUILTIN, { model: currentModel ?? 'untrained', state: null, texts: 0 });
  forgetLoadedModel(ctx, sys);
  return {
    status,
    reason,
    model: staged.model,
    previous: currentModel,
    ...(learnedFrom !== undefined ? { learnedFrom } : {}),
    ...(trainMs !== undefined ? { trainMs } : {}),
    embedded,
    droppedVectors,
  };
}

/** The training texts when the rule says a model is due (else null), the namespace's size, and why. */
async function trainingSequencesIfDue(
  ctx: ServiceContext,
  sys: Principal,
  trainedAtSize: number | null,
  o: ModelRefreshOptions,
  unreadable?: string,
  outdatedAnalyzer?: string,
  wordsKept = false,
): Promise<{ sequences: string[][] | null; texts: number; reason: string }> {
  const texts = await ctx.store.count(sys, {});
  const rule = modelRefreshDue({ texts, trainedAtSize, minTexts: o.minTexts, growth: o.growth });
  const reason = unreadable
    ? `the stored model cannot be used by this build (${unreadable}), so ${rule.reason}`
    : outdatedAnalyzer
      ? `the stored model was trained with text analyzer ${outdatedAnalyzer}, this build uses ${ANALYZER_VERSION}, so ${rule.reason}`
      : wordsKept
        ? `the stored model keeps its vocabulary as words (an earlier build's format, where forgotten text could stay), so ${rule.reason}`
        : rule.reason;
  if (!rule.due) return { sequences: null, texts, reason };
  const { sequences, total } = await trainingSequences(ctx, sys);
  return { sequences, texts: total, reason };
}

/** Runs `work` while calling the heartbeat every `heartbeatMs` (a long training must not lose the job's lease). */
async function whileBeating<T>(o: ModelRefreshOptions, work: () => Promise<T>): Promise<T> {
  if (!o.heartbeat) return work();
  const beat = o.heartbeat;
  const timer = setInterval(() => void beat().catch(() => {}), o.heartbeatMs ?? 20_000);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
