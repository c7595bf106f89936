/**
 * Where the PostgreSQL half of the suite runs: MNEMOS_TEST_PG_URL. Without
 * it the PG tests are skipped with a loud message, unless
 * MNEMOS_TEST_REQUIRE_PG=1 (CI), where a missing database is a failure.
 * Every store gets a fresh schema, so runs never collide.
 */
import pg from 'pg';

export function pgTestUrl(): string | null {
  const url = process.env.MNEMOS_TEST_PG_URL;
  if (url) return url;
  if (process.env.MNEMOS_TEST_REQUIRE_PG === '1') throw new Error('MNEMOS_TEST_REQUIRE_PG=1 but MNEMOS_TEST_PG_URL is not set: the PostgreSQL tests cannot run');
  return null;
}

/** Returns the skip reason (and shouts it) when there is no PostgreSQL to test against. */
export function pgSkip(what: string): string | false {
  if (pgTestUrl()) return false;
  const msg = `SKIPPED ${what}: set MNEMOS_TEST_PG_URL=postgres://... to run the PostgreSQL tests`;
  console.error(`\n${'!'.repeat(msg.length)}\n${msg}\n${'!'.repeat(msg.length)}\n`);
  return msg;
}

let counter = 0;

/** A fresh schema name and the URL that selects it. */
export function freshSchema(tag: string): { schema: string; url: string } {
  const base = pgTestUrl();
  if (!base) throw new Error('no MNEMOS_TEST_PG_URL');
  const schema = `t_${tag}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const u = new URL(base);
  u.searchParams.set('schema', schema);
  return { schema, url: u.toString() };
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgTestUrl()! });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}
