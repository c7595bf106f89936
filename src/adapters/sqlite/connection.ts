import Database from 'better-sqlite3';
import { accessSync, constants, existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MnemosError } from '../../domain/errors.ts';
import { prepareFileFolder, type FileRole } from '../../runtime/make-folders.ts';

const STORE_FILE: FileRole = { name: 'a Mnemos store', field: 'db', example: 'memory.db', fix: 'check --db / MNEMOS_DB. Nothing was created' };

/**
 * What to do when better-sqlite3's compiled module cannot be loaded: it is
 * built when it is installed, so an install with --ignore-scripts or without a
 * C++ toolchain has none (the bindings package then lists a dozen paths it
 * tried and no remedy), and one built before a Node upgrade no longer loads.
 * Empty for any other failure to open.
 */
export function nativeModuleHint(message: string): string {
  if (!/Could not locate the bindings file|NODE_MODULE_VERSION|better_sqlite3\.node/.test(message)) return '';
  return `\nbetter-sqlite3's compiled module is missing or was built for another Node.js (an install with --ignore-scripts or without a C++ toolchain, or Node upgraded since): run \`npm rebuild better-sqlite3\` in the folder that installed Mnemos (with -g for a global install), which compiles it for Node ${process.versions.node}`;
}

/**
 * Opens a database file the way every Mnemos process must, so several
 * processes can share it: WAL (readers never block the writer), a busy
 * timeout (writers wait for each other instead of failing), foreign keys on,
 * and secure_delete so a forgotten memory's bytes are overwritten, not just
 * unlinked from the b-tree.
 */
export function openDatabase(path: string, opts: { mnemosStore?: boolean } = {}): Database.Database {
  // A --db naming a folder or a path under a file is the caller's mistake; an uncreatable folder, unavailable.
  if (path !== ':memory:') {
    prepareFileFolder(path, STORE_FILE);
    refuseUnwritable(path);
  }
  let db: Database.Database;
  try {
    db = new Database(path);
  } catch (err) {
    throw new MnemosError('unavailable', `cannot open SQLite database at ${path}: ${(err as Error).message}${nativeModuleHint((err as Error).message)}`, { path }, { cause: err });
  }
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  // Before anything is set on the file: the store's own opening refuses a file that is not one of ours.
  if (opts.mnemosStore) refuseForeign(db, path);
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode loses nothing on a process crash (kill -9); only an OS crash can drop the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  db.pragma('secure_delete = ON');
  // Statement journals (a copy of each page a statement changes, kept so that the statement alone
  // can be undone) stay in memory. By default one spills to a temp file past 64 KiB, and from then
  // on every statement of the transaction writes its pages there: an import of one 50,000-line
  // file made 234,000 writes to /var/tmp, and its inserts cost twice what the same rows cost in
  // smaller transactions. The temp file also held copies of memory text outside the database,
  // where forget cannot reach them.
  db.pragma('temp_store = MEMORY');
  // SQLite's default page cache is 2 MiB: past a few hundred MB of memories every insert and
  // look-up re-reads index pages through system calls (a 1M-memory seed spent more time in the
  // kernel than in user code). A 64 MiB cache fixes that; it is per connection and only address
  // space until touched.
  db.pragma('cache_size = -65536');
  // No memory map (SQLite's default; a 1 GiB map was tried): another connection's commit empties
  // this connection's page cache, and through the map the re-reads cost far more than read()
  // calls. A search thread reading while the server writes: 20 -> 9 ms per hybrid search at 100k,
  // and 18 -> 56 searches/s beside 400-550 writes/s; cold vector loads are about 12% slower.
  db.pragma('mmap_size = 0');
  return db;
}

/**
 * Every command writes the store, even one that only reads: WAL mode needs
 * the -wal and -shm files beside it, and opening runs migrations and
 * upkeep. A store file (or its folder) this user may not write, or one on a
 * read-only disk, failed at its first write as an `internal` error, SQLite's
 * "attempt to write a readonly database" naming no file; a new store in such
 * a folder, as "unable to open database file". Checked before opening, so
 * the answer names what is not writable, and nothing is touched.
 */
function refuseUnwritable(path: string): void {
  const file = resolve(path);
  const folder = dirname(file);
  // The folder matters only for files SQLite must still create there (a new store, its -wal and -shm).
  const needed = [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f));
  if (needed.length < 3) needed.push(folder);
  for (const target of needed) {
    try {
      accessSync(target, constants.W_OK);
    } catch (err) {
      const what = target === folder ? `its folder ${folder}` : target === file ? 'the file' : target;
      throw new MnemosError(
        'unavailable',
        `cannot write the SQLite store at ${path}: ${what} is not writable (${(err as { code?: string }).code ?? (err as Error).message}); mnemos writes its store, and the -wal and -shm files beside it, even to read. Run it as a user who may write them, or copy the store somewhere writable. Nothing was changed`,
        { field: 'db', path, notWritable: target },
        { cause: err },
      );
    }
  }
}

