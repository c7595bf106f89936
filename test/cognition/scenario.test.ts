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

test('a replay without a start time ends now: no event dated in the future, episodes recorded at the real time', async () => {
  const lines = [
    { tick: 1, write: { key: 'goal.achieved', value: 'early' } },
    { tick: 7200, write: { key: 'goal.achieved', value: 'late' } },
    { tick: 7200, state: 'sleep' },
  ].map((x) => JSON.stringify(x));
  const store = new MemoryEpisodeStore();
  const before = Date.now();
  const r = await runScenario(lines, { principal: owner, sink: store });
  const after = Date.now();
  assert.deepEqual(r.episodes.map((e) => e.valueSnapshot), ['early', 'late']);
  const [early, late] = r.episodes.map((e) => ({ valid: Date.parse(e.validFrom), recorded: Date.parse(e.transactionTime) }));
  assert.equal(late!.valid - early!.valid, 7199 * 1000, 'ticks stay a second apart');
  assert.ok(late!.valid <= after, `the last event is not in the future (${r.episodes[1]!.validFrom})`);
  for (const e of [early!, late!]) {
    assert.ok(e.recorded >= before && e.recorded <= after, 'transaction time is when the episode was written');
    assert.ok(e.valid <= e.recorded);
  }
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

test('writes beyond the per-tick scan limit that decay below the threshold are counted as faded', async () => {
  // 250 associations (0.7, exactly the threshold) in one tick: the scan takes 200, the other 50 wait a tick and score 0.65.
  const lines = Array.from({ length: 250 }, (_, i) => JSON.stringify({ tick: 1, write: { key: `learning.new_association.k${i}`, value: i } }));
  lines.push(JSON.stringify({ tick: 2, state: 'sleep' }));
  const store = new MemoryEpisodeStore();
  const r = await runScenario(lines, { principal: owner, sink: store });
  assert.equal(r.buffered, 200);
  assert.equal(r.consolidated, 200);
  assert.equal(r.faded, 50);
  assert.equal(r.buffered + r.faded, 250, 'every salient write is accounted for');
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

test('a write the blackboard would refuse fails at parse, with its line, before any tick persists', async () => {
  const deep = JSON.stringify(Array.from({ length: 70 }).reduce<unknown>((v) => [v], 1));
  const cases: Array<[line: string, message: RegExp]> = [
    ['{"tick": 2, "write": {"key": "goal. bad key", "value": 1}}', /line 3: invalid blackboard key/],
    ['{"tick": 2, "write": {"key": "goal..x", "value": 1}}', /line 3: invalid blackboard key/],
    ['{"tick": 2, "write": {"key": ".goal", "value": 1}}', /line 3: invalid blackboard key/],
    [`{"tick": 2, "write": {"key": "k${'x'.repeat(300)}", "value": 1}}`, /line 3: invalid blackboard key/],
    [`{"tick": 2, "write": {"key": "learning.new_association.deep", "value": ${deep}}}`, /line 3: .*nests deeper than 64 levels/],
  ];
  for (const [bad, message] of cases) {
    const store = new MemoryEpisodeStore();
    // Tick 1 sleeps: without the check its episode was persisted before tick 2 failed.
    const text = ['{"tick": 1, "write": {"key": "goal.achieved", "value": 1}}', '{"tick": 1, "state": "sleep"}', bad].join('\n');
    assert.throws(() => parseScenario(text), (e) => MnemosError.is(e, 'validation_failed') && message.test(e.message) && e.details?.['line'] === 3, bad.slice(0, 60));
    await assert.rejects(runScenario(text, { principal: owner, sink: store }), (e) => MnemosError.is(e, 'validation_failed') && e.details?.['line'] === 3);
    assert.equal(store.batches, 0, `nothing persisted: ${bad.slice(0, 60)}`);
  }
});

test('maxEpisodeChars: a write whose episode text would be too long is limit_exceeded, naming its line', async () => {
  // `goal.achieved = "…"` is 18 characters plus the value's length.
  const line = (n: number) => JSON.stringify({ tick: 2, write: { key: 'goal.achieved', value: 'x'.repeat(n) } });
  const cases: Array<[valueChars: number, max: number | undefined, ok: boolean]> = [
    [82, 100, true], // exactly 100
    [83, 100, false], // 101
    [300_000, 200_000, false],
    [300_000, undefined, true], // no limit given: the cognition layer has none of its own
  ];
  for (const [n, max, ok] of cases) {
    const text = ['{"tick": 1, "write": {"key": "goal.achieved", "value": 1}}', '{"tick": 1, "state": "sleep"}', line(n)].join('\n');
    const limits = max === undefined ? {} : { maxEpisodeChars: max };
    if (ok) {
      assert.equal(parseScenario(text, limits).length, 3, `${n}/${max}`);
      continue;
    }
    assert.throws(() => parseScenario(text, limits), (e) => MnemosError.is(e, 'limit_exceeded') && /line 3/.test(e.message) && e.details?.['line'] === 3, `${n}/${max}`);
    const store = new MemoryEpisodeStore();
    await assert.rejects(runScenario(text, { principal: owner, sink: store, limits }), (e) => MnemosError.is(e, 'limit_exceeded'));
    assert.equal(store.batches, 0, 'nothing persisted');
  }
});
