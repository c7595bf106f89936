import { closeSync, existsSync, fdatasyncSync, fstatSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Clock } from './blackboard-types.ts';
import type { DurableEventLog, SettledOutcome } from './durable-log.ts';
import type { EpisodicEvent } from './episodic-event.ts';
import { freezeJson } from './json.ts';
import { makeFolders } from '../runtime/make-folders.ts';
import { CHAIN_START, chainLine, link, splitChained } from './log-chain.ts';
import { acquireLogLock, releaseLogLock } from './log-lock.ts';
import { dropStaleHead, headPath, readHead, writeHead } from './log-head.ts';

const eventSchema = z.object({
  eventId: z.string().min(1),
  blackboardKey: z.string().min(1),
  valueSnapshot: z.json(),
  salience: z.number(),
  tick: z.number(),
  timestamp: z.string(),
  sourceModule: z.string(),
  tags: z.array(z.string()),
  alwaysConsolidate: z.boolean(),
  consolidated: z.boolean(),
});

const settledFields = { outcome: z.enum(['consolidated', 'blocked']), ids: z.array(z.string()), at: z.string() };
/** Version 1: written before the hash chain; read, never written. */
const legacySchema = z.discriminatedUnion('type', [
  z.object({ v: z.literal(1), type: z.literal('event'), event: eventSchema }),
  z.object({ v: z.literal(1), type: z.literal('settled'), ...settledFields }),
]);
/** Version 2: version 1 plus `h`, the record's link in the hash chain (log-chain.ts). */
const chainedSchema = z.discriminatedUnion('type', [
  z.object({ v: z.literal(2), type: z.literal('event'), event: eventSchema, h: z.string() }),
  z.object({ v: z.literal(2), type: z.literal('settled'), ...settledFields, h: z.string() }),
]);
type LogRecord = z.infer<typeof legacySchema> | z.infer<typeof chainedSchema>;
type NewRecord = { type: 'event'; event: EpisodicEvent } | { type: 'settled'; outcome: SettledOutcome; ids: string[]; at: string };

/**
 * The durable event log as an append-only JSONL file. Each record is one
 * `write` followed by `fdatasync` before `append` returns. The I/O is done
 * synchronously on purpose: the event is on disk by the time the call that
 * captured it (a blackboard write) returns, not at some later await.
 *
 * A crash can leave a torn last line (a prefix of a record, or zeros after a
 * power cut). Those bytes were never acknowledged, so `open` cuts them off; an
 * unreadable line followed by good ones is real corruption and is refused.
 *
 * Each record carries its link in a hash chain (log-chain.ts), checked on
 * open: a pending event edited, or a line removed, between capture and sleep
 * is refused as `corrupt` instead of being consolidated as if it were true.
 * One process writes a log at a time, enforced by a lock file (log-lock.ts).
 */
export class FileDurableEventLog implements DurableEventLog {
  private readonly open = new Map<string, EpisodicEvent>();
  private fd: number | null;
  private size: number;
  private head: string;

  private constructor(
    readonly path: string,
    private readonly clock: Clock,
    fd: number,
    size: number,
    head: string,
    private lines: number,
    private readonly lockPath: string,
    pending: EpisodicEvent[],
    /** Bytes cut off a torn tail when the log was opened. */
    readonly repairedBytes: number,
  ) {
    this.fd = fd;
    this.size = size;
    this.head = head;
    for (const e of pending) this.open.set(e.eventId, e);
  }

  static async open(path: string, options: { clock?: Clock } = {}): Promise<FileDurableEventLog> {
    if (!existsSync(path)) makeFolders(dirname(path));
    // Locked before reading: another writer's half-written line is not a torn tail to cut off.
    const lockPath = acquireLogLock(path);
    try {
      // Looked at under the lock: the last holder may have created the file since.
      const existed = existsSync(path);
      if (!existed) dropStaleHead(path);
      const text = existed ? readFileSync(path, 'utf8') : '';
      const { records, goodBytes, head, links } = parseLog(text, path);
      checkEnd(path, links);
      const totalBytes = Buffer.byteLength(text, 'utf8');
      const fd = openSync(path, 'a');
      if (goodBytes < totalBytes) {
        ftruncateSync(fd, goodBytes);
        fsyncSync(fd);
      }
      // A new file is only durable once its directory entry is.
      if (!existed) fsyncDir(dirname(path));
      const pending = new Map<string, EpisodicEvent>();
      for (const r of records) {
        if (r.type === 'event') pending.set(r.event.eventId, { ...r.event, valueSnapshot: freezeJson(r.event.valueSnapshot) });
        else for (const id of r.ids) pending.delete(id);
      }
      return new FileDurableEventLog(path, options.clock ?? Date.now, fd, goodBytes, head, links.length, lockPath, [...pending.values()], totalBytes - goodBytes);
    } catch (err) {
      releaseLogLock(lockPath);
      throw err;
    }
  }

  async append(event: EpisodicEvent): Promise<void> {
    if (this.open.has(event.eventId)) return;
    this.write({ type: 'event', event });
    this.open.set(event.eventId, event);
  }

  async pending(): Promise<EpisodicEvent[]> {
    return [...this.open.values()];
  }

  async markConsolidated(ids: readonly string[], outcome: SettledOutcome = 'consolidated'): Promise<void> {
    const known = ids.filter((id) => this.open.has(id));
    if (known.length === 0) return;
    this.write({ type: 'settled', outcome, ids: known, at: new Date(this.clock()).toISOString() });
    for (const id of known) this.open.delete(id);
  }

