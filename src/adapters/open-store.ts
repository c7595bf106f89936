import { resolve } from 'node:path';
import type { MemoryStore } from '../ports/store.ts';
import type { VectorIndexConfig } from '../ports/vectors.ts';
import type { MigrationProgressListener } from '../ports/migration-progress.ts';
import { SqliteStore } from './sqlite/store.ts';
import { MnemosError } from '../domain/errors.ts';

export const DEFAULT_DB_PATH = './.mnemos/memory.db';

export interface OpenStoreOptions {
  analyze: (text: string) => string[];
  /** Which vector index answers nearest-neighbour queries (ports/vectors.ts); default auto with a 200,000-vector threshold. */
  vectorIndex?: VectorIndexConfig;
  /** Hears how far a long migration has got while the store opens (ports/migration-progress.ts). */
  onProgress?: MigrationProgressListener;
}

/** Whether a store location names PostgreSQL (a postgres:// or postgresql:// URL) rather than a SQLite file. */
export function isPostgresLocation(location: string): boolean {
  return /^postgres(ql)?:\/\//.test(location);
}

/**
 * What keeps a postgres:// URL from naming an existing store (null when it
 * names one), found without creating anything, and the URL without its
 * password, for messages.
 */
export async function missingPgStore(url: string): Promise<{ location: string; missing: string | null }> {
  const { pgStoreMissing } = await import('./postgres/connection.ts');
  return pgStoreMissing(url);
}

/**
 * Refuses a location that is a URL of some other kind. Anything not a
 * postgres:// URL was taken as a file path, so `mysql://host/db`,
 * `Postgres://...` or `file:///tmp/m.db` made a folder named `mysql:` (or
 * `Postgres:`, `file:`) in the working folder with a new SQLite store in it.
 */
export function assertStoreLocation(location: string, field = 'db'): void {
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(location)?.[1];
  if (scheme === undefined || isPostgresLocation(location)) return;
  const hint = /^postgres(ql)?$/i.test(scheme) ? ` (write the scheme in lower case: ${scheme.toLowerCase()}://)` : scheme.toLowerCase() === 'file' ? ' (give the file path itself, without file://)' : '';
  throw new MnemosError('validation_failed', `${location.replace(/:\/\/[^@/]*@/, '://***@')} is a ${scheme}:// URL; a store is a SQLite file path or a postgres:// URL${hint}. Nothing was created`, { field });
}

/** Picks the adapter from the location's form: a postgres:// URL or a SQLite file path. */
export async function openStore(location: string, opts: OpenStoreOptions): Promise<MemoryStore> {
  assertStoreLocation(location);
  if (isPostgresLocation(location)) {
    // Loaded on demand so SQLite-only users never load the pg driver.
    const { PgStore } = await import('./postgres/index.ts');
    return PgStore.open({ url: location, analyze: opts.analyze, ...(opts.vectorIndex ? { vectorIndex: opts.vectorIndex } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
  }
  const path = location === ':memory:' ? location : resolve(location);
  return SqliteStore.open({ path, analyze: opts.analyze, ...(opts.vectorIndex ? { vectorIndex: opts.vectorIndex } : {}), ...(opts.onProgress ? { onProgress: opts.onProgress } : {}) });
}
