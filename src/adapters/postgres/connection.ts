import pg from 'pg';
import { MnemosError } from '../../domain/errors.ts';

/**
 * The pool and the error policy of the PostgreSQL adapter. BIGINT (epoch ms,
 * counts) comes back as a JS number and json/jsonb as its raw text, so the
 * row mapping shared with SQLite works unchanged. The parsers are set on this
 * pool only, never on pg's global type registry.
 */
const INT8 = 20;
const JSON_OID = 114;
const JSONB_OID = 3802;
const NUMERIC = 1700;

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8 || oid === NUMERIC) return (v: string) => Number(v);
    if (oid === JSON_OID || oid === JSONB_OID) return (v: string) => v;
    return pg.types.getTypeParser(oid, format);
  },
} as unknown as pg.CustomTypesConfig;

export interface PgConnection {
  pool: pg.Pool;
  /** The URL with its password removed, safe for messages and `location`. */
  location: string;
  schema: string | null;
}

/** Splits our own `?schema=` parameter off the URL (pg does not know it). */
export function parsePgUrl(url: string): { connectionString: string; schema: string | null; location: string } {
  const u = new URL(url);
  const schema = u.searchParams.get('schema');
  u.searchParams.delete('schema');
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new MnemosError('validation_failed', `invalid schema name "${schema}" in the database URL`, { field: 'schema' });
  const connectionString = u.toString();
  const safe = new URL(connectionString);
  if (safe.password) safe.password = '***';
  if (schema) safe.searchParams.set('schema', schema);
  return { connectionString, schema, location: safe.toString() };
}

export function createPool(url: string, max = 10): PgConnection {
  const { connectionString, schema, location } = parsePgUrl(url);
  const pool = new pg.Pool({
    connectionString,
    max,
    types,
    // A schema per test run or tenant: every pooled connection starts with it on the search path.
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return { pool, location, schema };
}

const RETRYABLE = new Set(['40001', '40P01', '55P03']);

/** Maps driver errors to stable codes; the message names the URL without the password. */
export function mapPgError(err: unknown, location: string): unknown {
  if (MnemosError.is(err)) return err;
  const e = err as { code?: string; message?: string; constraint?: string };
  if (e.code === '23505') return new MnemosError('conflict', `a row with the same key already exists (${e.constraint ?? 'unique constraint'})`, { constraint: e.constraint }, { cause: err });
  if (e.code && RETRYABLE.has(e.code)) return new MnemosError('busy', 'the database stayed locked by other writers; try again', { code: e.code }, { cause: err });
  if (e.code === 'ECONNREFUSED' || e.code === 'ENOTFOUND' || e.code === 'ETIMEDOUT' || e.code === '57P03' || e.code === '3D000' || e.code === '28P01' || e.code === '28000') {
    return new MnemosError('unavailable', `cannot reach PostgreSQL at ${location}: ${e.message ?? e.code}`, { location }, { cause: err });
  }
  return err;
}

/** A serialization failure, deadlock or lock timeout: the transaction may succeed if run again. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code !== undefined && RETRYABLE.has(code);
}

/** Runs fn with retries on serialization failures and deadlocks, then maps errors. */
export async function withRetry<T>(location: string, fn: () => Promise<T>, attempts = 6): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return await fn();
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code && RETRYABLE.has(code) && i + 1 < attempts) {
        await new Promise((r) => setTimeout(r, Math.min(500, 10 * 2 ** i) * (0.5 + Math.random())));
        continue;
      }
      throw mapPgError(err, location);
    }
  }
}

/** One transaction on one pooled client: BEGIN ... COMMIT, ROLLBACK on any error. */
export async function inTransaction<T>(conn: PgConnection, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  return withRetry(conn.location, async () => {
    const client = await conn.pool.connect();
    try {
      await client.query('BEGIN');
      const out = await fn(client);
      await client.query('COMMIT');
      return out;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => {});
      throw err;
    } finally {
      client.release();
    }
  });
}

/** A client or the pool: anything that can run a query. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export async function rows<T>(q: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  return (await q.query(text, values)).rows as T[];
}
