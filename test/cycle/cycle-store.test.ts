import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { MnemosError, openMemory } from '../../src/index.ts';
import { createMemoryCycle } from '../../src/cognition/memory-cycle.ts';
import { MAX_TEXT_CHARS } from '../../src/services/inputs.ts';
import { StoreEpisodes } from '../../src/services/cycle/store-episodes.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

const BIN = resolve('bin/mnemos.js');
/** The real CLI in `cwd`, on the test's store (MNEMOS_DB), so every command of a test sees one store on either backend. */
const cli = (cwd: string, db: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, body: args.includes('--json') && r.stdout ? JSON.parse(r.stdout) : null };
};

const SCENARIO = [
  { tick: 1, write: { key: 'goal.achieved', value: { goal: 'ship parser' } } },
  { tick: 1, write: { key: 'routine.heartbeat', value: 1 } },
  { tick: 2, write: { key: 'safety.verification_blocked', value: { reason: 'unsafe weight update' } } },
  { tick: 2, veto: 'learning.*' },
  { tick: 3, write: { key: 'learning.new_association.cats', value: { a: 'cat', b: 'purr' } } },
  { tick: 4, state: 'sleep' },
  { tick: 5, state: 'awake' },
]
  .map((x) => JSON.stringify(x))
  .join('\n');

test(named('cycle run persists episodes; a fresh process lists them; safety episodes are read-only; blocks are audited'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    writeFileSync(join(dir, 'scenario.jsonl'), SCENARIO);
    const run = cli(dir, db, 'cycle', 'run', 'scenario.jsonl', '--json');
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.body.consolidated, 2);
    assert.equal(run.body.blocked, 1);
    assert.ok(run.body.ticks >= 5);
    assert.deepEqual(run.body.episodes.map((e: { blackboardKey: string }) => e.blackboardKey).sort(), ['goal.achieved', 'safety.verification_blocked']);

    // A fresh process (the store survives the cycle's restart).
    const listed = cli(dir, db, 'episodes', '--json');
    assert.equal(listed.body.total, 2);
    assert.equal(listed.body.episodes[0].blackboardKey, 'safety.verification_blocked', 'ordered by salience');
    const safety = cli(dir, db, 'episodes', '--label', 'SafetyAudit', '--json');
    assert.equal(safety.body.total, 1);
    const safetyId = safety.body.episodes[0].memoryId as string;
    assert.equal(safety.body.episodes[0].readOnly, true);

    const upd = cli(dir, db, 'update', safetyId, '--text', 'nothing happened', '--yes');
    assert.equal(upd.code, 5);
    assert.match(upd.stderr, /read-only/);
    const fg = cli(dir, db, 'forget', safetyId, '--yes');
    assert.equal(fg.code, 5);
    assert.match(fg.stderr, /read-only/);

    const m = await openMemory({ db });
    const found = await m.search('verification blocked');
    assert.ok(found.hits.some((h) => h.memory.id === safetyId), 'episodes are ordinary memories that search finds');
    const verify = await m.verifyAudit();
    assert.equal(verify.ok, true);
    await m.close();
    const blocks = (await rawSql(db, "SELECT details FROM audit_log WHERE action = 'safety_block'")) as { details: string }[];
    assert.equal(blocks.length, 1);
    assert.equal(JSON.parse(blocks[0]!.details).blackboardKey, 'learning.new_association.cats');

    // Tampering done directly in the database is caught by audit verify.
    await rawSql(db, "UPDATE memories SET text = 'safety.verification_blocked = {}' WHERE id = ?", safetyId);
    const check = cli(dir, db, 'audit', 'verify', '--json');
    assert.equal(check.code, 8, 'tampering with a safety episode is detected');
  } finally {
    await cleanup();
  }
});

test(named('audit verify finds a safety episode hidden in the database (closed, or expired) although its claims are untouched'), async () => {
  const { dir, db, cleanup } = testStores();
  const back = process.cwd();
  process.chdir(dir); // a server database keeps the cycle's safety log in ./.mnemos
  try {
    const m = await openMemory({ db });
    const cycle = m.cycle();
    await cycle.write('safety.verification_blocked', { reason: 'unsafe weight update' });
    await cycle.write('safety.weight_update_blocked', { reason: 'second' });
    await cycle.write('bio_inspired.cognitive_state', 'SLEEP');
    assert.deepEqual((await cycle.tick()).errors, []);
    const [first, second] = (await cycle.recentEpisodes({ minSalience: 0 })).map((e) => e.memoryId).sort();
    // What the engine itself does to a read-only episode raises no alarm: a recall activates it, consolidation leaves it.
    await m.lifecycle.recall(first!);
    await m.consolidate({ force: true });
    await m.close();
    assert.deepEqual((await rawSql(db, 'SELECT lifecycle FROM memories WHERE id = ?', first)).map((r) => r.lifecycle), ['activated']);
    const m1 = await openMemory({ db });
    assert.deepEqual((await m1.verifyAudit()).memoryProblems, []);
    await m1.close();

    await rawSql(db, 'UPDATE memories SET superseded_at = valid_from, superseded_by = id WHERE id = ?', first);
    await rawSql(db, "UPDATE memories SET lifecycle = 'expired' WHERE id = ?", second);
    const m2 = await openMemory({ db });
    assert.equal((await m2.cycle().recentEpisodes({ minSalience: 0 })).length, 0, 'both are hidden from the listings');
    const report = await m2.verifyAudit();
    assert.equal(report.ok, false);
    assert.deepEqual(report.memoryProblems.map((x) => [x.memoryId, x.problem]).sort(), [[first, 'read_only_state_changed'], [second, 'read_only_state_changed']].sort());
    assert.match(report.memoryProblems.find((x) => x.memoryId === second)!.message, /read-only \(Episode, SafetyAudit\) yet expired/);
    await m2.close();
  } finally {
    process.chdir(back);
    await cleanup();
  }
});

