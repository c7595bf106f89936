import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Copies the write-ahead log back into the database file on a worker thread,
 * so that a write transaction never waits for it.
 *
 * SQLite's own auto-checkpoint runs inside the COMMIT that crosses 1,000 WAL
 * pages: that commit copies every page and syncs the database file before it
 * returns. A SLEEP flush of 1,000 episodes writes about 330 pages, so every
 * third flush paid 20-30 ms for pages the two before it wrote. A PASSIVE
 * checkpoint from a second connection does the same work beside the writer
 * (WAL lets both proceed) and, on a machine with a spare core, off the clock.
 *
 * Durability is unchanged: commits are in the WAL before they are
 * acknowledged, and a checkpoint killed half-way is redone from the WAL.
 *
 * The worker starts only once the log has reached the auto-checkpoint size,
 * so a short command or a small test store never starts a thread. From then
 * on SQLite's own checkpoint stays on at a much larger size as a safety net
 * (for writes that never nudge the worker, or a worker that falls behind).
 */
export class BackgroundCheckpointer {
  private worker: Worker | null = null;
  private inFlight = false;
  private wanted = false;
  private timer: NodeJS.Timeout | null = null;
  private lastStart = 0;
  private disabled = false;
  private exited: Promise<void> | null = null;

  constructor(
    private readonly db: Database.Database,
    private readonly path: string,
    private readonly options: CheckpointerOptions = {},
  ) {}

  /** Call after a write transaction commits. Cheap: one stat until the worker runs, a message after. */
  afterCommit(): void {
    if (this.disabled) return;
    if (!this.worker) {
      if (this.walBytes() < this.startBytes()) return;
      this.start();
      if (!this.worker) return;
    }
    this.wanted = true;
    this.pump();
  }

  /** Stops the worker after its current checkpoint; the caller's close checkpoints what is left. */
  async close(): Promise<void> {
    this.disabled = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const w = this.worker;
    if (!w) return;
    this.worker = null; // its exit is expected now, not a failure
    w.ref();
    w.postMessage('close');
    await this.exited;
    this.wake();
  }

  /** Resolves once no checkpoint is running or waiting (tests, and callers that want the file up to date). */
  settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    // A caller waits: the interval timer must keep the process alive until the checkpoint it delays has run
    // (unreferenced, the event loop could end with the caller's promise still pending).
    this.timer?.ref();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private waiters: Array<() => void> = [];

  private idle(): boolean {
    return !this.worker || (!this.inFlight && !this.wanted && !this.timer);
  }

  private wake(): void {
    if (!this.idle()) return;
    const ws = this.waiters;
    this.waiters = [];
    for (const w of ws) w();
  }

  /** Whether the worker is running (for status and tests). */
  get active(): boolean {
    return this.worker !== null;
  }

  private start(): void {
    let worker: Worker;
    try {
      const driver = createRequire(import.meta.url).resolve('better-sqlite3');
      worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, path: this.path } });
    } catch {
      this.disabled = true; // SQLite's own checkpoint keeps working as before
      return;
    }
    worker.unref();
    this.exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (m: { error: string | null }) => {
      this.inFlight = false;
      if (this.worker === worker) worker.unref(); // when closing, stay referenced until it exits
      if (m.error) this.fallBack();
      else this.pump();
      this.wake();
    });
    worker.on('error', () => this.fallBack());
    worker.on('exit', () => {
      if (this.worker === worker) this.fallBack();
    });
    this.worker = worker;
    const safetyNet = this.options.safetyNetPages ?? SAFETY_NET_PAGES;
    this.db.pragma(`wal_autocheckpoint = ${safetyNet}`);
    // Without a limit the log file keeps the largest size it ever reached.
    this.db.pragma(`journal_size_limit = ${safetyNet * this.pageSize()}`);
  }

  /** One checkpoint at a time, and not more often than every `minIntervalMs`: small writes share one. */
  private pump(): void {
    if (!this.worker || this.inFlight || !this.wanted || this.timer) return;
    const wait = this.lastStart + (this.options.minIntervalMs ?? MIN_INTERVAL_MS) - Date.now();
    if (wait > 0) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.pump();
      }, wait);
      if (this.waiters.length === 0) this.timer.unref();
      return;
    }
    this.wanted = false;
    this.inFlight = true;
    this.lastStart = Date.now();
    // Held open while a checkpoint runs (milliseconds), so its answer is not lost; idle, it never keeps the process alive.
    this.worker.ref();
    this.worker.postMessage('checkpoint');
  }

  /** The worker failed: go back to SQLite's inline checkpoint, which loses nothing. */
  private fallBack(): void {
    const w = this.worker;
    this.worker = null;
    this.disabled = true;
    this.inFlight = false;
    try {
      if (this.db.open) this.db.pragma('wal_autocheckpoint = 1000');
    } catch {
      // closing
    }
    if (w) void w.terminate();
    this.wake();
  }

  private walBytes(): number {
    return statSync(`${this.path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
  }

  private startBytesCache = 0;
  private startBytes(): number {
    return (this.startBytesCache ||= (this.options.startPages ?? (this.db.pragma('wal_autocheckpoint', { simple: true }) as number)) * this.pageSize());
  }

  private pageSizeCache = 0;
  private pageSize(): number {
    return (this.pageSizeCache ||= this.db.pragma('page_size', { simple: true }) as number);
  }
}

export interface CheckpointerOptions {
  /** WAL size (pages) at which the worker starts; default SQLite's auto-checkpoint size. */
  startPages?: number;
  /** SQLite's inline checkpoint once the worker runs, in pages. */
  safetyNetPages?: number;
  minIntervalMs?: number;
}

const SAFETY_NET_PAGES = 16_384; // 64 MiB of 4 KiB pages
const MIN_INTERVAL_MS = 50;

/**
 * The worker, as plain CommonJS so it runs whatever loader the host uses. It
 * opens its own connection and answers each 'checkpoint' with the result.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('synchronous = NORMAL');
parentPort.on('message', (msg) => {
  if (msg === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
    parentPort.postMessage({ error: null, busy: r.busy, log: r.log, checkpointed: r.checkpointed });
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
});
`;
