import { MnemosError } from '../../domain/errors.ts';
import { moduleWorker, siblingModule } from '../../runtime/ts-worker.ts';
import { BuiltinEmbedder } from './builtin-embedder.ts';
import { deserializeModel, type LearnedModelState } from './model.ts';

export type TrainThreadReply = { type: 'trained'; state: LearnedModelState | null } | { type: 'failed'; message: string };

/**
 * `BuiltinEmbedder.train(sequences)` on a worker thread: the same model (the
 * same fingerprint), without holding the caller's event loop. Aborting the
 * signal stops the thread and rejects with `unavailable`.
 */
export function trainOffThread(sequences: string[][], signal?: AbortSignal): Promise<BuiltinEmbedder> {
  if (signal?.aborted) return Promise.reject(stopped());
  const worker = moduleWorker(siblingModule('train-thread', import.meta.url), { sequences });
  return new Promise<BuiltinEmbedder>((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      fn();
    };
    const onAbort = () => settle(() => {
      void worker.terminate();
      reject(stopped());
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (m: TrainThreadReply) =>
      settle(() => {
        void worker.terminate();
        if (m.type === 'failed') reject(new MnemosError('internal', `training the built-in embedder failed: ${m.message}`));
        else {
          try {
            resolve(new BuiltinEmbedder(m.state ? deserializeModel(m.state) : null));
          } catch (err) {
            reject(err);
          }
        }
      }),
    );
    worker.once('error', (err) => settle(() => reject(new MnemosError('unavailable', `the training thread failed: ${err.message}`))));
    worker.once('exit', (code) => settle(() => reject(new MnemosError('unavailable', `the training thread stopped (exit code ${code}) before it finished`))));
  });
}

function stopped(): MnemosError {
  return new MnemosError('unavailable', 'training of the built-in embedder was stopped (the process is shutting down); the next consolidation trains again');
}
