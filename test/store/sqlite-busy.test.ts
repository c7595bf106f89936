/**
 * SQLite only (PostgreSQL's lock wait is postgres.locks.test.ts): a write
 * behind another process's long transaction waits its budget in all, then
 * answers `busy`, and meanwhile the process keeps serving its event loop.
 * It waited eight budgets (82 s) with the thread blocked, so a server
 * answered nothing, not even /healthz.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { stopChild } from '../helpers/child-wait.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'default', id: 'owner' };
const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');

/** Lock holders wait on their stdin for ever: one a failed test never released is killed after the file, or its process would not end. */
const holders = new Set<ReturnType<typeof spawn>>();
after(() => holders.forEach(stopChild));

/** Another process holding the write lock until told to let go (a long import's transaction). */
function holdLock(path: string): Promise<{ release: () => Promise<void> }> {
  const code = `const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n'); process.stdin.on('data', () => { db.exec('ROLLBACK'); db.close(); process.exit(0); });`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'inherit'] });
  holders.add(child);
  return new Promise((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`lock holder exited ${c}`)));
    child.stdout.once('data', () => {
      child.removeAllListeners('exit');
      resolve({ release: () => new Promise<void>((done) => (child.once('exit', () => done()), child.stdin.write('go\n'))) });
    });
  });
}

test('a write behind another process\'s lock answers busy after its budget, and the event loop runs meanwhile', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-busy-'));
  const path = join(dir, 'm.db');
  const s = SqliteStore.open({ path, analyze, backgroundCheckpoint: false, busyTimeoutMs: 1500 });
  try {
    await s.apply(owner, [{ kind: 'insert', memory: mem(owner, { text: 'before the lock' }), onExistingSource: 'conflict' }]);
    const holder = await holdLock(path);
    let ticks = 0;
    const timer = setInterval(() => ticks++, 20);
    const started = Date.now();
    let released = false;
    const wait = s.apply(owner, [{ kind: 'insert', memory: mem(owner, { text: 'behind the lock' }), onExistingSource: 'conflict' }]);
    await assert.rejects(wait, (e) => MnemosError.is(e, 'busy') && /stayed locked/.test(e.message));
    const waited = Date.now() - started;
    clearInterval(timer);
    assert.equal(released, false, 'busy came while the lock was still held');
    assert.ok(waited >= 1500, `it waited its budget first (${waited} ms)`);
    assert.ok(ticks >= 20, `the event loop ran while the write waited (${ticks} ticks of 20 ms in ${waited} ms)`);
    await holder.release();
    released = true;
    // Once the lock is gone the same write goes through, and the refused one left nothing.
    await s.apply(owner, [{ kind: 'insert', memory: mem(owner, { text: 'after the lock' }), onExistingSource: 'conflict' }]);
    assert.deepEqual((await s.list(owner, {}, { limit: 10 }, 'recorded_asc')).map((m) => m.text), ['before the lock', 'after the lock']);
  } finally {
    await s.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a store opens, reads and exports while another process holds the write lock (opening took the lock to check the schema)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-busy-'));
  const path = join(dir, 'm.db');
  const first = SqliteStore.open({ path, analyze, backgroundCheckpoint: false });
  await first.apply(owner, [{ kind: 'insert', memory: mem(owner, { text: 'written before the lock' }), onExistingSource: 'conflict' }]);
  await first.close();
  const holder = await holdLock(path);
  try {
    const s = SqliteStore.open({ path, analyze, backgroundCheckpoint: false, busyTimeoutMs: 1500 });
    try {
      assert.deepEqual((await s.list(owner, {}, { limit: 10 })).map((m) => m.text), ['written before the lock']);
      assert.deepEqual(await s.snapshot(async (scan) => (await scan(owner, null, 10)).map((m) => m.text)), ['written before the lock']);
    } finally {
      await s.close();
    }
  } finally {
    await holder.release();
    rmSync(dir, { recursive: true, force: true });
  }
});

// Closing ran PRAGMA optimize with the busy timeout still set: every command against a store another
// process was writing took its whole budget (10 s) longer to exit, with the thread blocked.
test('closing a store does not wait for another process\'s write lock', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-busy-'));
  const path = join(dir, 'm.db');
  const flag = join(dir, 'released');
  const first = SqliteStore.open({ path, analyze, backgroundCheckpoint: false });
  await first.apply(owner, [{ kind: 'insert', memory: mem(owner, { text: 'written before the lock' }), onExistingSource: 'conflict' }]);
  await first.close();
  // This holder lets go by itself after 20 s, leaving a file behind: a close that waited for the lock returns after it.
  const code = `const fs = require('node:fs'); const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(path)}); db.exec('BEGIN IMMEDIATE'); process.stdout.write('locked\\n'); setTimeout(() => { fs.writeFileSync(${JSON.stringify(flag)}, ''); db.exec('ROLLBACK'); db.close(); process.exit(0); }, 20000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((resolve) => child.stdout.once('data', resolve));
  try {
    const s = SqliteStore.open({ path, analyze, backgroundCheckpoint: false, busyTimeoutMs: 60_000 });
    assert.equal((await s.list(owner, {}, { limit: 10 })).length, 1);
    await s.close();
    assert.equal(existsSync(flag), false, 'close returned while the other process still held the lock');
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});
