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
}

export const DEFAULT_CONFIG: EngineConfig = {
  previewTtlMs: 15 * 60 * 1000,
};
