import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Journal } from '../../src/journal/journal.ts';
import { scanJournalBytes } from '../../src/journal/journal-scan.ts';
import { tempDir } from './fixtures/example.ts';

/**
 * Real OS processes: several appenders at once must be serialised by the lock,
 * and an appender killed with SIGKILL must leave only complete records and a
 * lock that the next writer can break.
 */

const WORKER = join(import.meta.dirname, 'fixtures', 'append-worker.ts');

interface Run {
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  done: Promise<number | null>;
}

function startWorker(journal: string, worker: string, count: number, mode = 'unique'): Run {
  const child = spawn(process.execPath, ['--import', 'tsx', WORKER, journal, worker, String(count), mode], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Array<Record<string, unknown>> = [];
  let buffer = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      lines.push(JSON.parse(buffer.slice(0, nl)));
      buffer = buffer.slice(nl + 1);
    }
  });
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const done = new Promise<number | null>((resolve) =>
    child.on('close', (code) => {
      if (code !== 0 && code !== null) process.stderr.write(`worker ${worker} failed: ${stderr}\n`);
      resolve(code);
    }),
  );
  return { child, lines, done };
}

/** Waits until every worker is loaded, then lets them all append at once. */
async function startTogether(path: string, runs: Run[]): Promise<void> {
  await until(() => runs.every((r) => r.lines.some((l) => l.ready === true)), 45_000);
  writeFileSync(path + '.go', '');
}

async function until(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the worker');
    await new Promise((r) => setTimeout(r, 10));
  }
}

test('four processes appending at once (6 clusters each) lose nothing and interleave only whole records', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'shared.metta');
    const runs = ['1', '2', '3', '4'].map((w) => startWorker(path, w, 6));
    await startTogether(path, runs);
    assert.deepEqual(await Promise.all(runs.map((r) => r.done)), [0, 0, 0, 0]);
    const journal = await Journal.open(path);
    assert.deepEqual(journal.warnings, []);
    const ids = journal.clusters().map((c) => c.id);
    assert.equal(ids.length, 24);
    assert.equal(new Set(ids).size, 24);
    for (const w of ['1', '2', '3', '4']) {
      const mine = ids.filter((id) => id.startsWith(`mc-w${w}-`));
      assert.deepEqual(mine, Array.from({ length: 6 }, (_, i) => `mc-w${w}-${i}`), 'each writer keeps its own order');
    }
  } finally {
    cleanup();
  }
});

test('processes racing for the same ids: each id is written exactly once', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'race.metta');
    const runs = ['1', '2', '3'].map((w) => startWorker(path, w, 6, 'shared'));
    await startTogether(path, runs);
    assert.deepEqual(await Promise.all(runs.map((r) => r.done)), [0, 0, 0]);
    const journal = await Journal.open(path);
    assert.deepEqual(journal.clusters().map((c) => c.id), Array.from({ length: 6 }, (_, i) => `mc-shared-${i}`));
    const oks = runs.flatMap((r) => r.lines.filter((l) => 'ok' in l));
    const conflicts = runs.flatMap((r) => r.lines.filter((l) => 'conflict' in l));
    assert.equal(oks.length, 6);
    assert.equal(conflicts.length, 12);
  } finally {
    cleanup();
  }
});

test('an appender killed with SIGKILL mid-loop leaves only complete records', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'killed.metta');
    for (let round = 0; round < 2; round++) {
      const run = startWorker(path, `k${round}`, 0, 'loop');
      await until(() => run.lines.length >= 5 + round * 7, 30_000);
      run.child.kill('SIGKILL');
      await run.done;
      // Whatever the kill interrupted, the bytes on disk are complete records plus at most a torn tail.
      const scan = scanJournalBytes(readFileSync(path));
      const committed = run.lines.filter((l) => 'ok' in l).map((l) => l.ok as string);
      const onDisk = new Set(scan.clusters.map((c) => c.id));
      for (const id of committed) assert.ok(onDisk.has(id), `${id} was reported appended, so it must be on disk`);
      const journal = await Journal.open(path, { lock: { timeoutMs: 10_000 } });
      const text = readFileSync(path, 'utf8');
      assert.ok(text.endsWith(`;;; END MemoryCluster ${journal.clusters().at(-1)!.id}\n`), 'file ends with a complete record');
      assert.equal(scanJournalBytes(readFileSync(path)).torn, null);
      assert.equal(existsSync(path + '.lock'), false);
    }
  } finally {
    cleanup();
  }
});

test('a lock left by a killed process is broken by the next writer', { timeout: 60_000 }, async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'stale.metta');
    const holder = startWorker(path, 'h', 0, 'hold-lock');
    await until(() => holder.lines.length >= 1, 30_000);
    assert.ok(existsSync(path + '.lock'));
    // While the holder lives, writers wait and then give up with busy.
    await assert.rejects(Journal.open(path, { lock: { timeoutMs: 200 } }), /still held/);
    holder.child.kill('SIGKILL');
    await holder.done;
    const journal = await Journal.open(path, { lock: { timeoutMs: 5_000 } });
    assert.equal(journal.clusters().length, 0);
    assert.equal(existsSync(path + '.lock'), false);
  } finally {
    cleanup();
  }
});
