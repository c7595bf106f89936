/**
 * The in-memory reference pipeline over LoCoMo as a library call: load the
 * file, run one mode, return the report (and per-question results). It has
 * session context, which the engine's stores do not yet, so its figures
 * (docs/RETRIEVAL.md) are higher than the engine's: `mnemos bench locomo`
 * runs the real engine instead (engine-search.ts).
 */
import { loadLocomo } from './locomo.ts';
import { DEFAULT_LOCOMO_KS, runLocomo, type LocomoRun } from './locomo-harness.ts';
import { locomoPlainBm25Search, locomoSearch } from './locomo-search.ts';
import type { SearchMode } from '../retrieval/in-memory-hybrid-index.ts';

export interface LocomoBenchOptions {
  /** 'plain-bm25' is the README's baseline (no query processing, no context). Default 'hybrid'. */
  mode?: SearchMode | 'plain-bm25';
  ks?: readonly number[];
}

export async function benchLocomo(path: string, options: LocomoBenchOptions = {}): Promise<LocomoRun> {
  const conversations = await loadLocomo(path);
  const mode = options.mode ?? 'hybrid';
  const search = mode === 'plain-bm25' ? locomoPlainBm25Search() : locomoSearch({ mode });
  return runLocomo(conversations, search, options.ks ?? DEFAULT_LOCOMO_KS);
}
