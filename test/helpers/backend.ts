/**
 * The store backend a store-backed test runs on: MNEMOS_TEST_BACKEND=sqlite
 * (the default) or postgres. The same test body runs on either; `npm test`
 * (scripts/run-tests.ts) runs the whole suite on SQLite, then every file that
 * imports this module again on PostgreSQL. Importing it is what marks a test
 * file as store-backed, so a new store-backed test joins the PostgreSQL pass
 * by using these helpers instead of a hard-coded temp path.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { isPostgresLocation } from '../../src/adapters/open-store.ts';
import { numbered } from '../../src/adapters/sql/placeholders.ts';
import { tempDir } from './temp.ts';
import { dropSchema, freshSchema, pgClient } from './pg-env.ts';

export type Backend = 'sqlite' | 'postgres';

function selected(): Backend {
  const v = process.env.MNEMOS_TEST_BACKEND || 'sqlite';
  if (v !== 'sqlite' && v !== 'postgres') throw new Error(`MNEMOS_TEST_BACKEND must be sqlite or postgres, not ${v}`);
  return v;
}

export const BACKEND: Backend = selected();

/** A test title with the backend in it, so a failure says which pass it came from. */
export function named(title: string): string {
  return `${title} [${BACKEND}]`;
}

/** Options for a test about SQLite files themselves (raw bytes, WAL, the default file): it does not apply to PostgreSQL. */
export function sqliteOnly(why: string): { skip: string | false } {
  return { skip: BACKEND === 'sqlite' ? false : `SQLite only: ${why}` };
}

/** Options for a test that needs a PostgreSQL server: it runs in the PostgreSQL pass only. */
export function postgresOnly(why: string): { skip: string | false } {
  return { skip: BACKEND === 'postgres' ? false : `PostgreSQL pass only (MNEMOS_TEST_BACKEND=postgres): ${why}` };
}

export interface TestStores {
  /** A temp directory for the files a test writes, on either backend. */
  dir: string;
  /** The first store's location: a SQLite file in `dir` or a fresh-schema PostgreSQL URL. */
  db: string;
  /** Another fresh store; `name` is its file name on SQLite (relative to `dir`). */
  store(name: string): string;
  cleanup(): Promise<void>;
}

/** Fresh, empty stores on the selected backend, removed (files or schemas) by cleanup. */
export function testStores(prefix = 'mnemos-test-'): TestStores {
  const tmp = tempDir(prefix);
  const schemas: string[] = [];
  const store = (name: string): string => {
    if (BACKEND === 'sqlite') return join(tmp.dir, name);
    const { schema, url } = freshSchema(name);
    schemas.push(schema);
    return url;
  };
  return {
    dir: tmp.dir,
    db: store('m.db'),
    store,
    async cleanup() {
      tmp.cleanup();
      for (const s of schemas.splice(0)) await dropSchema(s);
    },
  };
}

/**
 * Runs one statement directly on a store's database, behind the engine's
 * back (raw checks, tampering), and returns its rows. Placeholders are `?`
 * on both backends. Values come back as each driver gives them: PostgreSQL
 * returns count(*) as a string and jsonb as objects, so callers normalise.
 */
export async function rawSql(location: string, text: string, ...params: unknown[]): Promise<Record<string, unknown>[]> {
  if (!isPostgresLocation(location)) {
    const db = new Database(location);
    try {
      const stmt = db.prepare(text);
      return stmt.reader ? (stmt.all(...params) as Record<string, unknown>[]) : (stmt.run(...params), []);
    } finally {
      db.close();
    }
  }
  const client = await pgClient(parsePgUrl(location).schema ?? undefined);
  try {
    return (await client.query(numbered(text), params)).rows;
  } finally {
    await client.end();
  }
}
