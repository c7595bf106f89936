import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import { BIO_STATE_KEY } from '../../src/cognition/keys.ts';
import { createMemoryCycle } from '../../src/cognition/memory-cycle.ts';
import { MemoryEpisodeStore, owner, tempDir } from './helpers.ts';

const fixture = fileURLToPath(new URL('./fixtures/crash-writer.ts', import.meta.url));

/** Runs the writer, waits for its ids, SIGKILLs it; returns the ids and how it died. */
function runAndKill(logPath: string, perTick: number): Promise<{ ids: string[]; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fixture, logPath, String(perTick)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    let ids: string[] | null = null;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`writer did not report in time; stderr: ${err}`));
    }, 20_000);
    child.stderr.on('data', (d) => (err += d));
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.includes('"ready"'));
      if (line && ids === null) {
        ids = (JSON.parse(line) as { ids: string[] }).ids;
        child.kill('SIGKILL');
      }
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (ids === null) reject(new Error(`writer exited early (code ${code}); stderr: ${err}`));
      else resolve({ ids, signal });
    });
  });
}

test('crash durability: safety events written before a SIGKILL are recovered and consolidated by a fresh process', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const logPath = join(tmp.dir, 'agent', 'safety-events.jsonl');
  const { ids, signal } = await runAndKill(logPath, 5);
  assert.equal(signal, 'SIGKILL');
  assert.equal(ids.length, 16);

  // This process never saw the writer's blackboard: everything comes from the log.
  const log = await FileDurableEventLog.open(logPath);
  assert.deepEqual((await log.pending()).map((e) => e.eventId), ids);
  const store = new MemoryEpisodeStore();
  const { blackboard, cycle } = createMemoryCycle({ principal: owner, sink: store, log });
  blackboard.write(BIO_STATE_KEY, 'SLEEP');
  const r = await cycle.tick();
  assert.deepEqual(r.errors, []);
  assert.deepEqual(store.memories.map((m) => m.metadata['eventId']), ids);
  assert.ok(store.memories.every((m) => m.readOnly && m.labels.includes('SafetyAudit')));
  assert.equal(store.memories.filter((m) => m.source.key === 'goal.achieved').length, 0, 'ordinary events were not durable and are gone');
  await log.close();

  // Settled: a third process finds nothing left to replay.
  const after = await FileDurableEventLog.open(logPath);
  assert.deepEqual(await after.pending(), []);
  await after.close();
});
