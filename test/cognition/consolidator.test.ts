import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { Blackboard } from '../../src/cognition/blackboard.ts';
import { MemoryConsolidator } from '../../src/cognition/consolidator.ts';
import { VolatileEventLog } from '../../src/cognition/durable-log.ts';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import { BLOCKED_KEY, CONSOLIDATION_KEY } from '../../src/cognition/keys.ts';
import { RuleBasedSafetyVerifier } from '../../src/cognition/safety.ts';
import { DEFAULT_SALIENCE_REGISTRY, SalienceModel } from '../../src/cognition/salience.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { manualClock, MemoryEpisodeStore, owner, tempDir } from './helpers.ts';

function setup(opts: { capacity?: number; scanLimit?: number; verifier?: RuleBasedSafetyVerifier; salience?: SalienceModel } = {}) {
  const clock = manualClock();
  const blackboard = new Blackboard({ clock: clock.now });
  const store = new MemoryEpisodeStore();
  const log = new VolatileEventLog();
  const consolidator = new MemoryConsolidator({
    blackboard,
    principal: owner,
    sink: store,
    log,
    clock: clock.now,
    ...(opts.verifier ? { verifier: opts.verifier } : {}),
    ...(opts.salience ? { salience: opts.salience } : {}),
    config: { ...(opts.capacity ? { bufferCapacity: opts.capacity } : {}), ...(opts.scanLimit ? { scanLimit: opts.scanLimit } : {}) },
  });
  blackboard.setTick(1);
  return { clock, blackboard, store, log, consolidator };
}

test('salience threshold: only events at or above 0.7 (or safety) are buffered', async () => {
  const { blackboard, consolidator } = setup();
  for (const k of ['goal.achieved', 'stigmergy.handoff.h1', 'perception.seen', 'learning.new_association.x', 'stigmergy.coalition_accept.c', 'safety.tool_blocked']) {
    blackboard.write(k, { k });
  }
  const r = await consolidator.integrate(1);
  assert.equal(r.scanned, 6);
  const keys = consolidator.buffer.snapshot().map((e) => e.blackboardKey);
  assert.deepEqual(keys.sort(), ['goal.achieved', 'learning.new_association.x', 'safety.tool_blocked', 'stigmergy.coalition_accept.c']);
  const safety = consolidator.buffer.snapshot().find((e) => e.blackboardKey === 'safety.tool_blocked')!;
  assert.equal(safety.alwaysConsolidate, true);
  assert.equal(safety.salience, 1, 'matches no registry pattern, but a safety entry always has salience 1.0 (seed 000)');
});

test('each write is scanned once; the cursor moves past what was seen', async () => {
  const { blackboard, consolidator } = setup();
  blackboard.write('goal.achieved', 1);
  await consolidator.integrate(1);
  await consolidator.integrate(1);
  blackboard.write('goal.achieved', 2); // a new write of the same key is a new event
  const r = await consolidator.integrate(1);
  assert.equal(r.scanned, 1);
  assert.deepEqual(consolidator.buffer.snapshot().map((e) => e.valueSnapshot), [1, 2]);
});

test('temporal decay: a write scanned ticks later is scored by its age', async () => {
  const { blackboard, consolidator } = setup({ scanLimit: 1 });
  blackboard.write('perception.x', 0);
  blackboard.write('learning.new_association.late', 1);
  assert.equal((await consolidator.integrate(1)).faded, 0); // scans only perception.x
  const late = await consolidator.integrate(2); // age 1: 0.7 - 0.05 < 0.7
  assert.equal(consolidator.buffer.size, 0);
  // Not buffered, but not lost unseen either: the scan counts it.
  assert.equal(late.faded, 1);
  assert.equal(consolidator.stats().faded, 1);
  blackboard.setTick(2);
  blackboard.write('goal.achieved', 2);
  await consolidator.integrate(4); // age 2: 0.9 - 0.1 = 0.8
  assert.ok(Math.abs(consolidator.buffer.snapshot()[0]!.salience - 0.8) < 1e-9);
});

test('buffer overflow: the oldest ordinary events are dropped and counted', async () => {
  const { blackboard, consolidator } = setup({ capacity: 3 });
  for (let i = 0; i < 5; i++) blackboard.write(`learning.new_association.k${i}`, i);
  const r = await consolidator.integrate(1);
  assert.equal(r.buffered, 5);
  assert.equal(r.evicted, 2);
  assert.deepEqual(consolidator.buffer.snapshot().map((e) => e.valueSnapshot), [2, 3, 4]);
  assert.equal(consolidator.stats().evicted, 2);
});

