import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';
import { cycleRegistry } from '../../src/services/cycle/cycle-api.ts';
import { join } from 'node:path';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import { CycleRegistry } from '../../src/services/cycle/cycle-registry.ts';
import { safetyLogName } from '../../src/services/cycle/safety-log.ts';
import { stateDir, storeIdentity } from '../../src/services/state-dir.ts';
import type { Mnemos } from '../../src/surfaces/library/open-memory.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

const call = (memory: Mnemos, name: string, input: unknown) => runTool(findTool(TOOLS, name), input, { memory, surfaceParts: [] }) as Promise<any>;

test(named('blackboard tools: each principal has its own blackboard; sleep consolidates into episodes it alone can see'), async () => {
  const { dir, db, cleanup } = testStores();
  // A server database keeps the cycle's safety log in ./.mnemos of the working directory
  // (services/state-dir.ts): work in the temp dir so the log stays with this test's store.
  const back = process.cwd();
  process.chdir(dir);
  try {
    const owner = await openMemory({ db });
    const guest = owner.as({ role: 'guest', namespace: 'default', id: 'g1' });
    await call(owner, 'blackboard_write', { key: 'goal.achieved', value: { goal: 'ship' } });
    await call(owner, 'blackboard_write', { key: 'safety.verification_blocked', value: { why: 'unsafe' }, priority: 'critical' });
    assert.equal((await call(owner, 'blackboard_read', { key: 'goal.achieved' })).entry.value.goal, 'ship');
    assert.equal((await call(guest, 'blackboard_read', { key: 'goal.achieved' })).entry, null, 'a guest never sees the owner blackboard');
    assert.equal((await call(owner, 'blackboard_query', { pattern: 'safety.*' })).entries.length, 1);
    assert.equal((await call(guest, 'blackboard_query', { pattern: '*' })).entries.length, 0);

    await call(owner, 'cycle_tick', {});
    await call(owner, 'blackboard_write', { key: 'bio_inspired.cognitive_state', value: 'SLEEP' });
    const sleep = await call(owner, 'cycle_tick', {});
    assert.ok(sleep.phases.some((ph: { phase: string }) => ph.phase === 'SLEEP_PHASE'));
    const status = await call(owner, 'cycle_status', {});
    assert.equal(status.ticks, 2);
    const recent = await call(owner, 'episodes_recent', {});
    assert.deepEqual(recent.episodes.map((e: { blackboardKey: string }) => e.blackboardKey).sort(), ['goal.achieved', 'safety.verification_blocked']);
    assert.equal((await call(guest, 'episodes_recent', { minSalience: 0 })).episodes.length, 0);
    const summary = await call(owner, 'blackboard_read', { key: 'memory.consolidation' });
    assert.equal(summary.entry.value.consolidated, 2);

    await assert.rejects(call(owner, 'blackboard_write', { key: 'bad key!', value: 1 }), { code: 'validation_failed' });
    await assert.rejects(call(owner, 'blackboard_write', { key: 'x.y', value: 1, priority: 'urgent' }), (e: Error & { code?: string }) => e.code === 'validation_failed' && /priority/.test(e.message));
    await owner.close();
  } finally {
    process.chdir(back);
    await cleanup();
  }
});

test(named('a tag or key the store could not hold is refused at the blackboard write, so no sleep is held up by it'), async () => {
  const { dir, db, cleanup } = testStores();
  const back = process.cwd();
  process.chdir(dir);
  try {
    const owner = await openMemory({ db });
    for (const tags of [['a\u0000b'], ['x\ud800'], ['']]) {
      await assert.rejects(call(owner, 'blackboard_write', { key: 'goal.achieved', value: 1, tags }), { code: 'validation_failed' }, JSON.stringify(tags));
    }
    // The library blackboard itself refuses them too (the tools are one way in).
    const { blackboard } = await cycleRegistry(owner.context).get(owner.principal);
    assert.throws(() => blackboard.write('safety.verification_blocked', 1, { tags: ['bad\u0000'] }), { code: 'validation_failed' });
    assert.throws(() => blackboard.write('safety.\udc00blocked', 1), { code: 'validation_failed' });
    await call(owner, 'blackboard_write', { key: 'goal.achieved', value: 1, tags: ['ok ✓'] });
    await call(owner, 'blackboard_write', { key: 'bio_inspired.cognitive_state', value: 'SLEEP' });
    assert.deepEqual((await call(owner, 'cycle_tick', {})).errors, []);
    assert.deepEqual((await call(owner, 'episodes_recent', {})).episodes.map((e: { tags: string[] }) => e.tags), [['ok ✓']]);
    await owner.close();
  } finally {
    process.chdir(back);
    await cleanup();
  }
});

