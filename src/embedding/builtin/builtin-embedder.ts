/**
 * The built-in offline embedder (the default): no download, no network,
 * deterministic. A vector has two parts, each unit length before weighting:
 *
 * 1. learned (rank dims): the IDF-weighted sum of the text's word vectors from
 *    a model trained on the store's own text (see model.ts); zero until a
 *    model exists;
 * 2. subword (hash dims): signed hashing of character n-grams, IDF-weighted,
 *    which needs no training and covers spelling variants and unseen words.
 *
 * The whole vector is then scaled to unit length, so cosine = dot product.
 */
import { analyze, noteAnalysis, stem } from '../../retrieval/text/analyze.ts';
import { tokenize } from '../../retrieval/text/tokenize.ts';
import { ENGLISH_STOP_WORDS, QUERY_FRAME_WORDS } from '../../retrieval/text/stop-words.ts';
import type { EmbedOptions, Embedder } from '../port.ts';
import { DEFAULT_TRAINING, termKey, trainModel, serializeModel, type BuiltinTrainingOptions, type LearnedModel, type LearnedModelState } from './model.ts';
import { addSubwordSlots, subwordSlots, type SubwordOptions, type SubwordSlots } from './subword-hashing.ts';
import { l2Normalize } from '../vectors.ts';

export interface BuiltinEmbedderOptions {
  /** Dimensions of the subword part; 0 turns it off. */
  subwordDimensions: number;
  /** Weight of the subword part relative to the learned part (1). */
  subwordWeight: number;
  minN: number;
  maxN: number;
}

interface WordPart {
  /** The word's indexing term (analyze.ts's stem). */
  stem: string;
  /** Row of the word's stem in the learned model, or -1. */
  index: number;
  idf: number;
  subword: SubwordSlots | null;
}

const WORD_CACHE_MAX = 200_000;

/** Texts embedded between two turns of the event loop (about 2 ms of work). */
const YIELD_EVERY = 100;

export const DEFAULT_BUILTIN: Readonly<BuiltinEmbedderOptions> = Object.freeze({ subwordDimensions: 64, subwordWeight: 0.25, minN: 3, maxN: 5 });

/** Every built-in model id starts with this, whatever its recipe, options or training. */
export const BUILTIN_MODEL_FAMILY = 'builtin-';

/** The version of the vector recipe in this file; part of the model id. */
const RECIPE = `${BUILTIN_MODEL_FAMILY}ppmi-svd-subword@1`;

export class BuiltinEmbedder implements Embedder {
  readonly id = 'builtin';
  readonly model: string;
  readonly dimensions: number;
  readonly maxBatch = 512;
  /** A vector is a few cached word look-ups: cheaper than the service's SHA-256 cache key. */
  readonly cheapToRecompute = true;
  /** The learned model; null until trained (then only the subword part carries meaning). */
  readonly learned: LearnedModel | null;
  private readonly options: BuiltinEmbedderOptions;
  private readonly rank: number;
  /** IDF given to words the learned model never saw (and to every word before a model exists). */
  private readonly maxIdf: number;
  private readonly words = new Map<string, WordPart | null>();
  private readonly scratch: { out: Float64Array; learned: Float64Array; subword: Float64Array };

  constructor(learned: LearnedModel | null = null, options: Partial<BuiltinEmbedderOptions> = {}) {
    this.learned = learned;
    this.options = { ...DEFAULT_BUILTIN, ...options };
    this.rank = learned?.options.rank ?? DEFAULT_TRAINING.rank;
    this.dimensions = this.rank + this.options.subwordDimensions;
    this.scratch = { out: new Float64Array(this.dimensions), learned: new Float64Array(this.rank), subword: new Float64Array(this.options.subwordDimensions) };
    this.maxIdf = learned ? Math.log((learned.texts + 1) / 0.5) : 1;
    const o = this.options;
    this.model = `${RECIPE}:r${this.rank}:h${o.subwordDimensions}x${o.subwordWeight}n${o.minN}-${o.maxN}:${learned?.fingerprint ?? 'untrained'}`;
  }

