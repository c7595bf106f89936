import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/index.ts';
import { lifecycleStore, DAY } from './helpers.ts';
import { named } from '../helpers/backend.ts';

/** Merges over time: losers live as long as their survivors, reversals stick, different facts never merge, orphans are rescued once. */

const TEXT = 'The quarterly planning meeting moved to the large room on the third floor next to the kitchen';
const NEAR = 'The quarterly planning meeting moved to the large room on the third floor next to the kitchen.';
const sys: Principal = { role: 'owner', namespace: 'default', id: 'mnemos-lifecycle' };

test(named('a merge loser lives as long as its survivor: still reversible after 70 days of use'), async () => {
  const s = await lifecycleStore();
  try {
    const a = await s.m.remember({ text: TEXT, importance: 0.9 });
    const b = await s.m.remember({ text: NEAR, importance: 0.5 });
    assert.equal((await s.m.consolidate({ force: true })).merges.length, 1);
    for (let d = 3; d <= 70; d += 3) {
      s.advance(3 * DAY);
      const cur = (await s.m.search('quarterly planning meeting')).hits[0]!.memory;
      assert.equal(cur.lineageId, a.id);
      await s.m.lifecycle.recall(cur.id); // the owner keeps using the survivor
      const r = await s.m.consolidate({ force: true });
      assert.ok(!r.changes.some((c) => c.action !== 'lifecycle' || c.to !== 'consolidated'), `day ${d}: ${JSON.stringify(r.changes)}`);
    }
    const loser = (await s.m.history(b.id)).versions.at(-1)!;
    assert.equal(loser.lifecycle, 'archived');
    const back = await s.m.lifecycle.reverseMerge(b.id);
    assert.equal((await s.m.get(back.restoredId)).text, NEAR);
  } finally {
    await s.close();
  }
});

test(named('purge spares a merge loser expired by an older build while its survivor exists'), async () => {
  const s = await lifecycleStore({ lifecycle: { purgeAfterMs: 10 * DAY } });
  try {
    await s.m.remember({ text: TEXT, importance: 0.9 });
    const b = await s.m.remember({ text: NEAR, importance: 0.5 });
    await s.m.consolidate({ force: true });
    // What an older build left behind: the loser expired by decay and queued for purge.
    const loser = (await s.m.history(b.id)).versions.at(-1)!;
    await s.m.store.apply(sys, [{ kind: 'lifecycle', id: loser.id, from: 'archived', to: 'expired', reason: 'forgotten: importance 0.01' }]);
    await s.m.store.jobs!.markExpired(sys, [b.id], s.clock.t);
    s.advance(11 * DAY);
    const r = await s.m.consolidate({ force: true });
    assert.equal(r.counts.purged ?? 0, 0, JSON.stringify(r.changes));
    const back = await s.m.lifecycle.reverseMerge(b.id);
    assert.equal((await s.m.get(back.restoredId)).text, NEAR);
  } finally {
    await s.close();
  }
});

test(named('a reversed merge stays reversed until a text changes; each side gets its lifecycle back'), async () => {
  const s = await lifecycleStore();
  try {
    const a = await s.m.remember({ text: 'Dana prefers green tea over coffee in the morning', type: 'preference', importance: 0.9 });
    const b = await s.m.remember({ text: 'Dana prefers green tea over coffee in the morning!', type: 'preference', importance: 0.3 });
    assert.equal((await s.m.get(a.id)).lifecycle, 'generated');
    const r1 = await s.m.consolidate({ force: true });
    assert.deepEqual(r1.merges.map((m) => m.loserId), [b.id]);
    const back = await s.m.lifecycle.reverseMerge(b.id);
    assert.equal((await s.m.get(back.restoredId)).lifecycle, 'generated');
    assert.equal((await s.m.get(back.survivorId)).lifecycle, 'generated');
    // The scheduler runs every 30 minutes: the pair the owner took apart stays apart.
    s.advance(30 * 60_000);
    assert.deepEqual((await s.m.consolidate({ force: true })).merges, []);
    s.advance(30 * 60_000);
    assert.deepEqual((await s.m.consolidate({ force: true })).merges, []);
    assert.equal((await s.m.search('green tea')).hits.length, 2);
    // A changed text is a new pair.
    await s.m.update(back.restoredId, { text: 'Dana prefers green tea over coffee in the morning.' });
    assert.equal((await s.m.consolidate({ force: true })).merges.length, 1);
  } finally {
    await s.close();
  }
});

