import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BIO_STATE_KEY, CONSOLIDATION_KEY, RETRIEVED_KEY } from '../../src/cognition/keys.ts';
import { createMemoryCycle } from '../../src/cognition/memory-cycle.ts';
import type { RetrievedEpisode } from '../../src/cognition/episode.ts';
import { EpisodeRetrieval } from '../../src/cognition/retrieval.ts';
import { Blackboard } from '../../src/cognition/blackboard.ts';
import { agent, manualClock, MemoryEpisodeStore, owner } from './helpers.ts';

const HOUR = 3_600_000;

test('sleep-wake cycle: awake ticks buffer, a sleep tick flushes, waking resumes buffering', async () => {
  const clock = manualClock();
  const store = new MemoryEpisodeStore();
  const { blackboard, cycle, consolidator } = createMemoryCycle({ principal: owner, sink: store, source: store, clock: clock.now });
  const act = (key: string, value: unknown) =>
    cycle.register({ name: `write-${key}-${cycle.currentTick}`, phases: { ACTION: (ctx) => void ctx.blackboard.write(key, value) } });

  let off = act('goal.achieved', 'first');
  await cycle.tick();
  off();
  assert.equal(consolidator.buffer.size, 1);
  assert.equal(store.memories.length, 0, 'awake: nothing is persisted');

  blackboard.write(BIO_STATE_KEY, 'SLEEP');
  const sleepTick = await cycle.tick();
  assert.equal(sleepTick.sleeping, true);
  assert.deepEqual(sleepTick.errors, []);
  assert.equal(store.memories.length, 1);
  assert.deepEqual(blackboard.read(CONSOLIDATION_KEY)!.value, { consolidated: 1, tick: 2, buffer_size: 0 });

  blackboard.write(BIO_STATE_KEY, 'AWAKE');
  off = act('learning.new_association.sun_warm', { strength: 0.9 });
  clock.advance(1000);
  await cycle.tick();
  off();
  assert.equal(consolidator.buffer.size, 1);
  assert.equal(store.memories.length, 1);

  blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await cycle.tick();
  assert.equal(store.memories.length, 2);
  assert.equal(consolidator.stats().consolidated, 2);
});

test('retrieval at PERCEPTION: salience >= 0.6, last 24 h, by salience, at most 20, TTL 100', async () => {
  const clock = manualClock(Date.UTC(2025, 5, 1));
  const store = new MemoryEpisodeStore();
  const { blackboard, cycle } = createMemoryCycle({ principal: owner, sink: store, source: store, clock: clock.now });
  blackboard.write('goal.achieved', 'old'); // will be 25 h old
  blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await cycle.tick();
  clock.advance(2 * HOUR);
  for (let i = 0; i < 25; i++) blackboard.write(`learning.new_association.n${i}`, i);
  blackboard.write('safety.verification_passed', 'checked');
  blackboard.write('stigmergy.handoff.h', 'below 0.7: never buffered');
  await cycle.tick();
  assert.equal(store.memories.length, 27);

  clock.advance(23 * HOUR);
  blackboard.write(BIO_STATE_KEY, 'AWAKE');
  const r = await cycle.tick();
  assert.deepEqual(r.errors, []);
  const entry = blackboard.read(RETRIEVED_KEY)!;
  assert.equal(entry.ttlSeconds, 100);
  const episodes = entry.value as unknown as RetrievedEpisode[];
  assert.equal(episodes.length, 20);
  assert.equal(episodes[0]!.blackboardKey, 'safety.verification_passed');
  assert.ok(episodes.every((e) => e.salience >= 0.6));
  assert.ok(!episodes.some((e) => e.valueSnapshot === 'old'), 'the 25 h old episode is outside the window');
  for (let i = 1; i < episodes.length; i++) assert.ok(episodes[i - 1]!.salience >= episodes[i]!.salience);
});