  async close(): Promise<void> {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
    releaseLogLock(this.lockPath);
  }

  private write(record: NewRecord): void {
    if (this.fd === null) throw new MnemosError('unavailable', `durable event log ${this.path} is closed`);
    // Another handle of this process (the lock keeps other processes out) wrote since this one
    // last did: appending would fork the chain and corrupt the log.
    if (fstatSync(this.fd).size !== this.size) {
      throw new MnemosError('conflict', `durable event log ${this.path} was written by another handle since this one opened it; only one handle may write a log: close the others and reopen it`, { path: this.path });
    }
    const { line, head } = chainLine(this.head, JSON.stringify({ v: 2, ...record }));
    const bytes = Buffer.from(`${line}\n`, 'utf8');
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.fd, bytes, done);
      fdatasyncSync(this.fd);
      this.size += bytes.length;
      this.head = head;
      this.lines += 1;
    } catch (cause) {
      // Cut a partial record off so the next append does not glue onto it.
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // Reopening will treat the remainder as a torn tail.
      }
      throw new MnemosError('unavailable', `could not write durable event log ${this.path}: ${(cause as Error).message}`, { path: this.path }, { cause });
    }
    try {
      writeHead(this.path, { lines: this.lines, h: this.head });
    } catch {
      // The record itself is durable; a head left behind only lags, which open accepts.
    }
  }
}

/** Parses complete records; returns how many leading bytes are good. */
function parseLog(text: string, path: string): { records: LogRecord[]; goodBytes: number; head: string; links: string[] } {
  const records: LogRecord[] = [];
  /** The chain link after each good line. */
  const links: string[] = [];
  let goodBytes = 0;
  let head = CHAIN_START;
  let chained = false;
  let offset = 0;
  let lineNo = 0;
  let badLine = 0;
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl === -1 ? text.length : nl + 1;
    const line = text.slice(offset, nl === -1 ? text.length : nl);
    lineNo += 1;
    const record = nl === -1 ? undefined : parseRecord(line);
    if (record === FOREIGN) {
      // Whole JSON that is not a record this version knows (a newer version's, or one edited by hand):
      // never torn, since a torn write is not whole JSON. Cutting it off as a torn tail deleted it unseen.
      throw new MnemosError('corrupt', `durable event log ${path} has a record this version does not know at line ${lineNo} (written by a newer version, or edited); nothing was changed: inspect it or move the file aside`, {
        path,
        line: lineNo,
      });
    }
    if (record === undefined) {
      if (badLine === 0) badLine = lineNo;
    } else {
      if (badLine !== 0) {
        throw new MnemosError('corrupt', `durable event log ${path} has an unreadable record at line ${badLine} followed by valid ones; inspect or move the file aside`, {
          path,
          line: badLine,
        });
      }
      if (record.v === 1) {
        // Written before chains: accepted only ahead of the first chained line, which then covers it.
        if (chained) throw brokenChain(path, lineNo, 'is an unchained record after chained ones');
        head = link(head, line);
      } else {
        const parts = splitChained(line);
        if (parts === null || parts.h !== record.h || link(head, parts.body) !== record.h) {
          throw brokenChain(path, lineNo, 'does not match its hash');
        }
        head = record.h;
        chained = true;
      }
      records.push(record);
      links.push(head);
      goodBytes += Buffer.byteLength(text.slice(offset, end), 'utf8');
    }
    offset = end;
  }
  return { records, goodBytes, head, links };
}

/** Refuses a log that ends before the end its head file recorded (lines removed from its end). */
function checkEnd(path: string, links: readonly string[]): void {
  const end = readHead(path);
  if (end === null || end.lines === 0) return;
  if (links.length < end.lines || links[end.lines - 1] !== end.h) {
    const line = Math.min(links.length + 1, end.lines);
    throw new MnemosError(
      'corrupt',
      `durable event log ${path} does not end as it was last written: ${headPath(path)} records ${end.lines} line(s) and it has ${links.length}, so lines were removed from its end (or replaced) from line ${line} on. Nothing was changed and nothing will be consolidated from it: restore the log from a backup, or move it aside to start a new log (its pending safety events are then not consolidated)`,
      { path, line, expectedLines: end.lines },
    );
  }
}

function brokenChain(path: string, line: number, what: string): MnemosError {
  return new MnemosError(
    'corrupt',
    `durable event log ${path} fails its hash chain at line ${line}: the line ${what} (it was edited, or a line before it was changed or removed, after it was written). Nothing was changed and nothing will be consolidated from it: restore the file from a backup, or move it aside to start a new log (its pending safety events are then not consolidated)`,
    { path, line },
  );
}

const FOREIGN = Symbol('foreign record');

/** A record; FOREIGN for a whole JSON object that is not one; undefined for what is not JSON (torn, zeros, garbage). */
function parseRecord(line: string): LogRecord | typeof FOREIGN | undefined {
  if (line.trim() === '') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return undefined;
  }
  const chained = chainedSchema.safeParse(json);
  if (chained.success) return chained.data;
  const legacy = legacySchema.safeParse(json);
  if (legacy.success) return legacy.data;
  return json !== null && typeof json === 'object' && !Array.isArray(json) ? FOREIGN : undefined;
}

function fsyncDir(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot fsync a directory; the file itself is still synced.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
