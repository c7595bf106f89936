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
let closing = false;

try {
  const root = await Mnemos.open({ db: open.db, config: open.config, lifecycle: open.lifecycle });
  port.on('message', (m: SearchThreadRequest) => {
    if (m.type === 'close') {
      closing = true;
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
  void warm(root).then(() => {
    port.postMessage({ type: 'warm' } satisfies SearchThreadReply);
    follow(root);
  });
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies SearchThreadReply);
  port.close();
}

/**
 * Keeps the copies current between searches. Without this, the searches
 * that met the end of a burst of writes with no search between (an import,
 * a busy minute of notes) all waited for the whole burst to be read and
 * indexed: 0.4-0.7 s, once over 2 s, for 2,700 writes on PostgreSQL. A tick
 * that finds nothing new costs a few one-row queries; a copy too far behind
 * rebuilds in the background as it would for a search. Ticks never overlap
 * and never keep the thread alive.
 */
const FOLLOW_MS = 250;

function follow(root: Mnemos): void {
  const tick = () => {
    if (closing) return;
    root
      .refreshSearchCaches()
      .catch(() => {}) // a busy or closing store: the next search catches up itself
      .finally(() => setTimeout(tick, FOLLOW_MS).unref());
  };
  setTimeout(tick, FOLLOW_MS).unref();
}

async function warm(root: Mnemos): Promise<void> {
  try {
    await root.prepareKeywordSearch();
    // The vector copy, not the approximate index's first build: at a million vectors that takes minutes, during
    // which the exact scan answers anyway, and the thread would not follow the store until it ended.
    await root.prepareVectorIndex({ wait: false });
  } catch {
    // A store that cannot prepare (embeddings off, a busy file) still answers searches, loading on first use.
  }
}
