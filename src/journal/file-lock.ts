import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { MnemosError } from '../domain/errors.ts';

/**
 * A lock file that serialises journal writers across processes, with no
 * native dependency. Acquire = create `<path>` with O_EXCL and write our pid,
 * host and a random token. A lock whose pid is dead on this host is stale
 * (its holder crashed or was killed) and gets broken. Two waiters may both
 * see the same stale lock, so breaking goes through a second O_EXCL file
 * (`<path>.break`): the breaker re-reads the lock under it and removes it
 * only if it is still the exact stale content, never a fresh lock a faster
 * waiter just took. Release removes the lock only if it still holds our token.
 */

export interface LockOptions {
  /** Give up with a `busy` error after this long. */
  timeoutMs?: number;
  /** Pause between attempts (a little jitter is added). */
  retryMs?: number;
  /** A lock file we cannot read (its writer died between create and write) is stale after this age. */
  unreadableStaleMs?: number;
  /**
   * A lock older than this is stale even if its pid is alive: journal writers
   * hold it for milliseconds, so a live pid this old has been reused by an
   * unrelated process. Default 10 minutes.
   */
  maxHoldMs?: number;
}

export interface HeldLock {
  readonly path: string;
  readonly token: string;
  /** Set when a stale lock had to be broken to get this one. */
  readonly brokeStale: boolean;
}

interface LockBody {
  pid: number;
  host: string;
  token: string;
  at: string;
}

export async function acquireLock(path: string, options: LockOptions = {}): Promise<HeldLock> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const retryMs = options.retryMs ?? 5;
  const deadline = Date.now() + timeoutMs;
  const token = randomBytes(12).toString('hex');
  const body: LockBody = { pid: process.pid, host: hostname(), token, at: new Date().toISOString() };
  let brokeStale = false;
  for (;;) {
    if (tryCreate(path, JSON.stringify(body))) return { path, token, brokeStale };
    const seen = readLock(path);
    if (seen !== null && isStale(seen, path, options) && breakStale(path, seen.raw)) {
      brokeStale = true;
      continue;
    }
    if (Date.now() >= deadline) {
      throw new MnemosError('busy', `journal lock ${path} is still held after ${timeoutMs} ms${seen?.body ? ` (by pid ${seen.body.pid} on ${seen.body.host})` : ''}; retry later or remove the lock if that process is gone`, { lockPath: path });
    }
    await sleep(retryMs + Math.floor(Math.random() * retryMs));
  }
}

export function releaseLock(lock: HeldLock): void {
  const seen = readLock(lock.path);
  if (seen?.body?.token !== lock.token) return; // broken by someone else; never remove another holder's lock
  try {
    unlinkSync(lock.path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}

export async function withLock<T>(path: string, options: LockOptions, fn: (lock: HeldLock) => Promise<T> | T): Promise<T> {
  const lock = await acquireLock(path, options);
  try {
    return await fn(lock);
  } finally {
    releaseLock(lock);
  }
}

function tryCreate(path: string, content: string): boolean {
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o644);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new MnemosError('unavailable', `cannot create lock file ${path}: ${(err as Error).message}`, { lockPath: path }, { cause: err });
  }
  try {
    writeSync(fd, content);
  } finally {
    closeSync(fd);
  }
  return true;
}

interface SeenLock {
  raw: string;
  body: LockBody | null;
}

function readLock(path: string): SeenLock | null {
  let raw: string;
  try {
    raw = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const body = JSON.parse(raw) as LockBody;
    return typeof body.pid === 'number' && typeof body.token === 'string' ? { raw, body } : { raw, body: null };
  } catch {
    return { raw, body: null };
  }
}

function isStale(seen: SeenLock, path: string, options: LockOptions): boolean {
  if (seen.body === null) return ageMs(path) > (options.unreadableStaleMs ?? 10_000);
  // Another host's pid means nothing here; only time would tell, so wait for the timeout instead.
  if (seen.body.host !== hostname()) return false;
  return !pidAlive(seen.body.pid) || ageMs(path) > (options.maxHoldMs ?? 600_000);
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function ageMs(path: string): number {
  try {
    return Date.now() - statSync(path).mtimeMs;
  } catch {
    return 0;
  }
}

/** Removes the lock only if it still holds `staleRaw`; true when it did. */
function breakStale(path: string, staleRaw: string): boolean {
  const breakPath = path + '.break';
  const mine = JSON.stringify({ pid: process.pid, host: hostname(), token: randomBytes(8).toString('hex'), at: new Date().toISOString() });
  if (!tryCreate(breakPath, mine)) {
    // A breaker that died mid-break leaves its file behind; clear it the same way.
    const other = readLock(breakPath);
    if (other !== null && isStale(other, breakPath, { unreadableStaleMs: 2_000, maxHoldMs: 60_000 })) safeUnlink(breakPath);
    return false;
  }
  try {
    const again = readLock(path);
    if (again === null || again.raw !== staleRaw) return false;
    safeUnlink(path);
    return true;
  } finally {
    safeUnlink(breakPath);
  }
}

function safeUnlink(path: string): void {
  try {
    unlinkSync(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
}
