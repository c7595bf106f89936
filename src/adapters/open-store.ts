import { resolve } from 'node:path';
import { MnemosError } from '../domain/errors.ts';
import type { MemoryStore } from '../ports/store.ts';
import { SqliteStore } from './sqlite/store.ts';

export const DEFAULT_DB_PATH = './.mnemos/memory.db';

export interface OpenStoreOptions {
  analyze: (text: string) => string[];
}

/** Picks the adapter from the location's form: a postgres:// URL or a SQLite file path. */
export async function openStore(location: string, opts: OpenStoreOptions): Promise<MemoryStore> {
  if (/^postgres(ql)?:\/\//.test(location)) {
    throw new MnemosError('unsupported', 'PostgreSQL support is not installed in this build yet; use a SQLite path', { location });
  }
  const path = location === ':memory:' ? location : resolve(location);
  return SqliteStore.open({ path, analyze: opts.analyze });
}
