import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lifecycleStore, MIN } from './helpers.ts';
import { named } from '../helpers/backend.ts';

test(named('a correction inside the labile window updates the memory in place as a new version'), async () => {
  const s = await lifecycleStore();
  try {
    const { id } = await s.m.remember({ text: 'The team meeting is on Tuesdays', importance: 0.5 });
    const r = await s.m.lifecycle.recall(id);
    assert.equal(r.memory.lifecycle, 'activated');
    assert.equal(r.memory.accessCount, 1);
    assert.equal(r.memory.importance, 0.52); // recall +0.02
    s.advance(29 * MIN);
    const c = await s.m.lifecycle.correct(id, 'The team meeting is on Wednesdays');
    assert.equal(c.mode, 'in_place');
    const now = await s.m.get(c.id);
    assert.equal(now.lineageId, id);
    assert.equal(now.version, 2);
    assert.equal(now.text, 'The team meeting is on Wednesdays');
    // No contradicting memory piles up beside it.
    assert.equal((await s.m.search('team meeting')).hits.length, 1);
  } finally {
    await s.close();
  }
});

test(named('after the window the correction is a new memory that supersedes the old one (valid time closed, linked both ways)'), async () => {
  const s = await lifecycleStore();
  try {
    const { id } = await s.m.remember({ text: 'Sam prefers tea in the morning' });
    await s.m.lifecycle.recall(id);
    s.advance(31 * MIN);
    const c = await s.m.lifecycle.correct(id, 'Sam prefers coffee in the morning');
    assert.equal(c.mode, 'superseded');
    const fresh = await s.m.get(c.id);
    assert.notEqual(fresh.lineageId, id);
    assert.deepEqual(fresh.metadata.supersedes, { id, lineageId: id });
    const history = await s.m.history(id);
    const current = history.versions[history.versions.length - 1]!;
    assert.equal(current.validTo, new Date(s.clock.t).toISOString());
    assert.deepEqual(current.metadata.supersededByMemory, { id: c.id, lineageId: c.id });
    // As of now only the correction holds; as of before the correction, the old text did.
    const asOfNow = await s.m.list({ filter: { asOf: new Date(s.clock.t).toISOString() } });
    assert.deepEqual(asOfNow.items.map((x) => x.text), ['Sam prefers coffee in the morning']);
  } finally {
    await s.close();
  }
});

test(named('a never-recalled memory is not labile; the window is configurable; confirmation adds 0.05'), async () => {
  const s = await lifecycleStore({ lifecycle: { labileWindowMs: 5 * MIN } });
  try {
    const { id } = await s.m.remember({ text: 'The printer is on floor 3', importance: 0.5 });
    assert.equal((await s.m.lifecycle.correct(id, 'The printer is on floor 4')).mode, 'superseded');
    const b = await s.m.remember({ text: 'The car is blue', importance: 0.5 });
    await s.m.lifecycle.recall(b.id);
    s.advance(6 * MIN);
    assert.equal((await s.m.lifecycle.correct(b.id, 'The car is green')).mode, 'superseded');
    const c = await s.m.remember({ text: 'Lunch is at noon', importance: 0.5 });
    assert.equal((await s.m.lifecycle.confirm(c.id)).importance, 0.55);
  } finally {
    await s.close();
  }
});

test(named('a correction keeps to the text limit, closes a future-valid memory where it would have begun, and never stretches an ended one'), async () => {
  const s = await lifecycleStore();
  try {
    const { id } = await s.m.remember({ text: 'The office opens in 2030', validFrom: '2030-01-01T00:00:00Z' });
    await assert.rejects(s.m.lifecycle.correct(id, 'x'.repeat(300_000)), { code: 'validation_failed' });
    const r = await s.m.lifecycle.correct(id, 'The office opens in 2031');
    assert.equal(r.mode, 'superseded');
    const old = (await s.m.history(id)).versions.at(-1)!;
    assert.deepEqual([old.validFrom, old.validTo], ['2030-01-01T00:00:00.000Z', '2030-01-01T00:00:00.000Z']);
    // A fact that already ended keeps its end: not stretched to the correction's time.
    const ended = await s.m.remember({ text: 'Dana lived in Lisbon', validFrom: '2019-01-01T00:00:00Z', validTo: '2021-06-30T00:00:00Z' });
    await s.m.lifecycle.correct(ended.id, 'Dana lived in Lisboa (Portugal)');
    const closed = (await s.m.history(ended.id)).versions.at(-1)!;
    assert.equal(closed.validTo, '2021-06-30T00:00:00.000Z');
    assert.deepEqual((await s.m.list({ filter: { asOf: '2024-01-01T00:00:00Z', types: ['general'] } })).items.map((x) => x.text).filter((t) => t.startsWith('Dana')), []);
  } finally {
    await s.close();
  }
});

test(named('recalls of one memory at the same time all count: no conflict reaches the caller, no boost is lost'), async () => {
  const s = await lifecycleStore();
  try {
    const { id } = await s.m.remember({ text: 'The spare key is under the blue pot', importance: 0.5 });
    const results = await Promise.all(Array.from({ length: 12 }, () => s.m.lifecycle.recall(id)));
    assert.equal(results.length, 12);
    const now = await s.m.get(id);
    assert.equal(now.lifecycle, 'activated');
    assert.equal(now.accessCount, 12);
    assert.equal(now.importance, 0.74, 'twelve boosts of 0.02 on 0.5');
    const confirmed = await Promise.all(Array.from({ length: 4 }, () => s.m.lifecycle.confirm(id)));
    assert.equal(confirmed.length, 4);
    assert.equal((await s.m.get(id)).importance, 0.94, 'four confirmations of 0.05');
  } finally {
    await s.close();
  }
});
