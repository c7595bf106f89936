import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

const DAY = 86_400_000;

test(named('a consolidation killed mid-run (SIGKILL) leaves a consistent store and the next run completes it'), async () => {
  const { db, cleanup } = testStores();
  try {
    // Old notes that the run will archive or expire (several lifecycle batches), and recent near-duplicate pairs to merge.
    const old = await openMemory({ db, now: () => Date.now() - 20 * DAY });
    await old.rememberMany(Array.from({ length: 3000 }, (_, i) => ({ text: `note ${i} about topic ${i % 97} and detail ${i * 7}`, importance: 0.3 + (i % 5) / 10 })));
    await old.close();
    const seed = await openMemory({ db, now: () => Date.now() - DAY });
    const inputs = [];
    for (let i = 0; i < 400; i++) inputs.push({ text: `duplicate group ${i} talks about the harbour lights and the ferry schedule ${i}`, importance: 0.9 });
    for (let i = 0; i < 400; i++) inputs.push({ text: `duplicate group ${i} talks about the harbour lights and the ferry schedule ${i}.`, importance: 0.8 });
    await seed.rememberMany(inputs);
    await seed.close();

    const now = Date.now();
    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/consolidate-child.ts'), db, String(now)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stderr.on('data', (d) => (err += d));
    const killed = await new Promise<boolean>((resolve) => {
      child.stdout.on('data', (d) => {
        out += d;
        // Kill after the first batch of merges committed, in the middle of the run.
        if (/progress merge \{"batches":1\}/.test(out) && !child.killed) {
          child.kill('SIGKILL');
        }
      });
      child.on('exit', (_code, signal) => resolve(signal === 'SIGKILL'));
    });
    assert.ok(killed, `child was not killed mid-run: ${out} ${err}`);
    assert.ok(!out.includes('finished'));

    const m = await openMemory({ db, now: () => now });
    assert.equal((await m.verifyAudit()).ok, true);
    const running = await rawSql(db, "SELECT status, attempts FROM jobs WHERE status = 'running'");
    assert.equal(running.length, 1, 'the killed run is left running with a dead holder');
    const twoCurrent = await rawSql(db, 'SELECT lineage_id FROM memories WHERE superseded_at IS NULL GROUP BY lineage_id HAVING count(*) > 1');
    assert.deepEqual(twoCurrent, []);

    const r = await m.consolidate();
    assert.equal(r.status, 'done');
    assert.equal(r.resumed, true);
    assert.equal(r.attempts, 2);
    assert.ok(r.counts.merged! >= 350, `merged ${r.counts.merged}`);
    // Every merge is whole: each archived loser points at a current survivor that lists it.
    const current = (await rawSql(db, 'SELECT lineage_id, lifecycle, metadata FROM memories WHERE superseded_at IS NULL')) as { lineage_id: string; lifecycle: string; metadata: unknown }[];
    // SQLite keeps metadata as JSON text, PostgreSQL as jsonb (an object here).
    const metaOf = (c: { metadata: unknown }) => (typeof c.metadata === 'string' ? JSON.parse(c.metadata) : c.metadata);
    const byLineage = new Map(current.map((c) => [c.lineage_id, c]));
    let losers = 0;
    for (const c of current) {
      const meta = metaOf(c);
      if (!meta.mergedInto) continue;
      losers++;
      assert.equal(c.lifecycle, 'archived');
      const s = byLineage.get(meta.mergedInto.lineageId)!;
      assert.ok(metaOf(s).mergedFrom.some((f: { lineageId: string }) => f.lineageId === c.lineage_id));
    }
    assert.equal(losers, r.counts.merged);
    assert.equal((await rawSql(db, "SELECT status FROM jobs WHERE status = 'running'")).length, 0);
    assert.equal((await m.verifyAudit()).ok, true);
    // And the run after that has nothing new to do.
    assert.equal((await m.consolidate()).status, 'skipped');
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('two processes consolidating at once: one runs, the other is told it is busy'), async () => {
  const { db, cleanup } = testStores();
  try {
    const seed = await openMemory({ db });
    await seed.rememberMany(Array.from({ length: 2500 }, (_, i) => ({ text: `memo ${i} on subject ${i % 13}` })));
    await seed.close();
    const run = () =>
      new Promise<string>((resolve) => {
        const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/consolidate-child.ts'), db, String(Date.now()), '800'], { stdio: ['ignore', 'pipe', 'inherit'] });
        let out = '';
        child.stdout.on('data', (d) => (out += d));
        child.on('exit', () => resolve(/finished (\w+)/.exec(out)?.[1] ?? 'crashed'));
      });
    const results = (await Promise.all([run(), run()])).sort();
    assert.deepEqual(results, ['busy', 'done']);
  } finally {
    await cleanup();
  }
});
