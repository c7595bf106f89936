/**
 * The built-in embedder's learned model: word vectors from a truncated SVD of
 * the PPMI co-occurrence matrix of the store's own text, plus the IDF table
 * used to weight them. Training is deterministic (seeded projections, sorted
 * vocabulary), so the same corpus gives the same model and the same
 * fingerprint; the fingerprint is part of the model id, so vectors from two
 * different models are never compared.
 *
 * The vocabulary is kept as digests of its terms (`termKey`), never the
 * words: a model trained on a small store held every word of it, so a
 * forgotten memory's rare words (a name, a code) stayed readable in the
 * stored model until the next training, long after forget had removed them
 * from every other place. A word is looked up by its digest; a model of
 * format version 1 (plain words, earlier builds) still loads, and the next
 * consolidation retrains it (services/model-refresh.ts).
 */
import { createHash, type Hash } from 'node:crypto';
import { canonicalJson } from '../../domain/hash.ts';
import { MnemosError } from '../../domain/errors.ts';
import { ANALYZER_VERSION, OLDER_COMPATIBLE_ANALYZERS } from '../../retrieval/text/analyze.ts';
import { buildVocabulary, countCooccurrences, ppmiMatrix } from './cooccurrence.ts';
import { randomizedSvd } from './linear-algebra.ts';
import { fromBase64, toBase64 } from '../vectors.ts';

export interface BuiltinTrainingOptions {
  /** Dimensions of the learned part. */
  rank: number;
  /** Vocabulary cap (most frequent terms), bounding memory and training time. */
  maxTerms: number;
  adjacentWeight: number;
  contextSmoothing: number;
  /** Singular-value exponent for word vectors (0.5: the symmetric split of Levy et al.). */
  eigenWeight: number;
  powerIterations: number;
  seed: number;
}

export const DEFAULT_TRAINING: Readonly<BuiltinTrainingOptions> = Object.freeze({
  rank: 128,
  maxTerms: 20_000,
  adjacentWeight: 1,
  contextSmoothing: 1,
  eigenWeight: 0.5,
  powerIterations: 3,
  seed: 7,
});

/**
 * A term's place in a model's vocabulary: the first 96 bits of a SHA-256, in
 * base64url. 20,000 terms never collide in practice; the word itself cannot
 * be read back, only confirmed by a guess, as a tombstone's content hash is.
 */
export function termKey(term: string): string {
  return createHash('sha256').update(`mnemos.term\0${term}`).digest('base64url').slice(0, 16);
}

/** The trained model in memory. */
export interface LearnedModel {
  analyzer: string;
  options: BuiltinTrainingOptions;
  /** The vocabulary: terms' digests (`termKey`), or the words themselves in a version 1 model. */
  terms: string[];
  /** Row of each entry of `terms`. */
  index: Map<string, number>;
  /** Whether `terms` holds digests (format version 2): a word is then looked up by its `termKey`. */
  hashedTerms: boolean;
  /** ln((N + 1) / (df + 0.5)) per term. */
  idf: Float32Array;
  /** Unit-length word vectors, terms x rank, row-major. */
  vectors: Float32Array;
  /** Texts the model learned from (N). */
  texts: number;
  fingerprint: string;
}

/** The serialisable form the store persists (JSON-safe). */
export interface LearnedModelState {
  format: 'mnemos.builtin-embedder';
  /** 2: `terms` are digests; 1: words (earlier builds). */
  version: 1 | 2;
  analyzer: string;
  options: BuiltinTrainingOptions;
  terms: string[];
  idf: string;
  vectors: string;
  texts: number;
  fingerprint: string;
}

/** A sequence is an ordered run of analyzed texts that belong together (one session, one file). */
export type TrainingSequence = ReadonlyArray<readonly string[]>;

/** What the fingerprint covers: the canonical JSON of these, keys sorted. */
interface FingerprintParts {
  analyzer: string;
  o: BuiltinTrainingOptions;
  terms: string[];
  idf: string;
  vectors: string;
}

/**
 * The first 16 hex digits of the SHA-256 of the parts' canonical JSON
 * (`canonicalJson`, keys sorted: analyzer, idf, o, terms, vectors), fed to
 * the hash piece by piece. Every load checks it: building the 14 MB string
 * and converting it to UTF-8 cost 120-240 ms of each command that embeds
 * (a trained 100k store), where the two base64 strings, plain ASCII, go to
 * the hash as they are.
 */
