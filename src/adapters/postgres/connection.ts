import pg from 'pg';
import { MnemosError } from '../../domain/errors.ts';
import { checkPgParams, normalizePgParams } from './url-params.ts';

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
  /** How long a write transaction waits for a lock (PostgreSQL's lock_timeout, ms; 0 waits forever). */
  lockTimeoutMs: number;
}

/**
 * How long a writer waits for another writer's lock (the audit chain head,
 * a row) before it answers `busy`: SQLite's busy timeout (sqlite/connection.ts).
 * Without it a writer waited forever behind a stuck transaction.
 */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;

/** A URL that did not parse, with whatever follows `user:` up to the last `@` masked. */
function maskUnparsed(url: string): string {
  const start = url.indexOf('://') + 3;
  const at = url.lastIndexOf('@');
  const colon = url.indexOf(':', start);
  const masked = start > 2 && at > start && colon !== -1 && colon < at ? `${url.slice(0, colon)}:***${url.slice(at)}` : url;
  return masked.replace(/([?&](?:ssl)?password=)[^&#]*/gi, '$1***');
}

/** URL parameters that pg reads as secrets (`?password=` is an alternative to the user-info part). */
const SECRET_PARAMS = ['password', 'sslpassword'];

/** Splits our own parameters (`?schema=`, `?lock_timeout=` in ms, `?pool_size=`) off the URL; pg does not know them. */
export function parsePgUrl(url: string): { connectionString: string; schema: string | null; location: string; lockTimeoutMs: number; poolSize: number | null } {
  let u: URL;
  try {
    u = new URL(url);
  } catch (err) {
    // e.g. port 99999, or a password with an unescaped `/` or `#`.
    throw new MnemosError('validation_failed', `the database URL ${maskUnparsed(url)} is not a valid URL: check the host, the port (1-65535) and that special characters in the password are percent-encoded`, { field: 'db' }, { cause: err });
  }
  checkPgParams(u.searchParams);
  const schema = u.searchParams.get('schema');
  u.searchParams.delete('schema');
  if (schema !== null && !/^[a-z_][a-z0-9_]{0,62}$/.test(schema)) throw new MnemosError('validation_failed', `invalid schema name "${schema}" in the database URL`, { field: 'schema' });
  // PostgreSQL reserves pg_ names for its own schemas and refuses to create one.
  if (schema?.startsWith('pg_')) throw new MnemosError('validation_failed', `invalid schema name "${schema}" in the database URL: names starting with pg_ are reserved by PostgreSQL`, { field: 'schema' });
  const timeout = u.searchParams.get('lock_timeout');
  u.searchParams.delete('lock_timeout');
  if (timeout !== null && !(/^\d{1,10}$/.test(timeout) && Number(timeout) <= 2 ** 31 - 1)) {
    throw new MnemosError('validation_failed', `invalid lock_timeout "${timeout}" in the database URL: milliseconds, 0 to wait forever`, { field: 'lock_timeout' });
  }
  // Ours too: without it the pool was always 10, and a role allowed fewer connections (CONNECTION LIMIT,
  // a pooler's quota) failed requests with "too many connections" instead of queueing them.
  const pool = u.searchParams.get('pool_size');
  u.searchParams.delete('pool_size');
  if (pool !== null && !(/^\d{1,4}$/.test(pool) && Number(pool) >= 1 && Number(pool) <= 1000)) {
    throw new MnemosError('validation_failed', `invalid pool_size "${pool}" in the database URL: connections per pool, 1 to 1000`, { field: 'pool_size' });
  }
  const safe = new URL(u.toString());
  if (safe.password) safe.password = '***';
  // pg takes the password from ?password= too; `location` is shown in messages, status and logs.
  for (const key of SECRET_PARAMS) if (safe.searchParams.has(key)) safe.searchParams.set(key, '***');
  if (schema) safe.searchParams.set('schema', schema);
  // The schema travels in the URL's own `options`: pg lets every URL parameter override the client
  // config, so an `?options=` (a statement_timeout, say) beside `?schema=` silently dropped the search
  // path and put the store in `public`. `location` stays as the user wrote it (the journal's name hangs on it).
  if (schema) u.searchParams.set('options', schemaOptions(u.searchParams.get('options'), schema));
  normalizePgParams(u.searchParams); // after `location`, which keeps the user's spelling
  return {
    connectionString: u.toString(),
    schema,
    location: safe.toString(),
    lockTimeoutMs: timeout === null ? DEFAULT_LOCK_TIMEOUT_MS : Number(timeout),
    poolSize: pool === null ? null : Number(pool),
  };
}

/** The URL's start-up options with `search_path` set to `schema`; a search_path of the user's own beside `?schema=` is refused, since only one can win. */
function schemaOptions(given: string | null, schema: string): string {
  if (given !== null && /search_path/i.test(given)) {
    throw new MnemosError('validation_failed', `the database URL sets the schema twice, with ?schema=${schema} and with a search_path in ?options=; keep one of them`, { field: 'schema' });
  }
  // Quoted, as in quoteSchema: a schema named like a keyword (user, order) is still one name.
  return `${given ? `${given.trim()} ` : ''}-c search_path=${quoteSchema(schema)}`;
}

/** A checked schema name (parsePgUrl: lower-case letters, digits, _) as an SQL identifier; quoting lets keywords such as `user` be names. */
export function quoteSchema(schema: string): string {
  return `"${schema}"`;
}

/**
 * pg-pool forgets a client whose connect failed without closing its socket:
 * with no password given, the server kept waiting for one and the process
 * could not exit for a minute (its authentication_timeout). Ending the
 * client closes the socket.
 *
 * pg-pool listens for errors only on idle clients. A checked-out client
 * whose backend went away (the server restarted, pg_terminate_backend)
 * emitted an 'error' event nobody heard, and Node ended the whole process:
 * one killed connection took `mnemos serve` down. The running query is
 * rejected with the same error, so the event needs no handling of its own;
 * the pool drops the dead client when it is released.
 */
class Client extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {});
  }

  override connect(): Promise<this>;
  override connect(callback: (err: Error | null) => void): void;
  override connect(callback?: (err: Error | null) => void): Promise<this> | void {
    if (!callback) return super.connect() as Promise<this>;
    super.connect((err: Error | null) => {
      if (err) this.end().catch(() => {});
      callback(err);
    });
  }
}