test('a salient write evicted from a full blackboard before INTEGRATION is still buffered, not lost unseen', async () => {
  const clock = manualClock();
  const blackboard = new Blackboard({ clock: clock.now, capacity: 10 });
  const store = new MemoryEpisodeStore();
  const consolidator = new MemoryConsolidator({ blackboard, principal: owner, sink: store, clock: clock.now });
  blackboard.setTick(1);
  blackboard.write('goal.achieved', { goal: 'first' });
  blackboard.write('goal.achieved', { goal: 'second' }); // supersedes: the first is inactive, dropped first and announced by no event
  blackboard.write('stigmergy.coalition_accept.c', 1);
  for (let i = 0; i < 30; i++) blackboard.write(`perception.noise.n${i}`, i);
  assert.equal(blackboard.stats().total, 10);
  const r = await consolidator.integrate(1);
  assert.equal(r.scanned, 10, 'the scan only sees what is left on the board');
  const flushed = await consolidator.flush(1);
  assert.deepEqual(
    flushed.episodes.map((e) => [e.blackboardKey, e.valueSnapshot]),
    [
      ['goal.achieved', { goal: 'first' }],
      ['goal.achieved', { goal: 'second' }],
      ['stigmergy.coalition_accept.c', 1],
    ],
  );
  // Once scanned, an entry evicted later is not buffered a second time.
  blackboard.write('goal.achieved', { goal: 'third' });
  await consolidator.integrate(2);
  for (let i = 0; i < 30; i++) blackboard.write(`perception.more.n${i}`, i);
  assert.deepEqual((await consolidator.flush(2)).episodes.map((e) => e.valueSnapshot), [{ goal: 'third' }]);
  // sweep() drops inactive entries too: an unscanned superseded one is judged first.
  blackboard.write('goal.achieved', { goal: 'fourth' });
  blackboard.write('goal.achieved', { goal: 'fifth' });
  blackboard.sweep();
  await consolidator.integrate(3);
  assert.deepEqual((await consolidator.flush(3)).episodes.map((e) => e.valueSnapshot), [{ goal: 'fourth' }, { goal: 'fifth' }]);
  consolidator.close();
});

test('never-evict: every safety event is consolidated even under heavy buffer pressure', async () => {
  const { blackboard, consolidator, store } = setup({ capacity: 2 });
  for (let i = 0; i < 3; i++) blackboard.write(`safety.weight_update_blocked.n${i}`, i);
  for (let i = 0; i < 50; i++) blackboard.write(`goal.achieved`, i);
  await consolidator.integrate(1);
  const r = await consolidator.flush(1);
  const safety = r.episodes.filter((e) => e.readOnly).map((e) => e.blackboardKey);
  assert.deepEqual(safety, ['safety.weight_update_blocked.n0', 'safety.weight_update_blocked.n1', 'safety.weight_update_blocked.n2']);
  assert.equal(store.memories.filter((m) => m.labels.includes('SafetyAudit')).length, 3);
  assert.equal(consolidator.stats().evicted, 50);
});

test('episode write: one batch, bi-temporal fields, safety labels, read-only, summary on the blackboard', async () => {
  const { blackboard, consolidator, store, clock, log } = setup();
  const g = blackboard.write('goal.achieved', { goal: 'ship', steps: 3 });
  const s = blackboard.write('safety.verification_blocked', { rule: 'no-exfiltration' });
  await consolidator.integrate(1);
  clock.advance(60_000);
  const r = await consolidator.flush(5);
  assert.equal(store.batches, 1);
  assert.equal(r.consolidated, 2);
  const [ge, se] = r.episodes;
  assert.deepEqual(
    { ...ge!, tags: [...ge!.tags], labels: [...ge!.labels] },
    {
      eventId: g.id,
      blackboardKey: 'goal.achieved',
      valueSnapshot: { goal: 'ship', steps: 3 },
      salience: 0.9,
      tick: 1,
      sourceModule: 'goal',
      tags: [],
      validFrom: new Date(g.createdAt).toISOString(),
      transactionTime: new Date(g.createdAt + 60_000).toISOString(),
      labels: ['Episode'],
      readOnly: false,
    },
  );
  assert.equal(se!.eventId, s.id);
  assert.deepEqual(se!.labels, ['Episode', 'SafetyAudit']);
  assert.equal(se!.readOnly, true);
  const m = store.memories.find((x) => x.sourceKey === `cycle:${s.id}`)!;
  assert.equal(m.type, 'episode');
  assert.equal(m.readOnly, true);
  assert.equal(m.text, 'safety.verification_blocked = {"rule":"no-exfiltration"}');
  const summary = blackboard.read(CONSOLIDATION_KEY)!;
  assert.deepEqual(summary.value, { consolidated: 2, tick: 5, buffer_size: 0 });
  assert.equal(summary.ttlSeconds, 3600);
  assert.equal((await log.pending()).length, 0);
  assert.deepEqual(log.settled, [{ id: s.id, outcome: 'consolidated' }]);
  assert.ok(ge!.transactionTime > ge!.validFrom);
});

