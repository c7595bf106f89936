/**
 * The fill of `bench serve`, run on a worker thread (serve.ts starts it):
 * writing 100k memories leaves a large heap behind, and a load client
 * sharing that heap paid for it in garbage collection during the timed
 * phases (about a third fewer searches/s measured than a fresh client saw).
 * The thread's heap goes when it exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openMemory } from '../surfaces/library/open-memory.ts';
import { SyntheticText } from './synthetic.ts';

export type FillReply = { type: 'progress'; done: number } | { type: 'training' } | { type: 'done'; token: string; someId: string } | { type: 'failed'; message: string };

const port = parentPort!;
const { db, n, train } = workerData as { db: string; n: number; train: boolean };

try {
  const gen = new SyntheticText(11);
  const mem = await openMemory({ db });
  try {
    let someId = '';
    for (let done = 0; done < n; done += 1000) {
      const size = Math.min(1000, n - done);
      const made = await mem.rememberMany(Array.from({ length: size }, () => ({ text: gen.sentence(), type: 'fact' as const })));
      someId ||= made[0]!.id;
      port.postMessage({ type: 'progress', done: done + size } satisfies FillReply);
    }
    // A served store of this size has a trained built-in model (consolidation trains it at 100 memories and
    // again at each doubling), so the searches are timed on vectors of a trained model, as users' are.
    if (train) {
      port.postMessage({ type: 'training' } satisfies FillReply);
      await mem.embedBackfill({ retrain: true });
    }
    const { token } = await mem.createToken({ role: 'owner', label: 'bench' });
    port.postMessage({ type: 'done', token, someId } satisfies FillReply);
  } finally {
    await mem.close();
  }
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies FillReply);
}
