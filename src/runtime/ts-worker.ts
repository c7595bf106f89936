import { Worker } from 'node:worker_threads';

/**
 * The entry of a worker thread that runs one of our TypeScript modules, as a
 * CommonJS snippet: threads do not inherit the TypeScript loader the caller
 * registered, so each registers it before importing its module. Compiled
 * modules (dist/, see tsconfig.build.json) need no loader.
 */
const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
import(workerData.loader).then((m) => m.register()).then(() => import(workerData.entry));
`;

/**
 * The URL of a module beside `base` (a caller's import.meta.url), with the
 * caller's own extension: `.ts` when running from src/ through tsx, `.js`
 * when running the compiled build. Worker entries are URLs, not imports, so
 * the build cannot rewrite them.
 */
export function siblingModule(name: string, base: string): URL {
  return new URL(`./${name}${base.endsWith('.ts') ? '.ts' : '.js'}`, base);
}

/** Starts a worker thread running `entry` (a module URL) with `data` as its workerData (beside the loader fields). */
export function moduleWorker(entry: URL, data: Record<string, unknown>): Worker {
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry, { execArgv: [], workerData: data });
  return new Worker(BOOTSTRAP, { eval: true, execArgv: [], workerData: { ...data, loader: import.meta.resolve('tsx/esm/api'), entry: entry.href } });
}
