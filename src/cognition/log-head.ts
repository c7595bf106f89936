import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { MnemosError } from '../domain/errors.ts';

/**
 * The durable log's last known end: `<log>.head` holds how many lines the log
 * had and the chain link of the last one. The hash chain alone cannot tell a
 * log whose last lines were removed from one that was never longer; this can.
 *
 * It is written after the log line is synced, so a crash leaves it at most
 * behind the log, never ahead: a log longer than its head is fine, a shorter
 * one (or one whose line `lines` has another link) lost lines from its end.
 */
export interface LogHead {
  lines: number;
  h: string;
}

export const headPath = (logPath: string) => `${logPath}.head`;

export function readHead(logPath: string): LogHead | null {
  const path = headPath(logPath);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new MnemosError('unavailable', `could not read ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  try {
    const head = JSON.parse(text) as Partial<LogHead>;
    if (typeof head.lines === 'number' && Number.isInteger(head.lines) && head.lines >= 0 && typeof head.h === 'string') return { lines: head.lines, h: head.h };
  } catch {
    // Falls through to the error below.
  }
  throw new MnemosError('corrupt', `${path} (the last known end of durable event log ${logPath}) is unreadable; nothing was changed: restore it from a backup, or move the log and it aside to start a new log`, { path });
}

/** Replaces the head atomically (write, sync, rename); a crash leaves the old one, which only lags. */
export function writeHead(logPath: string, head: LogHead): void {
  const path = headPath(logPath);
  const tmp = `${path}.${process.pid}.tmp`;
  const fd = openSync(tmp, 'w');
  try {
    writeSync(fd, JSON.stringify(head));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/** A head left beside a log that was moved aside belongs to that log, not to the new one. */
export function dropStaleHead(logPath: string): void {
  const path = headPath(logPath);
  if (!existsSync(logPath) && existsSync(path)) unlinkSync(path);
}
