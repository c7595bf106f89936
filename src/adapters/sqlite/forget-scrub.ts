import { existsSync, unlinkSync, writeFileSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { ifNotBusy, withBusyRetry } from './connection.ts';

/** How often a process retries a scrub a reader held up. */
const RETRY_MS = 1_000;

/**
 * After a forget commits, the forgotten text can still sit in the files:
 * deleted postings in FTS segments, and old page images in the WAL (and, in
 * the database file, pages a checkpoint has not yet overwritten with their
 * zeroed versions). The scrub merges the index and empties the WAL with a
 * TRUNCATE checkpoint, which secure_delete makes enough.
 *
 * That checkpoint gives up while another connection reads an older snapshot
 * (an export, a search, a server answering): the text then stayed in the
 * files for as long as nothing else checkpointed, forever on an idle server.
 * So a scrub that did not finish is tried again every second while this
 * store is open, and once more when it closes; and a `<db>-scrub` marker,
 * written before the forget commits and removed when a scrub finishes,
 * tells the next process that opens the store to finish one left behind (a
 * CLI command that exited first, or a process killed between its commit and
 * its scrub).
 */
export class ForgetScrub {
  private retry: NodeJS.Timeout | null = null;
  private closed = false;
  /** Whether the marker was there before this batch's `begin` (another scrub's, to be left alone). */
  private markedBefore = false;
  private readonly marker: string | null;

  constructor(
    private readonly db: Database.Database,
    location: string,
  ) {
    this.marker = location === ':memory:' || location === '' ? null : `${location}-scrub`;
  }

  /** Before a batch that forgets: killed after its commit, the process leaves the marker behind. */
  begin(): void {
    this.markedBefore = this.pending();
    this.mark();
  }

  /** The batch did not commit: nothing to scrub, so its marker goes (not one that was there before, nor one a retry needs). */
  abandon(): void {
    if (!this.markedBefore && this.retry === null) this.unmark();
  }

  /** After that batch commits (the index merge waits out a writer, as any write does). */
  run(): void {
    withBusyRetry(() => this.optimize());
    this.finish();
  }

  /**
   * A scrub another process left (its marker): on open and on close, never waiting on a lock. Upkeep, so a
   * failure (a file opened read-only) leaves the marker for a later open and never stops this one.
   */
  resumeLeftOver(): void {
    if (!this.pending()) return;
    try {
      let merged = false;
      ifNotBusy(this.db, () => {
        this.optimize();
        merged = true;
      });
      if (merged) this.finish();
    } catch {
      // The marker stays: the next open tries again.
    }
  }

  /** Before the connection closes: one last try, and the marker stays for the next open if a reader still holds it up. */
  close(): void {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.resumeLeftOver();
  }

  private optimize(): void {
    this.db.prepare("INSERT INTO memories_fts (memories_fts) VALUES ('optimize')").run();
  }

  /** Empties the WAL, or keeps the marker and tries again later. */
  private finish(): void {
    let done = false;
    ifNotBusy(this.db, () => {
      const [r] = this.db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      done = r?.busy === 0;
    });
    if (done) {
      this.unmark();
      return;
    }
    this.mark();
    if (this.closed) return;
    this.retry ??= setTimeout(() => {
      this.retry = null;
      if (this.db.open) this.finish();
    }, RETRY_MS).unref();
  }

  private pending(): boolean {
    return this.marker !== null && existsSync(this.marker);
  }

  private mark(): void {
    if (this.marker === null) return;
    try {
      writeFileSync(this.marker, '');
    } catch {
      // A folder that refuses the file: the scrub is still tried in this process.
    }
  }

  private unmark(): void {
    if (this.marker === null) return;
    try {
      unlinkSync(this.marker);
    } catch {
      // Gone already (another process finished a scrub), or never written.
    }
  }
}
