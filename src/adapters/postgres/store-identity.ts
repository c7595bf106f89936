import { randomUUID } from 'node:crypto';
import type pg from 'pg';

/**
 * A PostgreSQL store's identity: a random UUID kept in a one-row table of
 * its own schema (migration 16), so it names the data, not the way to it.
 * The journal and safety-event logs kept in ./.mnemos are named by it
 * (services/state-dir.ts): a URL with `localhost` or `127.0.0.1`, a socket,
 * `?schema=` or a search_path set with ALTER ROLE all reach one identity,
 * and two schemas have two.
 *
 * A copy of the tables (pg_dump, restored elsewhere) carries the id with
 * it; deleting the row gives the copy a new one at its next open.
 */
export async function ensureStoreIdentity(client: pg.PoolClient): Promise<string> {
  const found = await readIdentity(client);
  if (found !== null) return found;
  // Made once: the migration does it under its lock, and a row deleted since is made again here.
  // ON CONFLICT: of two processes that both found none, the first insert wins and both read it.
  await client.query('INSERT INTO mnemos_store_identity (one, id) VALUES (true, $1) ON CONFLICT (one) DO NOTHING', [randomUUID()]);
  const made = await readIdentity(client);
  if (made === null) throw new Error('mnemos_store_identity holds no row after inserting one');
  return made;
}

/** `postgres:store:<uuid>`, the form MemoryStore.identity gives it. */
export function storeIdentityName(uuid: string): string {
  return `postgres:store:${uuid}`;
}

async function readIdentity(client: pg.PoolClient): Promise<string | null> {
  const r = await client.query<{ id: string }>('SELECT id::text AS id FROM mnemos_store_identity WHERE one');
  return r.rows[0]?.id ?? null;
}
