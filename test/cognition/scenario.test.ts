import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseScenario, runScenario } from '../../src/cognition/scenario.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { MemoryEpisodeStore, owner } from './helpers.ts';

const SCENARIO = `
{"tick": 1, "write": {"key": "goal.achieved", "value": {"goal": "map the room"}}}
{"tick": 1, "write": {"key": "perception.noise", "value": 1, "ttl": 5}}
{"tick": 2, "write": {"key": "safety.verification_blocked", "value": {"action": "rm -rf"}, "priority": "critical"}}
{"tick": 2, "write": {"key": "stigmergy.coalition_accept.c1", "value": {"with": "agent-7"}}}
{"tick": 2, "veto": "stigmergy.*"}
{"tick": 3, "state": "sleep"}
{"tick": 4, "state": "awake"}
{"tick": 5, "write": {"key": "learning.new_association.fire_hot", "value": 0.9}}
`;

test('runScenario replays ticks, sleep and vetoes and reports the counts', async () => {
  const store = new MemoryEpisodeStore();
  const r = await runScenario(SCENARIO, { principal: owner, sink: store, source: store, startMs: Date.UTC(2025, 0, 1) });
  assert.equal(r.ticks, 5);
  assert.equal(r.buffered, 4);
  assert.equal(r.consolidated, 2);
  assert.equal(r.blocked, 1);
  assert.equal(r.evicted, 0);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(r.episodes.map((e) => [e.blackboardKey, e.tick, e.readOnly]), [
    ['goal.achieved', 1, false],
    ['safety.verification_blocked', 2, true],
  ]);
  assert.deepEqual(r.blockedEvents.map((b) => b.blackboardKey), ['stigmergy.coalition_accept.c1']);
  assert.equal(r.episodes[0]!.validFrom, '2025-01-01T00:00:00.000Z');
  assert.equal(r.episodes[0]!.transactionTime, '2025-01-01T00:00:02.000Z');
  assert.equal(store.memories.length, 2);
  // The tick-5 association is still buffered: no sleep after it.
  assert.equal(JSON.parse(JSON.stringify(r)).episodes.length, 2, 'the result is plain JSON');
});

test('buffer overflow through a scenario counts evictions', async () => {
  const lines = Array.from({ length: 12 }, (_, i) => JSON.stringify({ tick: 1, write: { key: `learning.new_association.k${i}`, value: i } }));
  lines.push(JSON.stringify({ tick: 2, state: 'sleep' }));
  const store = new MemoryEpisodeStore();
  const r = await runScenario(lines, { principal: owner, sink: store, config: { consolidator: { bufferCapacity: 10 } } });
  assert.equal(r.evicted, 2);
  assert.equal(r.consolidated, 10);
  assert.deepEqual(r.episodes.map((e) => e.valueSnapshot), [2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
});

test('a malformed line fails with its line number before anything runs', async () => {
  const cases: Array<[string, RegExp]> = [
    ['{"tick": 1, "write": {"key": "a.b"}}', /line 3/],
    ['{"tick": -1, "state": "sleep"}', /line 3/],
    ['{"tick": 1, "state": "nap"}', /line 3/],
    ['{"tick": 1}', /line 3: expected exactly one of "write", "state", "veto", found none/],
    ['{"tick": 1, "state": "sleep", "veto": "x"}', /found state, veto/],
    ['{"tick": 1, "write": {"key": "a.b", "value": 1, "colour": "red"}}', /line 3/],
    ['{"tick": 1.5, "veto": "x.*"}', /line 3/],
    ['not json', /line 3: not JSON/],
    ['[1,2]', /line 3: expected a JSON object/],
    ['{"tick": 1, "write": {"key": "a.b", "value": 1, "priority": "urgent"}}', /line 3/],
  ];
  for (const [bad, message] of cases) {
    const store = new MemoryEpisodeStore();
    const text = ['{"tick": 1, "write": {"key": "goal.achieved", "value": 1}}', '{"tick": 2, "state": "sleep"}', bad].join('\n');
    await assert.rejects(
      runScenario(text, { principal: owner, sink: store }),
      (e) => MnemosError.is(e, 'validation_failed') && message.test(e.message) && e.details?.['line'] === 3,
      bad,
    );
    assert.equal(store.batches, 0, 'nothing ran');
  }
});

test('parseScenario: blank lines are skipped, steps keep their line numbers', () => {
  const steps = parseScenario('\n{"tick": 0, "veto": "a.*"}\n\n{"tick": 2, "write": {"key": "x.y", "value": null, "ttl": 3}}\n');
  assert.deepEqual(steps, [
    { line: 2, tick: 0, kind: 'veto', glob: 'a.*' },
    { line: 4, tick: 2, kind: 'write', key: 'x.y', value: null, ttl: 3 },
  ]);
});

test('an empty scenario runs no ticks', async () => {
  const r = await runScenario('', { principal: owner, sink: new MemoryEpisodeStore() });
  assert.equal(r.ticks, 0);
});
