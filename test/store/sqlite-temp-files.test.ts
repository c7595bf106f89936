import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/adapters/sqlite/connection.ts';

/** SQLite's temp files (statement journals, sort spills) are named etilqs_* and unlinked at once; /proc still shows them. */
function openTempFiles(): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.includes('etilqs_')) out.push(target);
    } catch {
      // the fd readdir itself used is already closed
    }
  }
  return out;
}

test('a long transaction keeps its statement journals in memory, never in a temp file', { skip: process.platform !== 'linux' && 'needs /proc/self/fd' }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-temp-'));
  const db = openDatabase(join(dir, 'x.db'));
  try {
    // The same shape as memory_vectors: an insert with a trigger writes two tables, so each
    // insert inside a transaction keeps a statement journal of the pages it changes.
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL);
             CREATE TABLE t_log (seq INTEGER PRIMARY KEY, id INTEGER NOT NULL);
             CREATE TRIGGER t_logged AFTER INSERT ON t BEGIN INSERT INTO t_log (id) VALUES (new.id); END;`);
    const ins = db.prepare('INSERT INTO t (id, body) VALUES (?, ?)');
    const rewrite = db.prepare('UPDATE t SET body = ? WHERE id < ?');
    const seen = db.transaction(() => {
      for (let i = 0; i < 2_000; i++) ins.run(i, Buffer.alloc(768, i % 251));
      // One statement that changes far more than 64 KiB of pages: its journal would spill.
      rewrite.run(Buffer.alloc(900, 7), 1_000);
      for (let i = 2_000; i < 2_100; i++) ins.run(i, Buffer.alloc(768, 1));
      return openTempFiles();
    })();
    assert.deepEqual(seen, []);
    assert.equal((db.prepare('SELECT count(*) AS n FROM t_log').get() as { n: number }).n, 2_100);
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