test('safety block: a vetoed event is not consolidated and the block itself is recorded', async () => {
  const verifier = new RuleBasedSafetyVerifier({ vetoGlobs: ['stigmergy.*'], alwaysBlock: ['*"secret":*'] });
  const { blackboard, consolidator, store, log } = setup({ verifier });
  blackboard.write('stigmergy.coalition_accept.c1', { with: 'agent-9' });
  blackboard.write('goal.achieved', { secret: 'hunter2' });
  const s = blackboard.write('safety.verification_blocked', { ok: true });
  verifier.veto('safety.verification_*');
  await consolidator.integrate(1);
  const r = await consolidator.flush(1);
  assert.equal(r.consolidated, 0);
  assert.equal(store.memories.length, 0);
  assert.deepEqual(r.blocked.map((b) => [b.blackboardKey, b.safety]), [
    ['stigmergy.coalition_accept.c1', false],
    ['goal.achieved', false],
    ['safety.verification_blocked', true],
  ]);
  assert.match(r.blocked[0]!.reason, /veto glob "stigmergy\.\*"/);
  assert.match(r.blocked[1]!.reason, /always-block pattern/);
  assert.equal(store.blocked.length, 3);
  assert.deepEqual((blackboard.read(BLOCKED_KEY)!.value as Array<{ eventId: string }>).map((b) => b.eventId).at(-1), s.id);
  assert.deepEqual(log.settled, [{ id: s.id, outcome: 'blocked' }]);
  assert.equal(consolidator.buffer.size, 0);
  assert.equal(consolidator.stats().blocked, 3);
});

test('one transaction: when the sink fails nothing is settled and everything waits for the next sleep', async () => {
  const { blackboard, consolidator, store, log } = setup();
  blackboard.write('goal.achieved', 1);
  blackboard.write('safety.verification_blocked', 2);
  await consolidator.integrate(1);
  store.failNext = new Error('disk full');
  await assert.rejects(consolidator.flush(1), (e) => MnemosError.is(e, 'unavailable') && /stay buffered/.test(e.message));
  assert.equal(store.memories.length, 0);
  assert.equal(consolidator.buffer.size, 2);
  assert.equal((await log.pending()).length, 1);
  const r = await consolidator.flush(2);
  assert.equal(r.consolidated, 2);
  assert.equal(store.memories.length, 2);
});

test('an event the store itself refuses is blocked with its reason; it no longer holds back the others at every sleep', async () => {
  const { blackboard, consolidator, store, log } = setup();
  // Refuses any batch holding a "poison" value, the way the store refuses a NUL tag written before it was checked.
  const persist = store.persistEpisodes.bind(store);
  store.persistEpisodes = async (p, drafts) => {
    if (drafts.some((d) => d.valueSnapshot === 'poison')) throw new MnemosError('validation_failed', 'tags contains the NUL character');
    return persist(p, drafts);
  };
  blackboard.write('goal.achieved', 'ok-1');
  const bad = blackboard.write('safety.verification_blocked', 'poison');
  blackboard.write('learning.new_association.x', 'ok-2');
  await consolidator.integrate(1);
  const r = await consolidator.flush(1);
  assert.deepEqual(r.episodes.map((e) => e.valueSnapshot), ['ok-1', 'ok-2']);
  assert.equal(r.consolidated, 2);
  assert.deepEqual(r.blocked.map((b) => [b.eventId, b.safety, b.verifier]), [[bad.id, true, 'store']]);
  assert.match(r.blocked[0]!.reason, /the store refused the episode: tags contains the NUL/);
  assert.deepEqual(store.blocked.map((b) => b.eventId), [bad.id], 'the refusal is recorded like a block');
  assert.equal(consolidator.buffer.size, 0);
  assert.deepEqual(await log.pending(), [], 'settled as blocked: it does not come back after a restart');
  assert.deepEqual(store.memories.map((m) => m.source.key).sort(), ['goal.achieved', 'learning.new_association.x']);
  // The next sleep has nothing left to fail on.
  blackboard.write('goal.achieved', 'ok-3');
  await consolidator.integrate(2);
  assert.deepEqual((await consolidator.flush(2)).errors, []);
  assert.equal(store.memories.length, 3);
});

