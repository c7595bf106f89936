/**
 * Settings of the memory lifecycle. Kept beside the engine context rather
 * than inside it: a context gets its settings once (`configureLifecycle`),
 * and every service reads them through `lifecycleConfig(ctx)`.
 */
export interface LifecycleConfig {
  /** How often the scheduler runs a consolidation. */
  consolidationIntervalMs: number;
  /** A recalled memory can be corrected in place for this long. */
  labileWindowMs: number;
  /** Expired memories are purged (really forgotten) after this long. */
  purgeAfterMs: number;
  /** Open goals untouched this long become open loops. */
  stalledGoalMs: number;
  /** Archived memories unused this long with strength above 0.4 are rescued when orphaned. */
  orphanUnusedMs: number;
  /** Jaccard similarity over analysed shingles at or above which two texts are near-duplicates. */
  textDuplicateThreshold: number;
  /** Cosine similarity at or above which two embeddings are near-duplicates. */
  vectorDuplicateThreshold: number;
  /** A consolidation lease expires after this long without renewal (a crashed runner). */
  leaseMs: number;
  /** Even with nothing new, run at least this often (importance decays with time). */
  maxIdleMs: number;
  /** Memories indexed into the knowledge graph per run. */
  graphBatch: number;
  /**
   * Most memories indexed again per run because they were indexed under older
   * extraction rules (the rest wait for the next run, or `mnemos graph reindex`):
   * a new rules version makes every indexed memory stale at once.
   */
  graphReindexBatch: number;
  /** Most memories given a missing vector in one run (the rest wait for the next). */
  vectorBatch: number;
  /**
   * Newest vector change-log entries kept by each run (about 20 bytes each);
   * a process whose in-memory vectors are further behind reloads them in full.
   */
  vectorLogKeep: number;
  /**
   * Newest memory row log entries kept by each run (one per memory written
   * or removed); a process whose keyword copy is further behind rebuilds it.
   */
  memoryLogKeep: number;
  /** The built-in embedder learns its first model once the namespace holds this many memories. */
  modelMinTexts: number;
  /** ...and learns a new one once the namespace holds this many times its size at the last training. */
  modelGrowth: number;
}

const MIN = 60_000;
const DAY = 24 * 60 * MIN;

/** The longest delay a Node timer keeps (about 24.8 days); a longer one, like NaN or 0, fires after 1 ms. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

export const DEFAULT_LIFECYCLE_CONFIG: LifecycleConfig = {
  consolidationIntervalMs: 30 * MIN,
  labileWindowMs: 30 * MIN,
  purgeAfterMs: 30 * DAY,
  stalledGoalMs: 7 * DAY,
  orphanUnusedMs: 7 * DAY,
  textDuplicateThreshold: 0.8,
  vectorDuplicateThreshold: 0.92,
  leaseMs: 2 * MIN,
  maxIdleMs: DAY,
  graphBatch: 200_000,
  graphReindexBatch: 20_000,
  vectorBatch: 50_000,
  vectorLogKeep: 100_000,
  memoryLogKeep: 100_000,
  modelMinTexts: 100,
  modelGrowth: 2,
};

const configs = new WeakMap<object, LifecycleConfig>();

export function configureLifecycle(ctx: object, partial: Partial<LifecycleConfig> = {}): LifecycleConfig {
  const cfg = { ...DEFAULT_LIFECYCLE_CONFIG, ...partial };
  configs.set(ctx, cfg);
  return cfg;
}

export function lifecycleConfig(ctx: object): LifecycleConfig {
  return configs.get(ctx) ?? DEFAULT_LIFECYCLE_CONFIG;
}
