/**
 * The PostgreSQL server the suite's PostgreSQL pass runs against:
 * MNEMOS_TEST_PG_URL. scripts/run-tests.ts decides whether that pass runs
 * (and shouts when it cannot); here are only the means to get a store of
 * one's own. Every store gets a fresh schema, so runs never collide.
 */
import pg from 'pg';

export function pgTestUrl(): string {
  const url = process.env.MNEMOS_TEST_PG_URL;
  if (!url) throw new Error('MNEMOS_TEST_PG_URL is not set: the PostgreSQL tests need a server (postgres://user:pass@host/db)');
  return url;
}

let counter = 0;

/** A fresh schema name and the URL that selects it. The tag only helps a human reading a leftover schema's name. */
export function freshSchema(tag: string): { schema: string; url: string } {
  const safe = tag.toLowerCase().replace(/[^a-z0-9]+/g, '_').slice(0, 20);
  const schema = `t_${safe}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const u = new URL(pgTestUrl());
  u.searchParams.set('schema', schema);
  return { schema, url: u.toString() };
}

/** A plain client on the test database with `schema` first on the search path, for raw checks behind the engine's back. */
export async function pgClient(schema?: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: pgTestUrl(), ...(schema ? { options: `-c search_path=${schema}` } : {}) });
  await client.connect();
  return client;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = await pgClient();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
