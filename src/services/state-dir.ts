import { createHash } from 'node:crypto';
import { basename, dirname, resolve } from 'node:path';
import { pgDataIdentity, pgIdentityText } from './pg-data-identity.ts';
import type { MemoryStore } from '../ports/store.ts';

/**
 * Where files that belong with a store live (the journal, safety-event logs):
 * beside a SQLite file, or ./.mnemos for a server database or an in-memory store.
 */
export function stateDir(storeLocation: string): string {
  return storeLocation && storeLocation !== ':memory:' && !storeLocation.includes('://') ? dirname(resolve(storeLocation)) : resolve('.mnemos');
}

/**
 * A store's identity for naming its files in a state directory (safety-event
 * logs, a server database's journals), or null for a store that has none
 * across processes (in-memory). Every store of a directory shares it, so a
 * name must say whose file it is: a log named by agent alone was recovered
 * into whichever store slept next, and lost to its own.
 *
 * A SQLite file is named by its file name (the log lives beside it, so moving
 * the folder keeps the pair); a server database by what says which data it
 * is: host, port, database and schema (pg-data-identity.ts).
 * Named by the whole URL, any other setting (`?sslmode=`, `?application_name=`,
 * a password given as `?password=`) moved the store to an empty journal and
 * left its pending safety events behind.
 */
export function storeIdentity(store: Pick<MemoryStore, 'backend' | 'location'>): string | null {
  const loc = store.location;
  if (!loc || loc === ':memory:') return null;
  if (!loc.includes('://')) return `sqlite:${basename(resolve(loc))}`;
  const id = pgDataIdentity(loc);
  return id ? `${store.backend}:${pgIdentityText(id)}` : `${store.backend}:${loc}`;
}

/**
 * The identity earlier versions gave a server database: its whole URL less
 * the user and password. Files named by it are taken over under the current
 * name on first use (state-files.ts); null where it is the current one.
 */
export function legacyStoreIdentity(store: Pick<MemoryStore, 'backend' | 'location'>): string | null {
  const loc = store.location;
  if (!loc || loc === ':memory:' || !loc.includes('://')) return null;
  let old: string;
  try {
    const u = new URL(loc);
    u.username = '';
    u.password = '';
    old = `${store.backend}:${u.toString()}`;
  } catch {
    old = `${store.backend}:${loc}`;
  }
  return old === storeIdentity(store) ? null : old;
}

/** A short digest of a store identity, for file names (the identity itself holds a URL). */
export function identityDigest(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
