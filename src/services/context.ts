import type { MemoryStore } from '../ports/store.ts';

/** What every service needs; built once by the engine, never global. */
export interface ServiceContext {
  store: MemoryStore;
  /** Injected clock so tests can move time. */
  now: () => number;
  /** Query-side text analysis; must match what the store indexed with. */
  analyzeQuery: (text: string) => string[];
  config: EngineConfig;
}

export interface EngineConfig {
  /** How long a forget/edit preview token stays valid. */
  previewTtlMs: number;
}

export const DEFAULT_CONFIG: EngineConfig = {
  previewTtlMs: 15 * 60 * 1000,
};
