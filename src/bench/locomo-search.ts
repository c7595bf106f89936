/**
 * Search functions for the LoCoMo harness, all in memory:
 * - `locomoPlainBm25Search`: the README's baseline, BM25 over turn documents,
 *   the query analyzed exactly like a document (no question-word removal);
 * - `locomoSearch`: our pipeline (InMemoryHybridIndex) in keyword, vector or
 *   hybrid mode, with the built-in embedder trained on the conversation's
 *   own turns, one sequence per session (the store learns from its own text).
 */
import { BuiltinEmbedder, type BuiltinEmbedderOptions } from '../embedding/builtin/builtin-embedder.ts';
import type { BuiltinTrainingOptions } from '../embedding/builtin/model.ts';
import { EmbeddingService } from '../embedding/embedding-service.ts';
import type { Embedder } from '../embedding/port.ts';
import { DEFAULT_BM25 } from '../retrieval/bm25.ts';
import { InMemoryHybridIndex, type HybridOptions, type SearchMode } from '../retrieval/in-memory-hybrid-index.ts';
import { InMemoryKeywordIndex } from '../retrieval/in-memory-keyword-index.ts';
import { analyze } from '../retrieval/text/analyze.ts';
import type { LocomoTurn } from './locomo.ts';
import type { LocomoSearch } from './locomo-harness.ts';

export function locomoPlainBm25Search(): LocomoSearch {
  return (turns) => {
    const index = new InMemoryKeywordIndex(DEFAULT_BM25);
    for (const t of turns) index.add(t.id, t.document);
    return (question, limit) => index.search(analyze(question), limit).map((h) => h.id);
  };
}

export interface LocomoSearchOptions {
  mode: SearchMode;
  hybrid?: Partial<HybridOptions>;
  embedder?: Partial<BuiltinEmbedderOptions & BuiltinTrainingOptions>;
  /** false: the built-in embedder without a learned model (subword hashing only). Default true. */
  train?: boolean;
  /** Another embedder instead of training the built-in one per conversation. */
  embedderFor?: (turns: readonly LocomoTurn[]) => Embedder | Promise<Embedder>;
}

/** Turns grouped into sessions, in dialogue order: the built-in embedder's training sequences. */
export function sessionSequences(turns: readonly LocomoTurn[]): string[][] {
  const bySession = new Map<number, string[]>();
  for (const t of turns) {
    let seq = bySession.get(t.session);
    if (!seq) bySession.set(t.session, (seq = []));
    seq.push(t.document);
  }
  return [...bySession.values()];
}

export function locomoSearch(options: LocomoSearchOptions): LocomoSearch {
  return async (turns, context) => {
    // Keyword mode never embeds a query, so it skips training.
    const embedder = options.embedderFor
      ? await options.embedderFor(turns)
      : options.mode === 'keyword' || options.train === false
        ? new BuiltinEmbedder(null, options.embedder)
        : BuiltinEmbedder.train(sessionSequences(turns), options.embedder);
    const index = await InMemoryHybridIndex.build(
      turns.map((t) => ({ id: t.id, text: t.document, validFrom: t.validFrom, sessionId: `${context.sampleId}/${t.session}` })),
      new EmbeddingService(embedder),
      // LoCoMo questions are asked at no point in time, so relative phrases ("last year") are not about the reference date.
      { timeBoost: 'absolute', ...options.hybrid },
    );
    return async (question, limit) => {
      const outcome = await index.search({ text: question, limit, mode: options.mode, referenceDate: context.referenceDate });
      return outcome.results.map((r) => r.id);
    };
  };
}