/**
 * Connection settings for a pool or a single client (the schema is in the
 * connection string's options, parsePgUrl). The lock wait bounds every
 * statement of the session, reads too: a read waits only behind an ACCESS
 * EXCLUSIVE lock (LOCK TABLE, ALTER, VACUUM FULL left in an open
 * transaction), and there it waited forever, holding a pooled connection,
 * until the pool ran dry and `mnemos serve` answered nothing.
 */
function clientConfig(connectionString: string, lockTimeoutMs: number): pg.ClientConfig {
  return { connectionString, types, ...(lockTimeoutMs > 0 ? { lock_timeout: lockTimeoutMs } : {}) };
}

/** `max` is the caller's default; the URL's `?pool_size=` overrides it. */
export function createPool(url: string, max = 10): PgConnection {
  const { connectionString, schema, location, lockTimeoutMs, poolSize } = parsePgUrl(url);
  // A schema per test run or tenant: every pooled connection starts with it on the search path.
  const pool = new pg.Pool({ ...clientConfig(connectionString, lockTimeoutMs), max: poolSize ?? max, Client });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  return { pool, location, schema, lockTimeoutMs };
}

/** Serialization failure and deadlock: run again, the transaction may succeed. */
const RETRYABLE = new Set(['40001', '40P01']);
/** lock_not_available: lock_timeout passed. Not retried: the wait was the bounded wait, and a retry queues again at the back. */
const LOCK_TIMEOUT = '55P03';
/** Errors that mean the server cannot be reached or refuses this login: `unavailable`. */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE', '57P03', '3D000', '28P01', '28000', '53300']);
/** The server ended the session: admin_shutdown (a restart, pg_terminate_backend), crash_shutdown. */
const TERMINATED = new Set(['57P01', '57P02']);
/** query_canceled: statement_timeout passed, or someone cancelled the statement (pg_cancel_backend). */
const CANCELED = '57014';
/** insufficient_privilege: the role may not create or touch the Mnemos tables. */
const NO_PRIVILEGE = '42501';

