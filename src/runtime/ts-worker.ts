import { Worker } from 'node:worker_threads';

/**
 * The entry of a worker thread that runs one of our modules, as a CommonJS
 * snippet: threads do not inherit the TypeScript loader the CLI registered,
 * so each registers it before importing its module.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.loader).then((m) => m.register()).then(() => import(workerData.entry));
`;

/** Starts a worker thread running `entry` (a module URL) with `data` as its workerData (beside the loader fields). */
export function moduleWorker(entry: URL, data: Record<string, unknown>): Worker {
  return new Worker(BOOTSTRAP, { eval: true, execArgv: [], workerData: { ...data, loader: import.meta.resolve('tsx/esm/api'), entry: entry.href } });
}
