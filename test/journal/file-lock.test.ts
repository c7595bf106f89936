import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { acquireLock, pidAlive, releaseLock, withLock } from '../../src/journal/file-lock.ts';
import { tempDir } from './fixtures/example.ts';

function deadPid(): number {
  const r = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
  const pid = Number(r.stdout.toString());
  assert.equal(pidAlive(pid), false);
  return pid;
}

test('the lock serialises holders in one process', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    const order: string[] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((name) =>
        withLock(path, {}, async () => {
          order.push(`${name}+`);
          await new Promise((r) => setTimeout(r, 20));
          order.push(`${name}-`);
        }),
      ),
    );
    for (let i = 0; i < order.length; i += 2) assert.equal(order[i]!.slice(0, 1), order[i + 1]!.slice(0, 1), order.join(' '));
    assert.equal(existsSync(path), false);
  } finally {
    cleanup();
  }
});

test('a lock held by a dead pid on this host is broken', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    writeFileSync(path, JSON.stringify({ pid: deadPid(), host: hostname(), token: 'old', at: '2020-01-01T00:00:00Z' }));
    const lock = await acquireLock(path, { timeoutMs: 2000 });
    assert.equal(lock.brokeStale, true);
    assert.equal(JSON.parse(readFileSync(path, 'utf8')).pid, process.pid);
    releaseLock(lock);
    assert.equal(existsSync(path), false);
  } finally {
    cleanup();
  }
});

test('a live holder, or one on another host, makes waiters time out with busy', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    for (const body of [{ pid: process.pid, host: hostname() }, { pid: deadPid(), host: 'some-other-host' }]) {
      writeFileSync(path, JSON.stringify({ ...body, token: 't', at: 'now' }));
      await assert.rejects(acquireLock(path, { timeoutMs: 100 }), (e: unknown) => MnemosError.is(e, 'busy'));
    }
  } finally {
    cleanup();
  }
});

test('an unreadable lock is stale only once it is old', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    writeFileSync(path, '');
    await assert.rejects(acquireLock(path, { timeoutMs: 100, unreadableStaleMs: 60_000 }), (e: unknown) => MnemosError.is(e, 'busy'));
    const old = new Date(Date.now() - 120_000);
    utimesSync(path, old, old);
    releaseLock(await acquireLock(path, { timeoutMs: 1000, unreadableStaleMs: 60_000 }));
  } finally {
    cleanup();
  }
});

test('a live pid holding the lock far longer than any append is treated as reused and broken', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'ancient', at: 'then' }));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(path, old, old);
    const lock = await acquireLock(path, { timeoutMs: 1000, maxHoldMs: 60_000 });
    assert.equal(lock.brokeStale, true);
    releaseLock(lock);
  } finally {
    cleanup();
  }
});

test('release never removes a lock that someone else now holds', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'x.lock');
    const lock = await acquireLock(path);
    writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), token: 'someone-else', at: 'now' }));
    releaseLock(lock);
    assert.equal(existsSync(path), true);
  } finally {
    cleanup();
  }
});