test(named('a malformed scenario line fails with its line number before anything runs'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    writeFileSync(join(dir, 'bad.jsonl'), `${JSON.stringify({ tick: 1, write: { key: 'goal.achieved', value: 1 } })}\n{"tick": "x"}\n`);
    const r = cli(dir, db, 'cycle', 'run', 'bad.jsonl');
    assert.equal(r.code, 2);
    assert.match(r.stderr, /line 2/);
    const st = cli(dir, db, 'status', '--json');
    // Nothing created the store (a SQLite file or a PostgreSQL schema), and status refuses to create one.
    assert.equal(st.body.error.code, 'not_found', JSON.stringify(st.body));
  } finally {
    await cleanup();
  }
});

test(named('store episodes: a replayed flush is idempotent and retrieval is scoped and ordered'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const eps = new StoreEpisodes(m.store);
    const now = new Date().toISOString();
    const draft = (eventId: string, salience: number) => ({
      eventId,
      blackboardKey: `goal.achieved`,
      valueSnapshot: { n: eventId },
      salience,
      tick: 1,
      sourceModule: 'goal',
      tags: [],
      validFrom: now,
      transactionTime: now,
      labels: ['Episode'],
      readOnly: false,
    });
    const first = await eps.persistEpisodes(m.principal, [draft('e1', 0.9), draft('e2', 0.65), draft('e3', 0.5)]);
    assert.deepEqual(first.map((x) => x.status), ['created', 'created', 'created']);
    const again = await eps.persistEpisodes(m.principal, [draft('e1', 0.9)]);
    assert.equal(again[0]!.status, 'unchanged');
    const recent = await eps.recentEpisodes(m.principal, { minSalience: 0.6, since: new Date(Date.now() - 3600_000).toISOString(), limit: 20 });
    assert.deepEqual(recent.map((e) => e.eventId), ['e1', 'e2']);
    const guest = { role: 'guest' as const, namespace: 'default', id: 'g1' };
    assert.equal((await eps.recentEpisodes(guest, { minSalience: 0, since: '2000-01-01T00:00:00Z', limit: 20 })).length, 0);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('a write made before the first tick belongs to tick 1 and is consolidated like one made between ticks'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const cy = m.cycle();
    await cy.write('learning.new_association.before', { a: 1 });
    await cy.write('goal.achieved', {});
    await cy.tick();
    await cy.write('learning.new_association.between', { a: 2 });
    await cy.tick();
    await cy.write('bio_inspired.cognitive_state', 'SLEEP');
    await cy.tick();
    const episodes = await cy.recentEpisodes({ minSalience: 0, sinceHours: 24, limit: 10 });
    const byKey = new Map(episodes.map((e) => [e.blackboardKey, e]));
    assert.ok(byKey.has('learning.new_association.before'), `the 0.7 event written before tick 1 was dropped: ${[...byKey.keys()].join(', ')}`);
    assert.ok(byKey.has('learning.new_association.between'));
    assert.equal(byKey.get('goal.achieved')!.tick, 1);
    assert.equal(byKey.get('goal.achieved')!.salience, 0.9);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('the library cycle over StoreEpisodes holds an episode to the memory text limit: an oversized value is refused (limit_exceeded) and audited, the rest is stored'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const episodes = new StoreEpisodes(m.store);
    const { blackboard, consolidator } = createMemoryCycle({ principal: m.principal, sink: episodes, source: episodes });
    // CycleApi.write refuses this value (limit_exceeded); a blackboard of one's own wrote it, and it became an episode.
    blackboard.write('goal.achieved', 'x'.repeat(MAX_TEXT_CHARS + 100_000));
    blackboard.write('learning.new_association.small', 'small and fine');
    consolidator.integrate(1);
    const flush = await consolidator.flush(1);
    assert.deepEqual(flush.episodes.map((e) => e.blackboardKey), ['learning.new_association.small']);
    assert.equal(flush.blocked.length, 1);
    assert.equal(flush.blocked[0]!.blackboardKey, 'goal.achieved');
    assert.match(flush.blocked[0]!.reason, /limit|characters/);
    const stored = await m.list({ filter: { types: ['episode'] } });
    assert.deepEqual(stored.items.map((x) => x.text), ['learning.new_association.small = "small and fine"']);
    assert.ok(stored.items.every((x) => x.text.length <= MAX_TEXT_CHARS));
    const blocks = (await rawSql(db, "SELECT details FROM audit_log WHERE action = 'safety_block'")) as { details: string | object }[];
    assert.equal(blocks.length, 1, 'the refusal is audited');

    // The sink itself says why, with the code the blackboard write path uses.
    const now = new Date().toISOString();
    const big = { eventId: 'big', blackboardKey: 'goal.achieved', valueSnapshot: 'y'.repeat(MAX_TEXT_CHARS), salience: 0.9, tick: 1, sourceModule: 'goal', tags: [], validFrom: now, transactionTime: now, labels: ['Episode'], readOnly: false };
    await assert.rejects(episodes.persistEpisodes(m.principal, [big]), (err: unknown) => MnemosError.is(err, 'limit_exceeded') && err.details?.field === 'value');
    assert.equal((await m.list({ filter: { types: ['episode'] } })).total, 1, 'nothing more was written');
  } finally {
    await m.close();
    await cleanup();
  }
});
