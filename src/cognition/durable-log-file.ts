import { closeSync, existsSync, fdatasyncSync, fsyncSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Clock } from './blackboard-types.ts';
import type { DurableEventLog, SettledOutcome } from './durable-log.ts';
import type { EpisodicEvent } from './episodic-event.ts';
import { freezeJson } from './json.ts';
import { makeFolders } from '../runtime/make-folders.ts';

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

const recordSchema = z.discriminatedUnion('type', [
  z.object({ v: z.literal(1), type: z.literal('event'), event: eventSchema }),
  z.object({ v: z.literal(1), type: z.literal('settled'), outcome: z.enum(['consolidated', 'blocked']), ids: z.array(z.string()), at: z.string() }),
]);
type LogRecord = z.infer<typeof recordSchema>;

/**
 * The durable event log as an append-only JSONL file. Each record is one
 * `write` followed by `fdatasync` before `append` returns. The I/O is done
 * synchronously on purpose: the event is on disk by the time the call that
 * captured it (a blackboard write) returns, not at some later await.
 *
 * A crash can leave a torn last line (a prefix of a record, or zeros after a
 * power cut). Those bytes were never acknowledged, so `open` cuts them off; an
 * unreadable line followed by good ones is real corruption and is refused.
 * One process writes a log at a time.
 */
export class FileDurableEventLog implements DurableEventLog {
  private readonly open = new Map<string, EpisodicEvent>();
  private fd: number | null;
  private size: number;

  private constructor(
    readonly path: string,
    private readonly clock: Clock,
    fd: number,
    size: number,
    pending: EpisodicEvent[],
    /** Bytes cut off a torn tail when the log was opened. */
    readonly repairedBytes: number,
  ) {
    this.fd = fd;
    this.size = size;
    for (const e of pending) this.open.set(e.eventId, e);
  }

  static async open(path: string, options: { clock?: Clock } = {}): Promise<FileDurableEventLog> {
    const existed = existsSync(path);
    if (!existed) makeFolders(dirname(path));
    const text = existed ? readFileSync(path, 'utf8') : '';
    const { records, goodBytes } = parseLog(text, path);
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
    return new FileDurableEventLog(path, options.clock ?? Date.now, fd, goodBytes, [...pending.values()], totalBytes - goodBytes);
  }

  async append(event: EpisodicEvent): Promise<void> {
    if (this.open.has(event.eventId)) return;
    this.write({ v: 1, type: 'event', event });
    this.open.set(event.eventId, event);
  }

  async pending(): Promise<EpisodicEvent[]> {
    return [...this.open.values()];
  }

  async markConsolidated(ids: readonly string[], outcome: SettledOutcome = 'consolidated'): Promise<void> {
    const known = ids.filter((id) => this.open.has(id));
    if (known.length === 0) return;
    this.write({ v: 1, type: 'settled', outcome, ids: known, at: new Date(this.clock()).toISOString() });
    for (const id of known) this.open.delete(id);
  }

  async close(): Promise<void> {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private write(record: { v: 1; type: LogRecord['type'] } & Record<string, unknown>): void {
    if (this.fd === null) throw new MnemosError('unavailable', `durable event log ${this.path} is closed`);
    const bytes = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
    try {
      let done = 0;
      while (done < bytes.length) done += writeSync(this.fd, bytes, done);
      fdatasyncSync(this.fd);
      this.size += bytes.length;
    } catch (cause) {
      // Cut a partial record off so the next append does not glue onto it.
      try {
        ftruncateSync(this.fd, this.size);
      } catch {
        // Reopening will treat the remainder as a torn tail.
      }
      throw new MnemosError('unavailable', `could not write durable event log ${this.path}: ${(cause as Error).message}`, { path: this.path }, { cause });
    }
  }
}

/** Parses complete records; returns how many leading bytes are good. */
function parseLog(text: string, path: string): { records: LogRecord[]; goodBytes: number } {
  const records: LogRecord[] = [];
  let goodBytes = 0;
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
      records.push(record);
      goodBytes += Buffer.byteLength(text.slice(offset, end), 'utf8');
    }
    offset = end;
  }
  return { records, goodBytes };
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
  const parsed = recordSchema.safeParse(json);
  if (parsed.success) return parsed.data;
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
