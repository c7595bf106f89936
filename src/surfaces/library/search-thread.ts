/**
 * The code of one search thread (search-threads.ts starts it): opens its own
 * handle on the store, then answers search requests for the principal each
 * request names (the main thread authenticated it) until told to close.
 * Searches only read, so a thread is one more reader of the same store, as a
 * second process would be; its vector copy follows the store's change log.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { toMnemosError } from '../../domain/errors.ts';
import type { SearchThreadRequest, SearchThreadReply, SearchThreadsOpen } from './search-threads.ts';
import { Mnemos } from './open-memory.ts';

const port = parentPort!;
const open = workerData.open as SearchThreadsOpen;

try {
  const root = await Mnemos.open({ db: open.db, config: open.config, lifecycle: open.lifecycle });
  port.on('message', (m: SearchThreadRequest) => {
    if (m.type === 'close') {
      void root.close().finally(() => port.close());
      return;
    }
    root
      .as(m.principal)
      .search(m.input)
      .then(
        (result) => port.postMessage({ type: 'result', id: m.id, result } satisfies SearchThreadReply),
        (err) => port.postMessage({ type: 'error', id: m.id, error: toMnemosError(err).toJSON() } satisfies SearchThreadReply),
      );
  });
  port.postMessage({ type: 'ready' } satisfies SearchThreadReply);
  // Load what searches read (the keyword index copy, the vectors) now rather than inside a user's first search;
  // searches that arrive meanwhile wait their turn, as they would behind that first one.
  void warm(root).then(() => port.postMessage({ type: 'warm' } satisfies SearchThreadReply));
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies SearchThreadReply);
  port.close();
}

async function warm(root: Mnemos): Promise<void> {
  try {
    await root.prepareKeywordSearch();
    await root.prepareVectorIndex();
  } catch {
    // A store that cannot prepare (embeddings off, a busy file) still answers searches, loading on first use.
  }
}