/** The connection to the server was lost while in use: pg's own words (it gives no code) or the server's. */
export function isConnectionLost(err: unknown): boolean {
  const e = err as { code?: string; message?: string } | null;
  if (!e) return false;
  if (e.code && (TERMINATED.has(e.code) || e.code === 'ECONNRESET' || e.code === 'EPIPE')) return true;
  return typeof e.message === 'string' && /^Connection terminated|is not queryable/.test(e.message);
}

/** Maps driver errors to stable codes; the message names the URL without the password. */
export function mapPgError(err: unknown, location: string): unknown {
  if (MnemosError.is(err)) return err;
  const e = err as { code?: string; message?: string; constraint?: string };
  if (e.code === '23505') return new MnemosError('conflict', `a row with the same key already exists (${e.constraint ?? 'unique constraint'})`, { constraint: e.constraint }, { cause: err });
  if (e.code && RETRYABLE.has(e.code)) return new MnemosError('busy', 'the store stayed locked by another writer; try again', { code: e.code }, { cause: err });
  if (e.code === LOCK_TIMEOUT) {
    return new MnemosError('busy', `a table of the store at ${location} stayed locked by another session past the lock wait (?lock_timeout=); try again (a LOCK TABLE, ALTER or VACUUM FULL left open? see pg_stat_activity)`, { code: e.code }, { cause: err });
  }
  if (e.code && UNREACHABLE.has(e.code)) return unreachable(location, e.message ?? e.code, err);
  if (isConnectionLost(err)) return new MnemosError('unavailable', `lost the connection to PostgreSQL at ${location} (${e.message ?? e.code}); try again`, { location, code: e.code }, { cause: err });
  if (e.code === CANCELED) {
    return new MnemosError('busy', `PostgreSQL cancelled the statement (${e.message}): its statement_timeout passed or it was cancelled; try again, or raise statement_timeout`, { code: e.code }, { cause: err });
  }
  if (e.code === NO_PRIVILEGE) {
    return new MnemosError('forbidden', `the PostgreSQL role of ${location} lacks a privilege: ${e.message}. Mnemos needs CREATE on the database (for ?schema=) or on the schema the first time, then SELECT, INSERT, UPDATE and DELETE on its tables (docs/POSTGRES.md)`, { location, code: e.code }, { cause: err });
  }
  // Text PostgreSQL cannot hold (U+0000), in a value the engine does not validate itself (a search filter, a principal's id).
  if (e.code === '22021' || e.code === '22P05') return new MnemosError('validation_failed', 'a value contains the NUL character (U+0000), which PostgreSQL cannot store or compare; remove it', { code: e.code }, { cause: err });
  // program_limit_exceeded: a value past what PostgreSQL can index (2,704 bytes a btree row: a long key under a long
  // principal id, both 4-byte characters). It was returned raw, code "54000" naming no Mnemos code; the write is
  // rolled back, so it is refused like any input too large.
  if (e.code === '54000') {
    return new MnemosError('limit_exceeded', `a value is too large for PostgreSQL to index (${e.message ?? e.code}); shorten it (keys, ids and names in 4-byte characters take the most room)`, { code: e.code }, { cause: err });
  }
  // pg's words when the server asks for a password and none was given (it has no code).
  if (e.message?.includes('client password must be a string')) {
    return unreachable(location, 'the server asks for a password and none was given; put it in the URL (postgres://user:password@host/db) or set PGPASSWORD', err);
  }
  return err;
}

function unreachable(location: string, why: string, cause: unknown): MnemosError {
  return new MnemosError('unavailable', `cannot reach PostgreSQL at ${location}: ${why}`, { location }, { cause });
}

/**
 * An error while connecting: whatever it is (refused, no password, TLS
 * refused or not trusted, too many connections), the server cannot be used
 * with these settings, so it is `unavailable`, never `internal`.
 */