test(named('different facts are not merged: disjoint valid times, a different room number'), async () => {
  const s = await lifecycleStore({ start: '2026-12-01T00:00:00.000Z' });
  try {
    await s.m.remember({ text: 'the office coffee machine is broken', validFrom: '2020-01-01T00:00:00Z', validTo: '2020-02-01T00:00:00Z' });
    await s.m.remember({ text: 'the office coffee machine is broken', validFrom: '2026-11-01T00:00:00Z' });
    await s.m.remember({ text: 'The quarterly budget review meeting with Bob is on Monday at 3pm in room 12', importance: 0.9 });
    const r14 = await s.m.remember({ text: 'The quarterly budget review meeting with Bob is on Monday at 3pm in room 14' });
    assert.deepEqual((await s.m.consolidate({ force: true })).merges, []);
    for (const asOf of ['2020-01-15T00:00:00Z', '2026-12-01T00:00:00Z']) {
      assert.equal((await s.m.search({ query: 'coffee machine', filter: { asOf } })).hits.length, 1, asOf);
    }
    assert.ok((await s.m.search('room 14')).hits.some((h) => h.memory.lineageId === r14.id));
  } finally {
    await s.close();
  }
});

test(named('orphan rescue: not while the survivor lives, once when it is gone, no flip-flop'), async () => {
  const s = await lifecycleStore();
  try {
    const text = 'Quarterly budget review with Bob on Monday at 3pm in room 12 of building A';
    const a = await s.m.remember({ text });
    const b = await s.m.remember({ text: `${text}.` });
    const r0 = await s.m.consolidate({ force: true });
    assert.deepEqual(r0.merges.map((m) => [m.survivorId, m.loserId]), [[a.id, b.id]]);
    const rescues = (r: { changes: { id: string; action: string }[] }) => r.changes.filter((c) => c.action === 'rescue');
    for (const d of [10, 11, 12]) {
      s.advance(d === 10 ? 10 * DAY : DAY);
      const r = await s.m.consolidate({ force: true });
      assert.deepEqual(rescues(r), [], `day ${d}`);
      // The survivor is consolidated (long-term, not scored again) and holds its loser.
      assert.deepEqual(r.changes, [], `day ${d}: nothing moves: ${JSON.stringify(r.changes)}`);
    }
    assert.equal((await s.m.history(a.id)).versions.at(-1)!.lifecycle, 'consolidated');
    assert.equal((await s.m.history(b.id)).versions.at(-1)!.lifecycle, 'archived');
    // The survivor is gone, as a forget by an earlier version left it (a forget now takes its merged
    // duplicates along: test/core/forget-merged-duplicates.test.ts): now the loser is rescued, once.
    const store = (s.m as unknown as { ctx: { store: { apply(p: unknown, ops: unknown[]): Promise<unknown> } } }).ctx.store;
    await store.apply(s.m.principal, [{ kind: 'forget', lineageId: a.id, reason: 'user asked' }]);
    const r1 = await s.m.consolidate({ force: true });
    assert.equal(rescues(r1).length, 1, JSON.stringify(r1.changes));
    const rescued = (await s.m.history(b.id)).versions.at(-1)!;
    assert.equal(rescued.lifecycle, 'activated');
    // Weeks later it decays like any memory (archived once), and is not rescued again.
    let audits = 0;
    for (let i = 0; i < 20; i++) {
      s.advance(DAY);
      const r = await s.m.consolidate({ force: true });
      assert.deepEqual(rescues(r), []);
      audits += r.changes.filter((c) => c.action === 'lifecycle').length;
    }
    assert.ok(audits <= 1, `decays at most once after the rescue, got ${audits}`);
  } finally {
    await s.close();
  }
});
