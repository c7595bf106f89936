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
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies SearchThreadReply);
  port.close();
}
