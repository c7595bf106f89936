import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openDatabase } from '../../src/adapters/sqlite/connection.ts';
import { BackgroundCheckpointer } from '../../src/adapters/sqlite/checkpointer.ts';

function scratch(): { dir: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-ckpt-'));
  return { dir, path: join(dir, 'x.db') };
}

/** Writes `rows` rows of 1 KiB each in one transaction. */
function write(db: Database.Database, rows: number, from = 0): void {
  const ins = db.prepare('INSERT INTO t (id, body) VALUES (?, ?)');
  db.transaction(() => {
    for (let i = 0; i < rows; i++) ins.run(from + i, 'x'.repeat(1024));
  })();
}

test('a small store never starts the worker and keeps SQLite\'s own checkpoint', async () => {
  const { dir, path } = scratch();
  const db = openDatabase(path);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    const c = new BackgroundCheckpointer(db, path);
    write(db, 50);
    c.afterCommit();
    assert.equal(c.active, false);
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 1000);
    await c.close();
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('past the start size the worker checkpoints beside the writer, and the writer\'s commits no longer do', async () => {
  const { dir, path } = scratch();
  const db = openDatabase(path);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    db.pragma('wal_autocheckpoint = 0'); // so the log holds everything written until the worker copies it
    const c = new BackgroundCheckpointer(db, path, { startPages: 100, safetyNetPages: 5000, minIntervalMs: 0 });
    const before = statSync(path).size;
    write(db, 600); // ~150 pages of 4 KiB
    c.afterCommit();
    assert.equal(c.active, true);
    assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 5000, 'SQLite keeps checkpointing only as a safety net');
    await c.settled();
    // The rows are in the database file itself now, copied by the worker's connection.
    assert.ok(statSync(path).size > before + 500 * 1024, `database file grew from ${before} to ${statSync(path).size}`);
    // Nothing is left for a checkpoint to copy.
    const r = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    assert.equal(r[0]!.log, r[0]!.checkpointed);

    // Later commits are checkpointed too, and every row is readable by a fresh connection.
    write(db, 300, 600);
    c.afterCommit();
    await c.settled();
    await c.close();
    assert.equal(c.active, false);
    const other = new Database(path, { readonly: true });
    assert.equal((other.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 900);
    other.close();
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('close waits for the worker, so the store closes cleanly and reopens with all data', async () => {
  const { dir, path } = scratch();
  const db = openDatabase(path);
  db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
  const c = new BackgroundCheckpointer(db, path, { startPages: 10, minIntervalMs: 0 });
  for (let i = 0; i < 20; i++) {
    write(db, 20, i * 20);
    c.afterCommit(); // a close may land while one is in flight
  }
  await c.close();
  db.close();
  const again = openDatabase(path);
  try {
    assert.equal((again.prepare('SELECT count(*) AS n FROM t').get() as { n: number }).n, 400);
    assert.equal(again.pragma('integrity_check', { simple: true }), 'ok');
  } finally {
    again.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('with the worker running, a forget still leaves no trace in the database or log files while the store is open', async () => {
  const { openMemory } = await import('../../src/index.ts');
  const { readdirSync, readFileSync } = await import('node:fs');
  const { dir, path } = scratch();
  const m = await openMemory({ db: path });
  try {
    const secret = 'quixoticzebrafinch';
    const filler = (b: number) => Array.from({ length: 1000 }, (_, i) => ({ text: `filler note ${b}-${i} about harbours, tides and the price of rope in the old market square` }));
    for (let b = 0; b < 6; b++) await m.rememberMany(filler(b));
    const store = (m as unknown as { ctx: { store: { checkpointer: BackgroundCheckpointer | null } } }).ctx.store;
    assert.equal(store.checkpointer?.active, true, 'six thousand memories start the worker');
    const { id } = await m.remember({ text: `the vault code hint is ${secret}` });
    await m.rememberMany(filler(6)); // the worker is busy with later writes when the forget lands
    const preview = await m.forget(id, 'test');
    await m.confirmForget(preview.token);
    for (const f of readdirSync(dir)) assert.equal(readFileSync(join(dir, f)).includes(secret), false, `${f} still holds the forgotten text`);
  } finally {
    await m.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('settled() keeps the process alive through a delayed checkpoint (a forget waits on it, and nothing else may be pending)', async () => {
  const { dir, path } = scratch();
  const db = openDatabase(path);
  try {
    db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT)');
    db.pragma('wal_autocheckpoint = 0');
    // A long interval: the second commit's checkpoint waits on the interval timer, the only thing left to run.
    const c = new BackgroundCheckpointer(db, path, { startPages: 100, safetyNetPages: 5000, minIntervalMs: 300 });
    write(db, 600);
    c.afterCommit();
    await c.settled();
    write(db, 600, 600);
    c.afterCommit();
    // Unreferenced, that timer let the event loop end here with this promise pending (the test runner fails it).
    await c.settled();
    const r = db.pragma('wal_checkpoint(PASSIVE)') as { log: number; checkpointed: number }[];
    assert.equal(r[0]!.log, r[0]!.checkpointed, 'the delayed checkpoint ran');
    await c.close();
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
