import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { MnemosError, type ErrorCode } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import type { LifecycleConfig } from '../../lifecycle/config.ts';
import type { EngineConfig } from '../../services/context.ts';
import type { SearchMode, SearchResult } from '../../services/search.ts';
import type { SearchInput } from '../../services/inputs.ts';
import { moduleWorker, siblingModule } from '../../runtime/ts-worker.ts';

/** What a search thread needs to open the same store with the same settings. */
export interface SearchThreadsOpen {
  db: string;
  config: EngineConfig;
  lifecycle?: Partial<LifecycleConfig>;
}

export type SearchThreadRequest =
  | { type: 'search'; id: number; principal: Principal; input: SearchInput & { mode?: SearchMode } }
  | { type: 'close' };

export type SearchThreadReply =
  | { type: 'ready' }
  /** The thread has loaded its keyword index copy and vectors (after `ready`). */
  | { type: 'warm' }
  | { type: 'failed'; message: string }
  | { type: 'result'; id: number; result: SearchResult }
  | { type: 'error'; id: number; error: { code: ErrorCode; message: string; details?: Record<string, unknown> } };

/** The default for a server: one thread where there is a second core (searches then leave the event loop free for requests and writes), none on one core. */
export function defaultSearchThreads(): number {
  return availableParallelism() >= 2 ? 1 : 0;
}

interface Thread {
  worker: Worker;
  pending: Map<number, { resolve: (r: SearchResult) => void; reject: (e: Error) => void }>;
  warm: boolean;
}

/**
 * Searches on worker threads. A search costs milliseconds of CPU on one
 * thread (vector scan, BM25, fusion), and a server doing them on its event
 * loop answers nothing else meanwhile; here each thread holds its own store
 * handle and the server's loop only parses, authenticates and replies. A
 * request goes to the thread with the fewest searches in flight.
 *
 * A thread that stops unexpectedly fails its in-flight searches with an
 * `internal` error and is replaced; `close` lets each thread close its store.
 */
export class SearchThreads {
  private threads: Thread[] = [];
  private nextId = 1;
  private closing = false;

  private constructor(private readonly open: SearchThreadsOpen) {}

  /** Starts `count` threads and waits until each has opened the store (an error names why one could not). */
  static async start(count: number, open: SearchThreadsOpen): Promise<SearchThreads> {
    if (!Number.isInteger(count) || count < 1 || count > 64) throw new MnemosError('validation_failed', `search threads must be a whole number from 1 to 64, not ${count}`, { field: 'searchThreads' });
    const pool = new SearchThreads(open);
    try {
      for (let i = 0; i < count; i++) pool.threads.push(await pool.spawn());
    } catch (err) {
      await pool.close();
      throw err;
    }
    return pool;
  }

  get size(): number {
    return this.threads.length;
  }

  /** Whether every running thread has loaded what its searches read (keyword index copy, vectors). */
  get warm(): boolean {
    return this.threads.length > 0 && this.threads.every((t) => t.warm);
  }

  search(principal: Principal, input: SearchInput & { mode?: SearchMode }): Promise<SearchResult> {
    let best: Thread | undefined;
    for (const t of this.threads) if (!best || t.pending.size < best.pending.size) best = t;
    if (!best) return Promise.reject(new MnemosError('unavailable', 'no search thread is running'));
    const id = this.nextId++;
    const thread = best;
    return new Promise<SearchResult>((resolve, reject) => {
      thread.pending.set(id, { resolve, reject });
      thread.worker.postMessage({ type: 'search', id, principal, input } satisfies SearchThreadRequest);
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    const threads = this.threads.splice(0);
    await Promise.all(
      threads.map(
        (t) =>
          new Promise<void>((resolve) => {
            // A thread closes its store, then exits; one that hangs is stopped.
            const force = setTimeout(() => void t.worker.terminate(), 10_000);
            t.worker.once('exit', () => {
              clearTimeout(force);
              resolve();
            });
            t.worker.postMessage({ type: 'close' } satisfies SearchThreadRequest);
          }),
      ),
    );
  }

  private spawn(): Promise<Thread> {
    const worker = moduleWorker(siblingModule('search-thread', import.meta.url), { open: this.open });
    const thread: Thread = { worker, pending: new Map(), warm: false };
    return new Promise<Thread>((resolve, reject) => {
      let ready = false;
      worker.on('message', (m: SearchThreadReply) => {
        if (m.type === 'ready') {
          ready = true;
          resolve(thread);
        } else if (m.type === 'warm') {
          thread.warm = true;
        } else if (m.type === 'failed') {
          reject(new MnemosError('unavailable', `a search thread could not open the store: ${m.message}`));
        } else {
          const p = thread.pending.get(m.id);
          if (!p) return;
          thread.pending.delete(m.id);
          if (m.type === 'result') p.resolve(m.result);
          else p.reject(new MnemosError(m.error.code, m.error.message, m.error.details));
        }
      });
      worker.on('error', (err) => {
        if (!ready) reject(new MnemosError('unavailable', `a search thread failed to start: ${err.message}`));
      });
      worker.on('exit', (code) => {
        for (const p of thread.pending.values()) p.reject(new MnemosError('internal', `the search thread stopped (exit code ${code}) during this search; retry it`));
        thread.pending.clear();
        const at = this.threads.indexOf(thread);
        if (at < 0 || this.closing) return;
        this.threads.splice(at, 1);
        // Replaced in the background; meanwhile the other threads (or, with none left, the caller's own loop) answer.
        this.spawn().then(
          (t) => (this.closing ? void t.worker.terminate() : this.threads.push(t)),
          () => {},
        );
      });
    });
  }
}