  /**
   * Trains the learned part from the store's text. Each sequence is an ordered
   * run of texts that belong together (a session, a file); neighbours in a
   * sequence teach the model which words answer which.
   */
  static train(sequences: ReadonlyArray<readonly string[]>, options: Partial<BuiltinEmbedderOptions & BuiltinTrainingOptions> = {}): BuiltinEmbedder {
    const analyzed = sequences.map((seq) => seq.map((text) => analyze(text)));
    return new BuiltinEmbedder(trainModel(analyzed, options), options);
  }

  /** False until a model is learned: the engine should fuse vector results only from a trained embedder. */
  get trained(): boolean {
    return this.learned !== null;
  }

  /** The learned model's serialisable state, for the store to persist; null when untrained. */
  state(): LearnedModelState | null {
    return this.learned ? serializeModel(this.learned) : null;
  }

  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let at = 0; at < texts.length; at += YIELD_EVERY) {
      // A batch is tens of milliseconds of pure CPU: give the event loop a turn between slices, so a
      // server's other requests, and a writer waiting on its database reply, are not held up behind it.
      if (at > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const end = Math.min(texts.length, at + YIELD_EVERY);
      for (let i = at; i < end; i++) out.push(this.embedSync(texts[i]!, options.kind ?? 'document'));
    }
    return out;
  }

  /** Synchronous form (the work is pure CPU), for in-memory indexes. */
  embedSync(text: string, kind: 'document' | 'query' = 'document'): Float32Array {
    // Scratch arrays reused from call to call: typed arrays this size live outside the JS heap, and
    // allocating three per text cost more than the arithmetic. Nothing awaits in here, so no two
    // calls share them at once.
    const { out, learned, subword } = this.scratch;
    out.fill(0);
    learned.fill(0);
    subword.fill(0);
    const m = this.learned;
    // A document's words are its full-text terms too (analyze.ts's chain: stop words out, stems in order): noted, the
    // writer that indexes this text next need not analyze it again.
    const terms: string[] | null = kind === 'document' ? [] : null;
    for (const token of tokenize(text, kind === 'query')) {
      if (kind === 'query' && QUERY_FRAME_WORDS.has(token)) continue;
      const w = this.word(token);
      if (w === null) continue;
      terms?.push(w.stem);
      if (m && w.index >= 0) {
        const base = w.index * this.rank;
        for (let j = 0; j < this.rank; j++) learned[j]! += w.idf * m.vectors[base + j]!;
      }
      if (w.subword) addSubwordSlots(subword, 0, w.subword, w.idf);
    }
    if (terms) noteAnalysis(text, terms);
    l2Normalize(learned);
    l2Normalize(subword);
    out.set(learned, 0);
    const w = this.options.subwordWeight;
    for (let j = 0; j < subword.length; j++) out[this.rank + j] = w * subword[j]!;
    return new Float32Array(l2Normalize(out)); // the typed-array copy, not .from(): that walks an iterator
  }

  /**
   * What one word contributes, worked out once per word: its stem's row in
   * the learned model, its IDF and its hashed n-grams. Words follow Zipf's
   * law, so this bounded cache turns most of a text's cost into look-ups.
   * null for a stop word.
   */
  private word(token: string): WordPart | null {
    let w = this.words.get(token);
    if (w !== undefined) return w;
    w = null;
    if (!ENGLISH_STOP_WORDS.has(token)) {
      const m = this.learned;
      const s = stem(token);
      // Looked up by digest (the word cache above makes that once per word): the model keeps no words.
      const i = m?.index.get(m.hashedTerms ? termKey(s) : s);
      const subword = this.options.subwordDimensions > 0 ? subwordSlots(token, this.subwordOptions()) : null;
      w = { stem: s, index: i ?? -1, idf: i === undefined ? this.maxIdf : m!.idf[i]!, subword };
    }
    if (this.words.size >= WORD_CACHE_MAX) this.words.clear();
    this.words.set(token, w);
    return w;
  }

  private subwordOptions(): SubwordOptions {
    return { dimensions: this.options.subwordDimensions, minN: this.options.minN, maxN: this.options.maxN };
  }
}
