import { linkSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { MnemosError } from '../domain/errors.ts';

/**
 * One writer per durable event log, across processes. Two processes appending
 * to one log (a `mnemos serve --cycle-tick-ms` and a `mnemos cycle run` of the
 * same agent and store) each kept their own idea of which events were pending
 * and where the file ended: one could cut the other's half-written line off as
 * a torn tail, and their hash chains forked so the log read as corrupt.
 *
 * The lock is a `<log>.lock` file created exclusively, holding the owner's pid
 * and host. A lock whose process is gone (killed, crashed) is stale and taken
 * over, so a SIGKILL never leaves the log locked for good. Within one process
 * the lock is shared by every handle on the log (a reader beside the writer);
 * the log itself refuses a write from a handle the file moved on under.
 */
interface Holder {
  pid: number;
  host: string;
  at: string;
}

const held = new Map<string, number>();
let exitHookSet = false;

export function acquireLogLock(logPath: string): string {
  const lockPath = `${logPath}.lock`;
  const count = held.get(lockPath);
  if (count !== undefined) {
    held.set(lockPath, count + 1);
    return lockPath;
  }
  // The holder is written to a private file first and linked into place, so a
  // lock file is never seen half-written: link fails if the lock exists.
  const mine = `${lockPath}.${process.pid}.${Date.now()}`;
  writeFileSync(mine, JSON.stringify({ pid: process.pid, host: hostname(), at: new Date().toISOString() } satisfies Holder));
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(mine, lockPath);
        break;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new MnemosError('unavailable', `could not lock durable event log ${logPath}: ${(err as Error).message}`, { path: lockPath }, { cause: err });
        }
      }
      const holder = readHolder(lockPath);
      if (holder !== null && isAlive(holder)) {
        throw new MnemosError(
          'busy',
          `durable event log ${logPath} is in use by process ${holder.pid} on ${holder.host} (since ${holder.at}); only one process may write an agent's safety log: stop that process or let it finish, then retry. If no such process is running, delete ${lockPath}`,
          { path: logPath, lock: lockPath, pid: holder.pid, host: holder.host },
        );
      }
      if (attempt >= 2) {
        throw new MnemosError('busy', `durable event log ${logPath} could not be locked: ${lockPath} keeps changing hands; retry`, { path: logPath, lock: lockPath });
      }
      // Stale (its process is gone) or unreadable (written by hand): take it over.
      try {
        unlinkSync(lockPath);
      } catch {
        // Someone else took it over first; the next attempt sees theirs.
      }
    }
  } finally {
    try {
      unlinkSync(mine);
    } catch {
      // Nothing to clean up.
    }
  }
  held.set(lockPath, 1);
  if (!exitHookSet) {
    exitHookSet = true;
    // A process that ends without closing its logs leaves no lock behind to explain.
    process.on('exit', () => {
      for (const path of held.keys()) removeOwn(path);
    });
  }
  return lockPath;
}

export function releaseLogLock(lockPath: string): void {
  const count = held.get(lockPath);
  if (count === undefined) return;
  if (count > 1) {
    held.set(lockPath, count - 1);
    return;
  }
  held.delete(lockPath);
  removeOwn(lockPath);
}

function removeOwn(lockPath: string): void {
  const holder = readHolder(lockPath);
  if (holder === null || holder.pid !== process.pid || holder.host !== hostname()) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // Already gone.
  }
}

function readHolder(lockPath: string): Holder | null {
  try {
    const h = JSON.parse(readFileSync(lockPath, 'utf8')) as Partial<Holder>;
    if (typeof h.pid !== 'number' || !Number.isInteger(h.pid) || h.pid <= 0) return null;
    return { pid: h.pid, host: typeof h.host === 'string' ? h.host : '?', at: typeof h.at === 'string' ? h.at : '?' };
  } catch {
    return null;
  }
}

function isAlive(h: Holder): boolean {
  // A lock from another host cannot be checked from here: assume its holder lives.
  if (h.host !== hostname()) return true;
  // Our own pid but not in `held`: a dead process whose pid this one was given.
  if (h.pid === process.pid) return false;
  try {
    process.kill(h.pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
