import { closeSync, existsSync, openSync, readdirSync, readSync, renameSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { identityDigest, legacyStoreIdentities, storeIdentity, type StoreNaming } from '../state-dir.ts';
import { adoptLegacyStateFile } from '../state-files.ts';
import { FileDurableEventLog } from '../../cognition/durable-log-file.ts';
import { VolatileEventLog, type DurableEventLog } from '../../cognition/durable-log.ts';

const safeName = (agent: string) => agent.replace(/[^A-Za-z0-9._-]/g, '_');

/** `safety-events.<agent>.<digest of the store identity>.jsonl`. */
export function safetyLogName(identity: string, agent: string): string {
  return `safety-events.${safeName(agent)}.${identityDigest(identity)}.jsonl`;
}

/** The name every store of a directory shared before the store's identity was part of it. */
export function legacySafetyLogName(agent: string): string {
  return `safety-events.${safeName(agent)}.jsonl`;
}

export interface OpenedSafetyLog {
  log: DurableEventLog;
  /** Set when a legacy shared log holds pending events this store could not claim as its own. */
  notice?: string;
}

/**
 * Opens the durable safety-event log of one agent of `store` in `dir`. An
 * in-memory store gets a volatile log: its episodes die with the process,
 * and its events must not be recovered into another store.
 *
 * A legacy log (named by agent only) is adopted when its pending events can
 * only be this store's: a SQLite file that is the only SQLite database in
 * the directory. Otherwise it is left untouched and a notice says how to
 * recover it (`mnemos cycle run --log <file>` on the right store). A log
 * that an earlier version named by a server database's URL is taken over
 * whole, `.head` and all; two logs of one store under different names are
 * refused with `conflict`, naming both (state-files.ts).
 */
export async function openSafetyLog(store: StoreNaming, dir: string, agent: string): Promise<OpenedSafetyLog> {
  const identity = storeIdentity(store);
  if (identity === null) return { log: new VolatileEventLog() };
  const path = join(dir, safetyLogName(identity, agent));
  const renamed = legacyStoreIdentities(store).map((old) => join(dir, safetyLogName(old, agent)));
  // Its `.head` (where the log last ended, log-head.ts) moves with it, or the new name would lose that check.
  const log = await FileDurableEventLog.open(adoptLegacyStateFile(path, renamed, ['.head']));
  const legacy = join(dir, legacySafetyLogName(agent));
  if (!existsSync(legacy)) return { log };
  try {
    const old = await FileDurableEventLog.open(legacy);
    const pending = await old.pending();
    await old.close();
    if (pending.length === 0) return { log };
    if (!soleSqliteStore(store, dir)) {
      return { log, notice: `${legacy} (shared by every store in ${dir} before this version) holds ${pending.length} unconsolidated safety event(s) that may belong to another store; replay them into the right one with \`mnemos cycle run <scenario> --log ${legacy}\`` };
    }
    // append is idempotent per event id, and a replayed episode is keyed by it: a crash before the rename repeats this harmlessly.
    for (const e of pending) await log.append(e);
    renameSync(legacy, `${legacy}.adopted`);
    return { log };
  } catch (err) {
    return { log, notice: `could not read the legacy safety-event log ${legacy}: ${(err as Error).message}` };
  }
}

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/** Whether `store` is a SQLite file and no other SQLite database sits beside it in `dir`. */
function soleSqliteStore(store: StoreNaming, dir: string): boolean {
  if (store.location.includes('://') || resolve(dirname(resolve(store.location))) !== resolve(dir)) return false;
  const own = basename(resolve(store.location));
  for (const name of readdirSync(dir)) {
    if (name === own || !isSqliteFile(join(dir, name))) continue;
    return false;
  }
  return true;
}

function isSqliteFile(path: string): boolean {
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(SQLITE_MAGIC);
  } catch {
    return false; // a folder, or unreadable: not a store this one could be confused with
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
