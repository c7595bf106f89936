import { dirname, resolve } from 'node:path';

/**
 * Where files that belong with a store live (the journal, safety-event logs):
 * beside a SQLite file, or ./.mnemos for a server database or an in-memory store.
 */
export function stateDir(storeLocation: string): string {
  return storeLocation && storeLocation !== ':memory:' && !storeLocation.includes('://') ? dirname(resolve(storeLocation)) : resolve('.mnemos');
}
