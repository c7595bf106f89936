import type { MemoryStore } from '../ports/store.ts';
import type { CycleRegistry } from './cycle/cycle-registry.ts';

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
}

export const DEFAULT_CONFIG: EngineConfig = {
  previewTtlMs: 15 * 60 * 1000,
};