test(named('a logged safety event the store refuses (written before tags were checked) is blocked, not retried forever ahead of every other event'), async () => {
  const { dir, db, cleanup } = testStores();
  const back = process.cwd();
  process.chdir(dir);
  try {
    const owner = await openMemory({ db });
    const agent = CycleRegistry.keyOf(owner.principal);
    const logPath = join(stateDir(owner.store.location), safetyLogName(storeIdentity(owner.store)!, agent));
    const old = await FileDurableEventLog.open(logPath);
    await old.append({ eventId: '01J0000000000000000000POISN', blackboardKey: 'safety.verification_blocked', valueSnapshot: { why: 'x' }, salience: 1, tick: 1, timestamp: '2026-01-01T00:00:00.000Z', sourceModule: 'safety', tags: ['bad\u0000tag'], alwaysConsolidate: true, consolidated: false });
    await old.close();

    await call(owner, 'blackboard_write', { key: 'goal.achieved', value: { goal: 'ship' } });
    await call(owner, 'blackboard_write', { key: 'bio_inspired.cognitive_state', value: 'SLEEP' });
    const tick = await call(owner, 'cycle_tick', {});
    assert.deepEqual(tick.errors, [], 'the sleep goes through');
    assert.deepEqual((await call(owner, 'episodes_recent', {})).episodes.map((e: { blackboardKey: string }) => e.blackboardKey), ['goal.achieved']);
    const blocked = (await call(owner, 'blackboard_read', { key: 'memory.consolidation.blocked' })).entry.value;
    assert.deepEqual(blocked.map((b: { eventId: string; verifier: string }) => [b.eventId, b.verifier]), [['01J0000000000000000000POISN', 'store']]);
    const audit = await rawSql(db, "SELECT details FROM audit_log WHERE action = 'safety_block'");
    assert.equal(audit.length, 1, 'the refusal is in the audit chain');
    await owner.close();
    const again = await FileDurableEventLog.open(logPath);
    assert.deepEqual(await again.pending(), [], 'settled: a restart does not bring it back');
    await again.close();
  } finally {
    process.chdir(back);
    await cleanup();
  }
});

test(named('a blackboard value holding NUL round-trips exactly through the tools and into its episode; entries carry ISO times beside epoch ms'), async () => {
  const { dir, db, cleanup } = testStores();
  const back = process.cwd();
  process.chdir(dir);
  try {
    const owner = await openMemory({ db });
    // PostgreSQL text and jsonb cannot hold NUL: the value must still come back whole, never fail at SLEEP.
    const value = { 'k\u0000ey': 'a\u0000b', list: ['\u0000'], top: 'x\u0000' };
    const written = await call(owner, 'blackboard_write', { key: 'safety.verification_blocked', value, ttl: 60 });
    await call(owner, 'blackboard_write', { key: 'goal.achieved', value: 'plain\u0000string' });
    assert.deepEqual((await call(owner, 'blackboard_read', { key: 'safety.verification_blocked' })).entry.value, value);
    assert.equal(typeof written.createdAt, 'number', 'epoch ms kept: callers rely on it');
    assert.equal(written.createdAtIso, new Date(written.createdAt).toISOString());
    assert.equal(written.expiresAtIso, new Date(written.expiresAt).toISOString());
    const plain = (await call(owner, 'blackboard_query', { pattern: 'goal.*' })).entries[0];
    assert.equal(plain.expiresAt, null);
    assert.equal(plain.expiresAtIso, null);
    assert.equal(plain.createdAtIso, new Date(plain.createdAt).toISOString());

    await call(owner, 'blackboard_write', { key: 'bio_inspired.cognitive_state', value: 'SLEEP' });
    const tick = await call(owner, 'cycle_tick', {});
    assert.deepEqual(tick.errors, []);
    const episodes = (await call(owner, 'episodes_recent', {})).episodes;
    const byKey = new Map(episodes.map((e: { blackboardKey: string; valueSnapshot: unknown }) => [e.blackboardKey, e.valueSnapshot]));
    assert.deepEqual(byKey.get('safety.verification_blocked'), value);
    assert.equal(byKey.get('goal.achieved'), 'plain\u0000string');
    await owner.close();
  } finally {
    process.chdir(back);
    await cleanup();
  }
});
