/**
 * The code of a training thread (train-off-thread.ts starts it): learns the
 * built-in embedder's model from the sequences it was given and posts the
 * model's serialisable state back. Training a large store is a minute or
 * more of pure CPU; on a thread it leaves a server's event loop answering.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { BuiltinEmbedder } from './builtin-embedder.ts';
import type { TrainThreadReply } from './train-off-thread.ts';

const port = parentPort!;
try {
  const state = BuiltinEmbedder.train(workerData.sequences as string[][]).state();
  port.postMessage({ type: 'trained', state } satisfies TrainThreadReply);
} catch (err) {
  port.postMessage({ type: 'failed', message: (err as Error).message } satisfies TrainThreadReply);
}