export function fingerprintOf(p: FingerprintParts): string {
  const h = createHash('sha256');
  h.update(`{"analyzer":${canonicalJson(p.analyzer)},"idf":`);
  updateJsonString(h, p.idf);
  h.update(`,"o":${canonicalJson(p.o)},"terms":${canonicalJson(p.terms)},"vectors":`);
  updateJsonString(h, p.vectors);
  h.update('}');
  return h.digest('hex').slice(0, 16);
}

/** Hashes canonicalJson(s): a string with nothing to escape (base64 never has) goes as it is, between quotes. */
function updateJsonString(h: Hash, s: unknown): void {
  if (typeof s === 'string' && BASE64_TEXT.test(s)) h.update('"').update(s, 'latin1').update('"');
  else h.update(canonicalJson(s)); // a damaged state's odd value: the digest then fails to match, as it should
}

const BASE64_TEXT = /^[A-Za-z0-9+/=]*$/;

export function trainModel(sequences: readonly TrainingSequence[], options: Partial<BuiltinTrainingOptions> = {}): LearnedModel {
  const o: BuiltinTrainingOptions = { ...DEFAULT_TRAINING, ...options };
  const vocab = buildVocabulary(sequences, o.maxTerms);
  const v = vocab.terms.length;
  const vectors = new Float32Array(v * o.rank);
  if (v >= 2 && o.rank > 0) {
    const ppmi = ppmiMatrix(countCooccurrences(sequences, vocab, o.adjacentWeight), o.contextSmoothing);
    const svd = randomizedSvd(ppmi, o.rank, { powerIterations: o.powerIterations, seed: o.seed });
    for (let i = 0; i < v; i++) {
      let norm = 0;
      for (let j = 0; j < svd.rank; j++) {
        const x = svd.u[i * svd.rank + j]! * Math.pow(svd.singularValues[j]!, o.eigenWeight);
        vectors[i * o.rank + j] = x;
        norm += x * x;
      }
      norm = Math.sqrt(norm);
      if (norm > 0) for (let j = 0; j < svd.rank; j++) vectors[i * o.rank + j] = vectors[i * o.rank + j]! / norm;
    }
  }
  const idf = Float32Array.from(vocab.df, (df) => Math.log((vocab.texts + 1) / (df + 0.5)));
  const terms = vocab.terms.map(termKey);
  const fingerprint = fingerprintOf({ analyzer: ANALYZER_VERSION, o, terms, idf: toBase64(idf), vectors: toBase64(vectors) });
  return { analyzer: ANALYZER_VERSION, options: o, terms, index: new Map(terms.map((t, i) => [t, i])), hashedTerms: true, idf, vectors, texts: vocab.texts, fingerprint };
}

export function serializeModel(m: LearnedModel): LearnedModelState {
  return {
    format: 'mnemos.builtin-embedder',
    version: m.hashedTerms ? 2 : 1,
    analyzer: m.analyzer,
    options: { ...m.options },
    terms: [...m.terms],
    idf: toBase64(m.idf),
    vectors: toBase64(m.vectors),
    texts: m.texts,
    fingerprint: m.fingerprint,
  };
}

export function deserializeModel(state: LearnedModelState): LearnedModel {
  if (state?.format !== 'mnemos.builtin-embedder' || (state.version !== 1 && state.version !== 2)) {
    throw new MnemosError('validation_failed', 'not a built-in embedder model (expected format mnemos.builtin-embedder, version 1 or 2)');
  }
  if (state.analyzer !== ANALYZER_VERSION && !OLDER_COMPATIBLE_ANALYZERS.has(state.analyzer)) {
    throw new MnemosError('conflict', `built-in embedder model was trained with analyzer ${state.analyzer}, this build uses ${ANALYZER_VERSION}: retrain it`, { analyzer: state.analyzer });
  }
  const idf = fromBase64(state.idf);
  const vectors = fromBase64(state.vectors);
  if (idf.length !== state.terms.length || vectors.length !== state.terms.length * state.options.rank) {
    throw new MnemosError('corrupt', 'built-in embedder model state has inconsistent sizes', { terms: state.terms.length });
  }
  const expected = fingerprintOf({ analyzer: state.analyzer, o: state.options, terms: state.terms, idf: state.idf, vectors: state.vectors });
  if (expected !== state.fingerprint) throw new MnemosError('corrupt', 'built-in embedder model state does not match its fingerprint');
  return {
    analyzer: state.analyzer,
    options: { ...state.options },
    terms: [...state.terms],
    index: new Map(state.terms.map((t, i) => [t, i])),
    hashedTerms: state.version === 2,
    idf,
    vectors,
    texts: state.texts,
    fingerprint: state.fingerprint,
  };
}
