import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Blackboard } from '../../src/cognition/blackboard.ts';
import type { BlackboardEvent, SubscriberFailure } from '../../src/cognition/blackboard-types.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { manualClock } from './helpers.ts';

test('write and read: the value is copied and frozen; metadata defaults', () => {
  const bb = new Blackboard({ clock: manualClock().now });
  const value = { a: [1, 2], b: { c: 'x' } };
  const e = bb.write('goal.achieved', value, { tags: ['t1'] });
  value.a.push(3);
  assert.deepEqual(bb.read('goal.achieved')?.value, { a: [1, 2], b: { c: 'x' } });
  assert.ok(Object.isFrozen(e.value));
  assert.throws(() => ((e.value as { a: number[] }).a as number[]).push(4));
  assert.equal(e.status, 'active');
  assert.equal(e.priority, 'normal');
  assert.equal(e.sourceModule, 'goal');
  assert.equal(e.confidence, 1);
  assert.equal(e.parentId, null);
  assert.deepEqual(e.tags, ['t1']);
  assert.equal(bb.read('missing'), undefined);
});

test('non-JSON values and bad keys are refused with validation_failed', () => {
  const bb = new Blackboard();
  const cyclic: Record<string, unknown> = {};
  cyclic['self'] = cyclic;
  for (const bad of [new Date(), Number.NaN, Infinity, () => 1, 10n, cyclic, { d: new Map() }]) {
    assert.throws(() => bb.write('x.y', bad), (e) => MnemosError.is(e, 'validation_failed'), String(bad));
  }
  for (const key of ['', '.a', 'a.', 'a..b', 'a b', 'a\nb', 'x'.repeat(300)]) {
    assert.throws(() => bb.write(key, 1), (e) => MnemosError.is(e, 'validation_failed') && /blackboard key/.test(e.message), JSON.stringify(key));
  }
  assert.throws(() => bb.write('a.b', 1, { ttl: 0 }), /ttl/);
  assert.throws(() => bb.write('a.b', 1, { priority: 'urgent' as never }), /priority/);
  assert.throws(() => bb.write('a.b', 1, { confidence: 2 }), /confidence/);
  assert.equal(bb.stats().total, 0);
});

test('writing an existing key supersedes the previous entry and announces an update', () => {
  const bb = new Blackboard();
  const events: BlackboardEvent[] = [];
  bb.subscribe('blackboard.entry.*', (e) => void events.push(e));
  const first = bb.write('goal.achieved', 1);
  const second = bb.write('goal.achieved', 2);
  assert.equal(first.status, 'superseded');
  assert.equal(bb.read('goal.achieved')?.id, second.id);
  assert.deepEqual(events.map((e) => e.type), ['blackboard.entry.added', 'blackboard.entry.updated']);
  assert.equal(events[1]!.previous?.id, first.id);
  assert.deepEqual(bb.query('goal.*', { status: 'superseded' }).map((e) => e.value), [1]);
  assert.deepEqual(bb.query('goal.*', { status: 'any' }).map((e) => e.value), [1, 2]);
  assert.ok(second.seq > first.seq);
});

test('TTL: expired entries are marked expired and announced once, kept until sweep', () => {
  const clock = manualClock();
  const bb = new Blackboard({ clock: clock.now });
  const expired: string[] = [];
  bb.subscribe('blackboard.entry.expired', (e) => void expired.push(e.entry.key));
  const e = bb.write('perception.flash', 'x', { ttl: 10 });
  bb.write('perception.stay', 'y');
  clock.advance(9_999);
  assert.equal(bb.read('perception.flash')?.status, 'active');
  clock.advance(1);
  assert.equal(bb.read('perception.flash'), undefined);
  assert.equal(bb.get(e.id)?.status, 'expired');
  assert.deepEqual(bb.query('perception.*', { status: 'expired' }).map((x) => x.key), ['perception.flash']);
  assert.deepEqual(bb.query('perception.*').map((x) => x.key), ['perception.stay']);
  bb.query('*');
  assert.deepEqual(expired, ['perception.flash']);
  assert.equal(bb.sweep(), 1);
  assert.equal(bb.get(e.id), undefined);
  assert.equal(bb.stats().total, 1);
});