/**
 * The file given as --db must be empty, new, or a Mnemos store: a text file
 * was an internal error, and another application's SQLite database was
 * switched to WAL and given Mnemos's tables by a command that only reads.
 * A Mnemos store has a schema version; a new or empty file has no tables.
 */
function refuseForeign(db: Database.Database, path: string): void {
  const refuse = (why: string, cause?: unknown) => {
    db.close();
    throw new MnemosError('validation_failed', `${path} is not a Mnemos store (${why}); check --db / MNEMOS_DB. Nothing was changed`, { field: 'db', path }, { cause });
  };
  let version: number;
  try {
    version = db.pragma('user_version', { simple: true }) as number;
  } catch (err) {
    // The first read of the file.
    if ((err as { code?: string }).code === 'SQLITE_NOTADB') refuse('not an SQLite database', err);
    throw err;
  }
  if (version > 0) return;
  const tables = db.prepare("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").get() as { n: number };
  if (tables.n > 0) refuse(`an SQLite database of another application: ${tables.n} table${tables.n === 1 ? '' : 's'} and no Mnemos schema`);
}

const BUSY_CODES = new Set(['SQLITE_BUSY', 'SQLITE_BUSY_SNAPSHOT', 'SQLITE_LOCKED']);

/** How long a write waits for another process's lock in all, as PostgreSQL's default ?lock_timeout=. */
export const BUSY_TIMEOUT_MS = 10_000;
/** A write's wait for the lock inside SQLite, per attempt: the thread is blocked meanwhile. */
const WAIT_STEP_MS = 50;

const budgets = new WeakMap<Database.Database, number>();

/** A connection's own total wait (tests shorten it); BUSY_TIMEOUT_MS otherwise. */
export function setBusyBudget(db: Database.Database, ms: number): void {
  budgets.set(db, ms);
  db.pragma(`busy_timeout = ${ms}`);
}

const isBusy = (err: unknown) => {
  const code = (err as { code?: string }).code;
  return code !== undefined && BUSY_CODES.has(code);
};

const busyError = (waitedMs: number, cause: unknown) =>
  new MnemosError('busy', `the database stayed locked by another process for ${Math.round(waitedMs / 1000)} s; try again`, { waitedMs }, { cause });

/**
 * Runs a write that may meet another process's lock, waiting at most the
 * connection's budget (10 s) in all. SQLite waits inside the call, blocking
 * the thread; so each attempt waits only WAIT_STEP_MS there, and the pauses
 * between attempts yield to the event loop. Before, eight attempts of a
 * 10-s busy timeout each made a write wait 82 s behind a long import while
 * `mnemos serve` answered nothing, not even /healthz.
 */
export async function writeWithRetry<T>(db: Database.Database, fn: () => T): Promise<T> {
  const budget = budgets.get(db) ?? BUSY_TIMEOUT_MS;
  const start = Date.now();
  for (let i = 0; ; i++) {
    let pause = 0;
    db.pragma(`busy_timeout = ${WAIT_STEP_MS}`);
    try {
      return fn();
    } catch (err) {
      pause = pauseAfter(err, start, budget, i, 200);
    } finally {
      // Restored before the pause: whatever else runs meanwhile waits as usual.
      db.pragma(`busy_timeout = ${budget}`);
    }
    await new Promise((r) => setTimeout(r, pause));
  }
}

/** After a failed attempt: how long to pause before the next (backing off, up to `cap` ms), or the error to give up with. */
function pauseAfter(err: unknown, start: number, budget: number, attempt: number, cap: number): number {
  if (!isBusy(err)) throw err;
  const waited = Date.now() - start;
  if (waited >= budget) throw busyError(waited, err);
  return Math.min(budget - waited, Math.min(cap, 5 * 2 ** attempt) * (0.5 + Math.random()));
}

/**
 * The same for the few writes that cannot wait asynchronously (the schema
 * migration while a store opens): the busy timeout blocks, and the whole
 * wait is still bounded by the budget.
 */
export function withBusyRetry<T>(fn: () => T, budget = BUSY_TIMEOUT_MS): T {
  const start = Date.now();
  for (let i = 0; ; i++) {
    try {
      return fn();
    } catch (err) {
      sleepSync(pauseAfter(err, start, budget, i, 1000));
    }
  }
}

/**
 * Upkeep that is only an optimisation (fresh planner statistics, a WAL
 * checkpoint): tried once without waiting for a lock, and skipped when the
 * database is busy. With the busy timeout still set, closing a store another
 * process was writing ran `PRAGMA optimize` into a 10-s wait, so every
 * command against a busy store took 10 s longer to exit.
 */
export function ifNotBusy(db: Database.Database, fn: () => void): void {
  const wait = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    fn();
  } catch (err) {
    if (!isBusy(err)) throw err;
  } finally {
    db.pragma(`busy_timeout = ${wait}`);
  }
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
