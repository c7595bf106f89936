import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConsolidationBuffer } from '../../src/cognition/consolidation-buffer.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';

let n = 0;
function ev(key: string, always = false): EpisodicEvent {
  n += 1;
  return {
    eventId: `e${n}`,
    blackboardKey: key,
    valueSnapshot: n,
    salience: always ? 1 : 0.8,
    tick: n,
    timestamp: new Date(n * 1000).toISOString(),
    sourceModule: key.split('.')[0]!,
    tags: [],
    alwaysConsolidate: always,
    consolidated: false,
  };
}

test('buffer overflow: a full ring drops its oldest ordinary event first', () => {
  const b = new ConsolidationBuffer(3);
  const [a, bb, c, d] = [ev('goal.a'), ev('goal.b'), ev('goal.c'), ev('goal.d')];
  for (const e of [a, bb, c]) assert.deepEqual(b.push(e), []);
  assert.deepEqual(b.push(d), [a]);
  assert.deepEqual(b.snapshot().map((e) => e.blackboardKey), ['goal.b', 'goal.c', 'goal.d']);
  assert.equal(b.evicted, 1);
  assert.equal(b.size, 3);
});

test('never-evict: safety events survive any pressure and push ordinary ones out', () => {
  const b = new ConsolidationBuffer(3);
  const s1 = ev('safety.x_blocked', true);
  b.push(s1);
  b.push(ev('goal.a'));
  b.push(ev('goal.b'));
  const s2 = ev('safety.y_blocked', true);
  assert.deepEqual(b.push(s2).map((e) => e.blackboardKey), ['goal.a']);
  for (let i = 0; i < 10; i++) b.push(ev(`goal.more${i}`));
  const s3 = ev('safety.z_blocked', true);
  const s4 = ev('safety.w_blocked', true);
  b.push(s3);
  b.push(s4); // all four safety events now exceed capacity: no ordinary event is left
  const keys = b.snapshot().map((e) => e.blackboardKey);
  assert.deepEqual(keys, ['safety.x_blocked', 'safety.y_blocked', 'safety.z_blocked', 'safety.w_blocked']);
  assert.equal(b.size, 4); // past capacity
  assert.equal(b.protectedCount, 4);
  // An ordinary event arriving at a buffer full of safety events is itself the one dropped.
  const late = ev('goal.late');
  assert.deepEqual(b.push(late), [late]);
  assert.equal(b.evicted, 1 + 10 + 1 + 1);
});

test('drain returns everything in arrival order; restore puts events back ahead of newer ones', () => {
  const b = new ConsolidationBuffer(10);
  const events = [ev('goal.a'), ev('safety.s_blocked', true), ev('goal.b')];
  for (const e of events) b.push(e);
  const drained = b.drain();
  assert.deepEqual(drained, events);
  assert.equal(b.size, 0);
  const newer = ev('goal.c');
  b.push(newer);
  b.restore(drained);
  assert.deepEqual(b.snapshot(), [...events, newer]);
});

test('the same event id is buffered once', () => {
  const b = new ConsolidationBuffer(10);
  const e = ev('goal.a');
  b.push(e);
  b.push(e);
  assert.equal(b.size, 1);
  assert.equal(b.has(e.eventId), true);
});

test('capacity must be a positive integer', () => {
  assert.throws(() => new ConsolidationBuffer(0), /positive integer/);
});

test('a long run keeps exactly the last `capacity` ordinary events', () => {
  const b = new ConsolidationBuffer(1000);
  const all: EpisodicEvent[] = [];
  for (let i = 0; i < 5000; i++) {
    const e = ev(`goal.k${i}`);
    all.push(e);
    b.push(e);
  }
  assert.deepEqual(b.snapshot(), all.slice(-1000));
  assert.equal(b.evicted, 4000);
});
