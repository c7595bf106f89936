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

/** What names a store's files: its backend and location, and the identity a server store keeps in its data. */
export type StoreNaming = Pick<MemoryStore, 'backend' | 'location'> & { readonly identity?: string | undefined };

/**
 * A store's identity for naming its files in a state directory (safety-event
 * logs, a server database's journals), or null for a store that has none
 * across processes (in-memory). Every store of a directory shares it, so a
 * name must say whose file it is: a log named by agent alone was recovered
 * into whichever store slept next, and lost to its own.
 *
 * A store that keeps an identity in its data (MemoryStore.identity: a
 * PostgreSQL store's `postgres:store:<uuid>`) is named by it, so every way
 * of reaching the data (`localhost` or `127.0.0.1`, a socket, a search_path
 * set on the role) finds the same files, and two schemas never share them.
 * A SQLite file is named by its file name (the log lives beside it, so
 * moving the folder keeps the pair). A server URL without an identity (a
 * store object of another adapter) falls back on what its URL says of the
 * data: host, port, database and schema (pg-data-identity.ts).
 */
export function storeIdentity(store: StoreNaming): string | null {
  if (store.identity) return store.identity;
  const loc = store.location;
  if (!loc || loc === ':memory:') return null;
  if (!loc.includes('://')) return `sqlite:${basename(resolve(loc))}`;
  return urlIdentity(store);
}

/** A server store named by its URL, as the version before stored identities did: host, port, database and the URL's schema. */
function urlIdentity(store: StoreNaming): string {
  const id = pgDataIdentity(store.location);
  return id ? `${store.backend}:${pgIdentityText(id)}` : `${store.backend}:${store.location}`;
}

/** The identity the first versions gave a server database: its whole URL less the user and password. */
function wholeUrlIdentity(store: StoreNaming): string {
  try {
    const u = new URL(store.location);
    u.username = '';
    u.password = '';
    return `${store.backend}:${u.toString()}`;
  } catch {
    return `${store.backend}:${store.location}`;
  }
}

/**
 * The identities earlier versions gave this server store, newest first,
 * each differing from the current one: the URL's data (host, port,
 * database, schema) before identities were kept in the data, and the whole
 * URL before that. Files named by them are taken over under the current
 * name on first use (state-files.ts). Empty for a SQLite file or an
 * in-memory store, which never had another name.
 */
export function legacyStoreIdentities(store: StoreNaming): string[] {
  const loc = store.location;
  if (!loc || loc === ':memory:' || !loc.includes('://')) return [];
  const current = storeIdentity(store);
  const olds = [...(store.identity ? [urlIdentity(store)] : []), wholeUrlIdentity(store)];
  return olds.filter((x, i) => x !== current && olds.indexOf(x) === i);
}

/** A short digest of a store identity, for file names (the identity itself holds a URL). */
export function identityDigest(identity: string): string {
  return createHash('sha256').update(identity).digest('hex').slice(0, 16);
}