export function connectFailed(err: unknown, location: string): MnemosError {
  // A session cut while connecting was never there: "cannot reach", not "lost the connection".
  if (isConnectionLost(err)) return unreachable(location, (err as Error).message ?? String(err), err);
  const mapped = mapPgError(err, location);
  return MnemosError.is(mapped) ? mapped : unreachable(location, (err as Error)?.message ?? String(err), err);
}

/** A serialization failure or deadlock: the transaction may succeed if run again. */
export function isRetryable(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return code !== undefined && RETRYABLE.has(code);
}

/** lock_timeout passed while waiting for another transaction's lock. */
export function isLockTimeout(err: unknown): boolean {
  return (err as { code?: string } | null)?.code === LOCK_TIMEOUT;
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

/**
 * One transaction on one pooled client: BEGIN ... COMMIT, ROLLBACK on any
 * error. A lock wait longer than `lockTimeoutMs` ends it with `busy`; SET
 * LOCAL (in BEGIN's round trip) ends with the transaction, so nothing leaks
 * to the pooled connection's next user.
 */
export async function inTransaction<T>(conn: PgConnection, fn: (c: pg.PoolClient) => Promise<T>, lockTimeoutMs = conn.lockTimeoutMs): Promise<T> {
  return withRetry(conn.location, async () => {
    const client = await conn.pool.connect();
    let committing = false;
    let lost: unknown;
    try {
      await client.query(`BEGIN; SET LOCAL lock_timeout = ${Math.trunc(lockTimeoutMs)}`);
      const out = await fn(client);
      committing = true;
      await client.query('COMMIT');
      return out;
    } catch (err) {
      if (isConnectionLost(err)) {
        lost = err;
        // Before COMMIT the server rolled the transaction back with the session; during it, only the server knows.
        const outcome = committing ? 'the connection broke during COMMIT, so whether this write was stored is unknown: look before repeating it' : 'nothing of this write was stored; try again';
        throw new MnemosError('unavailable', `lost the connection to PostgreSQL at ${conn.location} (${(err as Error).message}): ${outcome}`, { location: conn.location, committed: committing ? 'unknown' : false }, { cause: err });
      }
      await client.query('ROLLBACK').catch(() => {});
      if (isLockTimeout(err)) {
        throw new MnemosError('busy', `the store at ${conn.location} stayed locked by another writer for ${lockTimeoutMs} ms; try again (a transaction left open? see pg_stat_activity)`, { code: LOCK_TIMEOUT, lockTimeoutMs }, { cause: err });
      }
      throw err;
    } finally {
      // A broken client is destroyed, not handed to the next caller.
      client.release(lost instanceof Error ? lost : undefined);
    }
  });
}

/**
 * Whether `url` names an existing Mnemos store (its schema has the
 * `mnemos_schema` table), asked on a connection of its own that creates
 * nothing. `missing` says what is absent; null when the store is there.
 */
export async function pgStoreMissing(url: string): Promise<{ location: string; missing: string | null }> {
  const { connectionString, schema, location, lockTimeoutMs } = parsePgUrl(url);
  const client = new Client(clientConfig(connectionString, lockTimeoutMs));
  try {
    await client.connect();
    const [r] = (await client.query<{ found: boolean }>("SELECT to_regclass('mnemos_schema') IS NOT NULL AS found")).rows;
    if (r?.found) return { location, missing: null };
    return { location, missing: schema ? `schema "${schema}" holds no Mnemos store` : 'the database holds no Mnemos store (on its search path)' };
  } catch (err) {
    // A database that does not exist holds no store either; nothing was created.
    if ((err as { code?: string }).code === '3D000') return { location, missing: (err as Error).message };
    throw connectFailed(err, location);
  } finally {
    await client.end().catch(() => {});
  }
}

/** A client or the pool: anything that can run a query. */
export type Queryable = Pick<pg.Pool, 'query'> | pg.PoolClient;

export async function rows<T>(q: Queryable, text: string, values: unknown[] = []): Promise<T[]> {
  return (await q.query(text, values)).rows as T[];
}
