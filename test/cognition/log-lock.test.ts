import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { tempDir } from './helpers.ts';

const fixture = fileURLToPath(new URL('./fixtures/log-holder.ts', import.meta.url));

const ev = (id: string): EpisodicEvent => ({ eventId: id, blackboardKey: 'safety.verification_blocked', valueSnapshot: 1, salience: 1, tick: 1, timestamp: '2025-01-01T00:00:00.000Z', sourceModule: 'safety', tags: [], alwaysConsolidate: true, consolidated: false });

/** Starts a process that holds `path` open; resolves once it has appended. */
function holder(path: string): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, path], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('"ready"')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`holder exited (code ${code}); stderr: ${err}`)));
  });
}

const killed = (child: ChildProcess) => new Promise<void>((resolve) => {
  child.once('exit', () => resolve());
  child.kill('SIGKILL');
});

test('a second process cannot open a log another one writes: busy, naming the holder; after a SIGKILL the log is taken over', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'agent', 'safety.jsonl');
  const child = await holder(path);
  t.after(() => void child.kill('SIGKILL'));
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'busy') && e.message.includes(`process ${child.pid}`) && (e as MnemosError).details?.['pid'] === child.pid);
  await killed(child);
  assert.ok(existsSync(`${path}.lock`), 'a killed process leaves its lock behind');
  const log = await FileDurableEventLog.open(path);
  assert.deepEqual((await log.pending()).map((e) => e.eventId), ['HELD'], 'the stale lock is taken over and nothing is lost');
  await log.append(ev('NEXT'));
  await log.close();
  assert.equal(existsSync(`${path}.lock`), false, 'closing releases the lock');
});

test('a lock naming a process that no longer exists, or unreadable, does not block', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  for (const content of [JSON.stringify({ pid: 2 ** 22 + 7, host: (await import('node:os')).hostname(), at: 'x' }), 'garbage']) {
    const path = join(tmp.dir, `log-${content.length}.jsonl`);
    writeFileSync(`${path}.lock`, content);
    const log = await FileDurableEventLog.open(path);
    await log.append(ev('A'));
    await log.close();
  }
});

test('two handles in one process share the lock, but only one may write: the other gets conflict instead of forking the chain', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'safety.jsonl');
  const a = await FileDurableEventLog.open(path);
  const b = await FileDurableEventLog.open(path);
  await a.append(ev('A'));
  await assert.rejects(b.append(ev('B')), (e) => MnemosError.is(e, 'conflict'));
  await b.close();
  assert.ok(existsSync(`${path}.lock`), 'still held by the open handle');
  await a.append(ev('C'));
  await a.close();
  assert.equal(existsSync(`${path}.lock`), false);
  const again = await FileDurableEventLog.open(path);
  assert.deepEqual((await again.pending()).map((e) => e.eventId), ['A', 'C']);
  await again.close();
});
