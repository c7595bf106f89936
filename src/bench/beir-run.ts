/** `mnemos bench beir <dir>` as a library call: in-memory BM25 over the BEIR folder. */
import { loadBeir, runBeir, type BeirReport } from './beir.ts';
import { inMemoryBm25Search } from './beir-keyword.ts';

export async function benchBeir(dir: string, split = 'test'): Promise<BeirReport> {
  return runBeir(await loadBeir(dir, split), inMemoryBm25Search());
}
