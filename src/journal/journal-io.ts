import { closeSync, existsSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, readSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { MnemosError } from '../domain/errors.ts';

/**
 * The few durable file operations the journal needs, all synchronous so they
 * run back to back inside the lock with nothing interleaved.
 */

export interface FileState {
  size: number;
  dev: number;
  ino: number;
}

export function statFile(path: string): FileState | null {
  if (!existsSync(path)) return null;
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    return { size: st.size, dev: st.dev, ino: st.ino };
  } finally {
    closeSync(fd);
  }
}

/** Bytes from `offset` to the current end of the file. */
export function readFrom(path: string, offset: number): { bytes: Buffer; state: FileState } {
  const fd = openSync(path, 'r');
  try {
    const st = fstatSync(fd);
    const length = Math.max(0, st.size - offset);
    const bytes = Buffer.alloc(length);
    let done = 0;
    while (done < length) {
      const n = readSync(fd, bytes, done, length - done, offset + done);
      if (n === 0) break;
      done += n;
    }
    return { bytes: bytes.subarray(0, done), state: { size: offset + done, dev: st.dev, ino: st.ino } };
  } finally {
    closeSync(fd);
  }
}

/**
 * Appends `data` and fsyncs before returning. If the write fails part-way
 * (disk full), the file is cut back to its old length so a failed append
 * leaves it byte-identical. Returns the new size.
 */
export function appendDurably(path: string, data: Buffer, expectedSize: number): number {
  const created = !existsSync(path);
  const fd = openSync(path, 'a', 0o644);
  try {
    const before = fstatSync(fd).size;
    if (before !== expectedSize) {
      throw new MnemosError('conflict', `journal ${path} changed size under the lock (${before} != ${expectedSize} bytes); another writer is not using the lock`);
    }
    try {
      let done = 0;
      while (done < data.length) done += writeSync(fd, data, done, data.length - done);
      fsyncSync(fd);
    } catch (err) {
      ftruncateSync(fd, before);
      fsyncSync(fd);
      throw new MnemosError('unavailable', `append to ${path} failed and was rolled back: ${(err as Error).message}`, undefined, { cause: err });
    }
    return before + data.length;
  } finally {
    closeSync(fd);
    if (created) fsyncDir(dirname(path));
  }
}

/** Cuts the file to `size` bytes and makes that durable (torn-tail repair). */
export function truncateDurably(path: string, size: number): void {
  const fd = openSync(path, 'r+');
  try {
    ftruncateSync(fd, size);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Makes a new directory entry durable; some platforms refuse fsync on directories, which is harmless. */
export function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // not supported here; the data itself is already synced
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * A batch append's intent: where the journal ended before it and how many
 * bytes it adds. Written and fsynced before the append, removed after it:
 * one found by the next writer means the appender died, and a batch that is
 * not all on disk is cut back whole (records of it that did land included).
 */
export interface BatchIntent {
  from: number;
  bytes: number;
  records: number;
}

export function writeIntent(path: string, intent: BatchIntent): void {
  const fd = openSync(path, 'w', 0o644);
  try {
    writeSync(fd, JSON.stringify(intent));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  fsyncDir(dirname(path));
}

/** The intent left at `path`, or null. An unreadable one (cut short while written) means no append had begun. */
export function readIntent(path: string): BatchIntent | null {
  if (!existsSync(path)) return null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as BatchIntent;
    return Number.isSafeInteger(v.from) && Number.isSafeInteger(v.bytes) ? v : null;
  } catch {
    return null;
  }
}

export function removeIntent(path: string): void {
  rmSync(path, { force: true });
  fsyncDir(dirname(path));
}