test('a superseded TTL entry does not expire its successor', () => {
  const clock = manualClock();
  const bb = new Blackboard({ clock: clock.now });
  bb.write('a.b', 1, { ttl: 1 });
  bb.write('a.b', 2, { ttl: 100 });
  clock.advance(5_000);
  assert.equal(bb.read('a.b')?.value, 2);
});

test('capacity: inactive first, then low, normal, high, oldest first; critical never', () => {
  const bb = new Blackboard({ capacity: 4 });
  const removed: string[] = [];
  bb.subscribe('blackboard.entry.removed', (e) => void removed.push(`${e.entry.key}:${e.reason}`));
  bb.write('k.high', 0, { priority: 'high' });
  bb.write('k.low1', 0, { priority: 'low' });
  bb.write('k.normal', 0);
  bb.write('k.low2', 0, { priority: 'low' });
  bb.write('k.crit', 0, { priority: 'critical' }); // evicts oldest low
  bb.write('k.crit2', 0, { priority: 'critical' }); // next low
  bb.write('k.crit3', 0, { priority: 'critical' }); // normal
  assert.deepEqual(removed, ['k.low1:evicted', 'k.low2:evicted', 'k.normal:evicted']);
  bb.write('k.crit3', 1, { priority: 'critical' }); // a rewrite drops its own superseded entry, nothing live
  assert.equal(removed.length, 3);
  bb.write('k.crit4', 0, { priority: 'critical' }); // high goes
  assert.deepEqual(removed.at(-1), 'k.high:evicted');
  assert.throws(
    () => bb.write('k.more', 0, { priority: 'critical' }),
    (e) => MnemosError.is(e, 'limit_exceeded') && /all active and critical/.test(e.message),
  );
  assert.equal(bb.stats().evicted, 4);
  assert.deepEqual(bb.query('k.*').map((e) => e.key).sort(), ['k.crit', 'k.crit2', 'k.crit3', 'k.crit4']);
});

test('capacity: retracted and consumed entries are dropped before any active one', () => {
  const bb = new Blackboard({ capacity: 3 });
  bb.write('a.one', 1, { priority: 'low' });
  bb.write('a.two', 2);
  bb.write('a.three', 3);
  bb.retract('a.two');
  bb.write('a.four', 4);
  assert.deepEqual(bb.query('a.*').map((e) => e.key), ['a.one', 'a.three', 'a.four']);
  assert.equal(bb.stats().evicted, 0);
});

test('capacity in characters: rewriting one key with big values keeps a bounded board, not every superseded value', () => {
  // Before, only the entry count (10,000) bounded a board, and a value may be 200,000 characters: a guest rewriting
  // one key kept every superseded value, about 190 MB per 1,000 writes in a soak.
  const bb = new Blackboard({ capacityChars: 10_000 });
  const value = 'v'.repeat(998); // 1,000 characters as JSON, plus the key's 7
  for (let i = 0; i < 200; i++) bb.write('big.key', `${value.slice(0, 990)}${String(i).padStart(8, '0')}`);
  const stats = bb.stats();
  assert.ok(stats.retainedChars <= 10_000, `${stats.retainedChars} characters retained`);
  assert.equal(stats.total, 9, 'nine 1,007-character entries fit in 10,000');
  assert.equal(stats.active, 1);
  assert.equal(bb.read('big.key')!.value, `${value.slice(0, 990)}${String(199).padStart(8, '0')}`);
  assert.equal(stats.evicted, 0, 'only superseded entries were dropped');

  // Many keys: the oldest active entries go, as at the entry capacity.
  for (let i = 0; i < 30; i++) bb.write(`many.k${i}`, value);
  assert.ok(bb.stats().retainedChars <= 10_000);
  assert.equal(bb.read('many.k29')?.value, value);
  assert.equal(bb.read('many.k0'), undefined);

  // Critical entries are never evicted: a write that cannot fit beside them is refused and changes nothing.
  const crit = new Blackboard({ capacityChars: 3_000 });
  crit.write('c.one', value, { priority: 'critical' });
  crit.write('c.two', value, { priority: 'critical' });
  assert.throws(() => crit.write('c.three', value), (e: unknown) => e instanceof MnemosError && e.code === 'limit_exceeded');
  assert.deepEqual(crit.query('c.*').map((e) => e.key), ['c.one', 'c.two']);
  crit.write('c.two', 'small', { priority: 'critical' }); // superseding a critical entry frees its room
  crit.write('c.three', value);
  assert.equal(crit.read('c.three')?.value, value);
});