test('a failing verifier defers its events instead of dropping or approving them', async () => {
  const { blackboard, store } = setup();
  let down = true;
  const consolidator = new MemoryConsolidator({
    blackboard,
    principal: owner,
    sink: store,
    verifier: {
      name: 'flaky',
      verify: async () => {
        if (down) throw new Error('verifier offline');
        return { approved: true, reason: null, verifier: 'flaky' };
      },
    },
  });
  blackboard.write('goal.achieved', 1);
  await consolidator.integrate(1);
  const r1 = await consolidator.flush(1);
  assert.equal(r1.deferred, 1);
  assert.match(r1.errors[0]!, /verifier offline/);
  assert.equal(store.memories.length, 0);
  down = false;
  assert.equal((await consolidator.flush(2)).consolidated, 1);
});

test('safety writes are captured and durable at write time: a retraction before INTEGRATION hides nothing', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'safety.jsonl');
  const log = await FileDurableEventLog.open(path);
  const blackboard = new Blackboard();
  const store = new MemoryEpisodeStore();
  const c = new MemoryConsolidator({ blackboard, principal: owner, sink: store, log });
  const e = blackboard.write('safety.weight_update_blocked', { layer: 7 });
  blackboard.retract('safety.weight_update_blocked');
  // On disk already, before any tick: a second reader sees it.
  const reader = await FileDurableEventLog.open(path);
  assert.deepEqual((await reader.pending()).map((x) => x.eventId), [e.id]);
  await reader.close();
  await c.integrate(1);
  assert.equal(c.buffer.size, 1, 'captured once, not again by the scan');
  const r = await c.flush(1);
  assert.equal(r.consolidated, 1);
  assert.deepEqual(await log.pending(), []);
  await log.close();
});

test('the consolidator never turns its own writes into episodes', async () => {
  const salience = new SalienceModel({ registry: { ...DEFAULT_SALIENCE_REGISTRY, 'memory.*': 1 } });
  const { blackboard, consolidator, store } = setup({ salience });
  blackboard.write('goal.achieved', 1);
  await consolidator.integrate(1);
  await consolidator.flush(1); // writes memory.consolidation
  await consolidator.integrate(2);
  assert.equal(consolidator.buffer.size, 0);
  blackboard.write('memory.user_note', 'x'); // written by someone else: fair game
  await consolidator.integrate(2);
  assert.equal(consolidator.buffer.size, 1);
  assert.equal(store.memories.length, 1);
});

test('restart: pending safety events in the log are re-buffered and consolidated once', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'safety.jsonl');
  const log1 = await FileDurableEventLog.open(path);
  const bb1 = new Blackboard();
  new MemoryConsolidator({ blackboard: bb1, principal: owner, sink: new MemoryEpisodeStore(), log: log1 });
  // The first "process" captures two safety writes, then dies before any sleep.
  bb1.write('safety.verification_blocked', 1);
  bb1.write('safety.weight_update_blocked', 2);
  await log1.close();

  const store = new MemoryEpisodeStore();
  const log2 = await FileDurableEventLog.open(path);
  const c2 = new MemoryConsolidator({ blackboard: new Blackboard(), principal: owner, sink: store, log: log2 });
  assert.equal(await c2.recover(), 2);
  assert.equal(await c2.recover(), 2, 'idempotent');
  const r = await c2.flush(1);
  assert.equal(r.consolidated, 2);
  assert.deepEqual(store.memories.map((m) => m.labels), [['Episode', 'SafetyAudit'], ['Episode', 'SafetyAudit']]);
  await log2.close();
  const log3 = await FileDurableEventLog.open(path);
  assert.deepEqual(await log3.pending(), []);
  await log3.close();
});

test('safety writes made before the consolidator existed are found by the scan and made durable then', async () => {
  const blackboard = new Blackboard();
  blackboard.setTick(1);
  const early = blackboard.write('safety.verification_blocked', 'before');
  const log = new VolatileEventLog();
  const c = new MemoryConsolidator({ blackboard, principal: owner, sink: new MemoryEpisodeStore(), log });
  assert.deepEqual(await log.pending(), []);
  const late = blackboard.write('safety.verification_blocked', 'after');
  assert.deepEqual((await log.pending()).map((e) => e.eventId), [late.id]);
  const r = await c.integrate(1);
  assert.equal(r.buffered, 1, 'only the early one: the late one was captured at write time');
  assert.deepEqual((await log.pending()).map((e) => e.eventId).sort(), [early.id, late.id].sort());
  assert.equal(c.buffer.size, 2);
});
