import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';

const BIN = resolve('bin/mnemos.js');
const cli = (cwd: string, db: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, body: args.includes('--json') && r.stdout ? JSON.parse(r.stdout) : null };
};
const jsonl = (...lines: unknown[]) => lines.map((l) => JSON.stringify(l)).join('\n');

/** Runs `fn` with the working directory in `dir`: a server store keeps its cycle files in ./.mnemos (services/state-dir.ts). */
async function inDir<T>(dir: string, fn: () => Promise<T>): Promise<T> {
  const back = process.cwd();
  process.chdir(dir);
  try {
    return await fn();
  } finally {
    process.chdir(back);
  }
}

test(named('cycle run: two stores in one folder keep their own safety events'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const X = store('X.db');
    const Y = store('Y.db');
    writeFileSync(join(dir, 'x.jsonl'), jsonl({ tick: 1, write: { key: 'safety.verification_blocked', value: { store: 'X-only secret' } } }));
    writeFileSync(join(dir, 'sleep.jsonl'), jsonl({ tick: 1, state: 'sleep' }));
    assert.equal(cli(dir, X, 'cycle', 'run', 'x.jsonl', '--json').body.buffered, 1);
    const y = cli(dir, Y, 'cycle', 'run', 'sleep.jsonl', '--json');
    assert.equal(y.body.consolidated, 0, `Y consolidated X's event: ${y.stdout}`);
    assert.equal(cli(dir, Y, 'episodes', '--json').body.total, 0);
    // X's event waited in X's log and is consolidated at X's next sleep.
    const x = cli(dir, X, 'cycle', 'run', 'sleep.jsonl', '--json');
    assert.equal(x.body.consolidated, 1, x.stdout);
    const listed = cli(dir, X, 'episodes', '--json').body;
    assert.equal(listed.total, 1);
    assert.equal(listed.episodes[0].valueSnapshot.store, 'X-only secret');
  } finally {
    await cleanup();
  }
});

test(named('the engine cycle (tools, library): two stores sharing a state folder keep their own safety events'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const X = store('X.db');
    const Y = store('Y.db');
    await inDir(dir, async () => {
      const x = await openMemory({ db: X });
      await x.cycle().write('safety.verification_blocked', { store: 'X-only secret' });
      await x.close(); // before any sleep: the event waits in the durable log

      const y = await openMemory({ db: Y });
      await y.cycle().write('bio_inspired.cognitive_state', 'SLEEP');
      await y.cycle().tick();
      assert.deepEqual(await y.cycle().recentEpisodes({ minSalience: 0 }), [], 'Y recovered X\'s safety event');
      await y.close();

      const x2 = await openMemory({ db: X });
      await x2.cycle().write('bio_inspired.cognitive_state', 'SLEEP');
      await x2.cycle().tick();
      const eps = await x2.cycle().recentEpisodes({ minSalience: 0 });
      assert.deepEqual(eps.map((e) => e.valueSnapshot), [{ store: 'X-only secret' }], 'X lost its own event');
      await x2.close();
    });
  } finally {
    await cleanup();
  }
});

test(named('retrieval finds the cycle\'s episodes however many other type:episode memories outrank them'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    await inDir(dir, async () => {
      const m = await openMemory({ db });
      try {
        for (let i = 0; i < 25; i++) await m.remember({ text: `diary entry ${i}`, type: 'episode', salience: 0.95 });
        const cy = m.cycle();
        await cy.write('goal.achieved', { goal: 'map' });
        await cy.write('bio_inspired.cognitive_state', 'SLEEP');
        await cy.tick();
        assert.deepEqual((await cy.recentEpisodes({})).map((e) => e.blackboardKey), ['goal.achieved']);
        await cy.write('bio_inspired.cognitive_state', 'AWAKE');
        await cy.tick();
        const retrieved = (await cy.read('memory.retrieved_episodes'))?.value as Array<{ blackboardKey: string }>;
        assert.deepEqual(retrieved.map((e) => e.blackboardKey), ['goal.achieved'], 'retrieval at PERCEPTION');
      } finally {
        await m.close();
      }
    });
  } finally {
    await cleanup();
  }
});

test(named('a memory keyed like a cycle episode (cycle:...) is refused unless the cycle wrote it, so none takes a retrieved episode\'s place'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    await inDir(dir, async () => {
      const m = await openMemory({ db });
      try {
        const cy = m.cycle();
        await cy.write('goal.achieved', { goal: 'map' });
        await cy.write('bio_inspired.cognitive_state', 'SLEEP');
        await cy.tick();
        // A guest's look-alikes (shared, so the owner sees them) filled the salience-ordered page
        // the cycle's episodes are picked from, and the owner's PERCEPTION retrieved nothing.
        const guest = m.as({ role: 'guest', namespace: 'default', id: 'g1' });
        for (const who of [guest, m]) {
          await assert.rejects(who.remember({ text: 'not an episode of the cycle', type: 'episode', key: 'cycle:01FAKE', salience: 1 }), (e: Error & { code?: string; details?: Record<string, unknown> }) => {
            assert.equal(e.code, 'validation_failed');
            assert.equal(e.details?.['field'], 'key');
            return true;
          });
        }
        for (let i = 0; i < 25; i++) await guest.remember({ text: `guest note ${i}`, type: 'episode', key: `note:${i}`, salience: 1 }).catch(() => undefined);
        assert.deepEqual((await cy.recentEpisodes({})).map((e) => e.blackboardKey), ['goal.achieved']);
      } finally {
        await m.close();
      }
    });
  } finally {
    await cleanup();
  }
});

test(named('cycle run refuses a bad or oversized line naming it, and writes nothing'), async () => {
  const first = [{ tick: 1, write: { key: 'goal.achieved', value: 'persisted before validation error' } }, { tick: 1, state: 'sleep' }];
  const deep = Array.from({ length: 70 }).reduce<unknown>((v) => [v], 1);
  const cases: Array<[name: string, lines: unknown[], code: string, message: RegExp]> = [
    ['badkey', [...first, { tick: 2, write: { key: 'goal. bad key', value: 1 } }], 'validation_failed', /line 3: invalid blackboard key/],
    ['deep', [...first, { tick: 2, write: { key: 'learning.new_association.deep', value: deep } }], 'validation_failed', /line 3: .*deeper than 64/],
    ['big', [...first, { tick: 2, write: { key: 'goal.achieved', value: 'x'.repeat(300_000) } }], 'limit_exceeded', /line 3: .*300018 characters; at most 200000/],
    ['big-safety', [{ tick: 1, write: { key: 'safety.verification_blocked', value: 'x'.repeat(200_000) } }], 'limit_exceeded', /line 1/],
  ];
  for (const [name, lines, code, message] of cases) {
    const { dir, db, cleanup } = testStores();
    try {
      writeFileSync(join(dir, `${name}.jsonl`), jsonl(...lines));
      const r = cli(dir, db, 'cycle', 'run', `${name}.jsonl`, '--json');
      assert.equal(r.code, 2, `${name}: ${r.stderr}`);
      assert.equal(r.body.error.code, code, name);
      assert.match(r.body.error.message, message, name);
      if (BACKEND === 'sqlite') assert.equal(existsSync(db), false, `${name}: the store was not even created`);
      else assert.equal(cli(dir, db, 'episodes', '--json').body.error.code, 'not_found', `${name}: the store was not even created`);
    } finally {
      await cleanup();
    }
  }
});
