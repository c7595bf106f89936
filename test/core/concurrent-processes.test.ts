import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

function run(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

test(named('several processes writing one store at once lose nothing and keep the audit chain intact'), async () => {
  const { db, cleanup } = testStores();
  try {
    const workers = 4;
    const perWorker = 100;
    const results = await Promise.all(Array.from({ length: workers }, (_, w) => run(['test/helpers/concurrent-writer.mts', db, String(w), String(perWorker)])));
    for (const r of results) assert.equal(r.code, 0, r.stderr);
    const m = await openMemory({ db });
    assert.equal((await m.status()).memories.total, workers * perWorker);
    const texts = new Set((await m.list({ limit: 1000 })).items.map((x) => x.text));
    for (let w = 0; w < workers; w++) for (let i = 0; i < perWorker; i++) assert.ok(texts.has(`worker ${w} note ${i}`), `worker ${w} note ${i} lost`);
    const report = await m.verifyAudit();
    assert.equal(report.ok, true, JSON.stringify(report.chainProblems.slice(0, 3)));
    assert.equal(report.entries, workers * perWorker);
    await m.close();
  } finally {
    await cleanup();
  }
});
