/** The in-memory reference BM25 over a BEIR folder as a library call; `mnemos bench beir` runs the real engine instead (engine-search.ts). */
import { loadBeir, runBeir, type BeirReport } from './beir.ts';
import { inMemoryBm25Search } from './beir-keyword.ts';

export async function benchBeir(dir: string, split = 'test'): Promise<BeirReport> {
  return runBeir(await loadBeir(dir, split), inMemoryBm25Search());
}