test('a safety event no registry pattern names is consolidated at salience 1.0 and retrieved at PERCEPTION', async () => {
  const clock = manualClock(Date.UTC(2025, 5, 1));
  const store = new MemoryEpisodeStore();
  const { blackboard, cycle } = createMemoryCycle({ principal: owner, sink: store, source: store, clock: clock.now });
  blackboard.write('safety.tool_call_blocked', { tool: 'shell', why: 'destructive' });
  blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await cycle.tick();
  assert.equal(store.memories.length, 1);
  assert.equal(store.memories[0]!.salience, 1);
  assert.ok(store.memories[0]!.labels.includes('SafetyAudit'));

  clock.advance(HOUR);
  blackboard.write(BIO_STATE_KEY, 'AWAKE');
  await cycle.tick();
  const episodes = blackboard.read(RETRIEVED_KEY)!.value as unknown as RetrievedEpisode[];
  assert.deepEqual(episodes.map((e) => [e.blackboardKey, e.salience]), [['safety.tool_call_blocked', 1]]);
});

test('retrieval is scoped to the principal and configurable', async () => {
  const clock = manualClock();
  const store = new MemoryEpisodeStore();
  // Owner-visibility episodes are invisible to an agent principal.
  const ownerCycle = createMemoryCycle({ principal: owner, sink: store, clock: clock.now });
  ownerCycle.blackboard.write('goal.achieved', 'owner only');
  ownerCycle.blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await ownerCycle.cycle.tick();
  const agentCycle = createMemoryCycle({ principal: agent, sink: store, clock: clock.now });
  agentCycle.blackboard.write('stigmergy.coalition_accept.c', 'shared');
  agentCycle.blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await agentCycle.cycle.tick();

  const bb = new Blackboard({ clock: clock.now });
  const asAgent = await new EpisodeRetrieval({ blackboard: bb, principal: agent, source: store, clock: clock.now }).retrieve();
  assert.deepEqual(asAgent.map((e) => e.valueSnapshot), ['shared']);
  const asOwner = await new EpisodeRetrieval({ blackboard: bb, principal: owner, source: store, config: { minSalience: 0.8, limit: 5, ttl: 7 } }).retrieve(clock.now());
  assert.deepEqual(asOwner.map((e) => e.valueSnapshot), ['owner only']);
  assert.equal(bb.read(RETRIEVED_KEY)!.ttlSeconds, 7);
});

test('memory survives a cycle restart: a fresh cycle on the same store retrieves it', async () => {
  const clock = manualClock();
  const store = new MemoryEpisodeStore();
  const first = createMemoryCycle({ principal: owner, sink: store, source: store, clock: clock.now });
  first.blackboard.write('goal.achieved', { goal: 'learn TypeScript' });
  first.blackboard.write(BIO_STATE_KEY, 'SLEEP');
  await first.cycle.tick();
  first.consolidator.close();

  clock.advance(HOUR);
  const second = createMemoryCycle({ principal: owner, sink: store, source: store, clock: clock.now });
  assert.equal(second.blackboard.read('goal.achieved'), undefined, 'the blackboard is ephemeral');
  await second.cycle.tick();
  const episodes = second.blackboard.read(RETRIEVED_KEY)!.value as unknown as RetrievedEpisode[];
  assert.deepEqual(episodes.map((e) => e.valueSnapshot), [{ goal: 'learn TypeScript' }]);
});

test('the built-in sleep model can drive the cycle instead of the signal', async () => {
  const store = new MemoryEpisodeStore();
  const { blackboard, cycle } = createMemoryCycle({
    principal: owner,
    sink: store,
    clock: () => 6 * HOUR, // circadian peak
    rng: () => 0.1,
    config: { bio: { mode: 'model', model: { initialPressure: 0.35 } } },
  });
  blackboard.write('goal.achieved', 1);
  const r = await cycle.tick();
  assert.equal(r.bio.source, 'model');
  assert.equal(r.bio.state, 'nrem_sleep');
  assert.equal(store.memories.length, 1);
});