test('query: glob, limit, status filter and newest first', () => {
  const bb = new Blackboard();
  for (const k of ['goal.a', 'goal.b', 'safety.x_blocked', 'goal.c', 'gold.d']) bb.write(k, k);
  assert.deepEqual(bb.query('goal.*').map((e) => e.key), ['goal.a', 'goal.b', 'goal.c']);
  assert.deepEqual(bb.query('go?l.*').map((e) => e.key), ['goal.a', 'goal.b', 'goal.c']);
  assert.deepEqual(bb.query('go[!a]*').map((e) => e.key), ['gold.d']);
  assert.deepEqual(bb.query('goal.*', { limit: 2, newestFirst: true }).map((e) => e.key), ['goal.c', 'goal.b']);
  assert.deepEqual(bb.query('goal.b').map((e) => e.key), ['goal.b']);
  assert.deepEqual(bb.query('*', { limit: 0 }), []);
  bb.consume('goal.a');
  assert.deepEqual(bb.query('goal.*', { status: ['consumed', 'retracted'] }).map((e) => e.key), ['goal.a']);
});

test('retract and consume change status, announce removal and return the entry', () => {
  const bb = new Blackboard();
  const reasons: string[] = [];
  bb.subscribe('blackboard.entry.removed', (e) => void reasons.push(e.reason!));
  bb.write('x.a', 1);
  bb.write('x.b', 2);
  assert.equal(bb.retract('x.a')?.status, 'retracted');
  assert.equal(bb.consume('x.b')?.status, 'consumed');
  assert.equal(bb.retract('x.a'), undefined);
  assert.deepEqual(reasons, ['retracted', 'consumed']);
  assert.equal(bb.read('x.a'), undefined);
});

test('subscriptions: event-type and key globs, unsubscribe', () => {
  const bb = new Blackboard();
  const seen: string[] = [];
  const off = bb.subscribe('blackboard.entry.add*', (e) => void seen.push(e.entry.key), { key: 'safety.*' });
  bb.write('safety.a', 1);
  bb.write('goal.b', 1);
  bb.write('safety.a', 2); // update, not add
  off();
  bb.write('safety.c', 1);
  assert.deepEqual(seen, ['safety.a']);
});

test('a failing subscriber is isolated: the write succeeds, others still hear, the error is reported', async () => {
  const failures: SubscriberFailure[] = [];
  const bb = new Blackboard({ onSubscriberError: (f) => void failures.push(f) });
  const heard: string[] = [];
  bb.subscribe('*', () => {
    throw new Error('boom');
  });
  bb.subscribe('*', async () => {
    throw new Error('async boom');
  });
  bb.subscribe('*', (e) => void heard.push(e.type));
  const e = bb.write('a.b', 1);
  await new Promise((r) => setImmediate(r));
  assert.equal(e.status, 'active');
  assert.deepEqual(heard, ['blackboard.entry.added']);
  assert.deepEqual(failures.map((f) => (f.error as Error).message).sort(), ['async boom', 'boom']);
  assert.equal(bb.stats().subscriberErrors, 2);
});

test('since: writes after a cursor, any status, in write order, limited', () => {
  const bb = new Blackboard();
  const a = bb.write('s.a', 1);
  bb.write('s.b', 1);
  bb.write('s.a', 2);
  bb.retract('s.b');
  assert.deepEqual(bb.since(a.seq, 10).map((e) => `${e.key}:${e.status}`), ['s.b:retracted', 's.a:active']);
  assert.equal(bb.since(0, 2).length, 2);
  assert.deepEqual(bb.since(99, 10), []);
});

test('entries are stamped with the tick the cycle set', () => {
  const bb = new Blackboard();
  bb.setTick(7);
  assert.equal(bb.write('t.x', 1).tick, 7);
});
