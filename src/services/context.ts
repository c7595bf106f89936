import { MnemosError } from '../domain/errors.ts';
import type { MemoryStore } from '../ports/store.ts';
import type { CycleRegistry } from './cycle/cycle-registry.ts';
import type { EmbeddingService } from '../embedding/embedding-service.ts';
import type { EmbeddingConfig } from './embeddings.ts';
import { DEFAULT_VECTOR_INDEX, type VectorIndexConfig } from '../ports/vectors.ts';
import type { Principal } from '../domain/principal.ts';
import type { SearchInput } from './inputs.ts';
import type { SearchMode, SearchResult } from './search.ts';
import type { LedgerIndexCache } from '../lifecycle/ledger-index.ts';

/** What every service needs; built once by the engine, never global. */
export interface ServiceContext {
  store: MemoryStore;
  /** Injected clock so tests can move time. */
  now: () => number;
  /** Query-side text analysis; must match what the store indexed with. */
  analyzeQuery: (text: string) => string[];
  config: EngineConfig;
  /** Per-agent cognitive cycles, created on first use (services/cycle/cycle-api.ts). */
  cycles?: CycleRegistry;
  /** Embedding services by namespace (the built-in model is learned per namespace). */
  embedders?: Map<string, { service: EmbeddingService; checkedAt: number }>;
  /** Loads of those in flight, so a burst of first uses waits for one load instead of each reading the model. */
  embedderLoads?: Map<string, { generation: number; load: Promise<EmbeddingService> }>;
  /** Moves when this process learns of a newer model (forgetLoadedModel): a load begun before must not be kept. */
  embedderGeneration?: number;
  /** The ledger facts each caller sees, indexed for searches and kept until the ledger changes (lifecycle/ledger-index.ts). */
  ledgerIndexes?: LedgerIndexCache;
  /** Where searches run when not here: search threads set it (surfaces/library/search-threads.ts); see runSearch. */
  searchRunner?: (p: Principal, input: SearchInput & { mode?: SearchMode }) => Promise<SearchResult>;
}

export interface EngineConfig {
  /** How long a forget/edit preview token stays valid. */
  previewTtlMs: number;
  /**
   * The MeTTa journal the journal tools read (journal_query, journal_view).
   * Default: `journal.metta` next to the SQLite file, or
   * `./.mnemos/journal.metta` for other stores (services/journal-reads.ts).
   */
  journalPath?: string;
  /** Agent bridge reads; both default off. Autonomous writes have no setting: they cannot be enabled. */
  journalBridge?: { promptViewReads?: boolean; indexViewReads?: boolean };
  /** Which embedder gives search its vector list (services/embeddings.ts). */
  embeddings: EmbeddingConfig;
  /** Reciprocal Rank Fusion constant. */
  rrfK: number;
  /**
   * Which vector index answers nearest-neighbour queries: the exact scan, or
   * an approximate (HNSW) index above a number of vectors per namespace and
   * model. Read when the store opens (openMemory passes it to the adapter).
   */
  vectorIndex: VectorIndexConfig;
  /** Cosine below which a vector neighbour is not considered a match. */
  vectorMinSimilarity: number;
  /** RRF weight of the knowledge-graph list; below 1 because a person named in most memories brings them all (measured on LoCoMo). */
  graphListWeight: number;
}

/**
 * Refuses numbers a search would only trip over later: a NaN weight gave
 * every hit a null score, a negative k failed at the first search.
 */
export function checkEngineConfig(c: EngineConfig): void {
  const bad = (field: string, want: string, got: unknown) => {
    throw new MnemosError('validation_failed', `config.${field} must be ${want}, got ${String(got)}`, { field: `config.${field}` });
  };
  if (!(Number.isSafeInteger(c.previewTtlMs) && c.previewTtlMs > 0)) bad('previewTtlMs', 'a positive whole number of milliseconds', c.previewTtlMs);
  if (!(Number.isFinite(c.rrfK) && c.rrfK > 0)) bad('rrfK', 'a positive number', c.rrfK);
  if (!(Number.isFinite(c.graphListWeight) && c.graphListWeight >= 0)) bad('graphListWeight', 'a number >= 0', c.graphListWeight);
  if (!(Number.isFinite(c.vectorMinSimilarity) && c.vectorMinSimilarity >= -1 && c.vectorMinSimilarity <= 1)) bad('vectorMinSimilarity', 'a number from -1 to 1', c.vectorMinSimilarity);
}

export const DEFAULT_CONFIG: EngineConfig = {
  previewTtlMs: 15 * 60 * 1000,
  embeddings: { provider: 'builtin' },
  rrfK: 60,
  vectorIndex: DEFAULT_VECTOR_INDEX,
  vectorMinSimilarity: 0.3,
  graphListWeight: 0.3,
};
