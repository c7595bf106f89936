import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/index.ts';
import { lifecycleStore, DAY } from './helpers.ts';
import { named, rawSql } from '../helpers/backend.ts';

const TEXT = 'The quarterly planning meeting moved to the large room on the third floor next to the kitchen';
const NEAR = 'The quarterly planning meeting moved to the large room on the third floor next to the kitchen.';

test(named('near-duplicates merge within one scope only; survivor keeps both provenances; reversible'), async () => {
  const s = await lifecycleStore();
  try {
    const agentA: Principal = { role: 'agent', namespace: 'default', id: 'agent-a', agentId: 'a' };
    const agentB: Principal = { role: 'agent', namespace: 'default', id: 'agent-b', agentId: 'b' };
    const o1 = await s.m.remember({ text: TEXT, importance: 0.9, key: 'src:1' });
    const o2 = await s.m.remember({ text: NEAR, importance: 0.5, key: 'src:2' });
    // Same text in other scopes: another visibility, other agents, another namespace.
    const pub = await s.m.remember({ text: TEXT, visibility: 'public' });
    const a = await s.m.as(agentA).remember({ text: TEXT });
    const b = await s.m.as(agentB).remember({ text: NEAR });
    const other = s.m.as({ role: 'owner', namespace: 'elsewhere', id: 'owner' });
    const o3 = await other.remember({ text: TEXT });
    const r = await s.m.consolidate();
    assert.equal(r.status, 'done');
    assert.equal(r.merges.length, 1, JSON.stringify(r.merges));
    assert.equal(r.counts.merged, 1);
    const survivor = (await s.m.history(o1.id)).versions.at(-1)!;
    const loser = (await s.m.history(o2.id)).versions.at(-1)!;
    assert.equal(survivor.lifecycle, 'consolidated');
    assert.equal(loser.lifecycle, 'archived');
    const from = survivor.metadata.mergedFrom as { lineageId: string; sourceKey: string }[];
    assert.deepEqual(from.map((f) => [f.lineageId, f.sourceKey]), [[o2.id, 'src:2']]);
    assert.equal((loser.metadata.mergedInto as { lineageId: string }).lineageId, o1.id);
    for (const id of [pub.id, a.id, b.id]) assert.equal((await s.m.history(id)).versions.length, 1, 'other scopes untouched');
    assert.equal((await other.get(o3.id)).version, 1);

    const back = await s.m.lifecycle.reverseMerge(o2.id);
    // Each side gets back the lifecycle it had before the merge.
    assert.equal((await s.m.get(back.restoredId)).lifecycle, 'generated');
    assert.equal((await s.m.get(back.survivorId)).lifecycle, 'generated');
    assert.equal((await s.m.get(back.survivorId)).metadata.mergedFrom, undefined);
  } finally {
    await s.close();
  }
});

test(named('episodes are never merged: the same words in two sessions, or from two speakers, are two events'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'haha', type: 'episode', sessionId: 's1', key: 'transcript:s1#1' });
    await s.m.remember({ text: 'haha', type: 'episode', sessionId: 's2', key: 'transcript:s2#1' });
    await s.m.ingestTranscript({ sessionId: 's3', messages: [{ role: 'user', content: TEXT }, { role: 'assistant', content: TEXT }] });
    // The same words as general knowledge still merge: that is what consolidation is for.
    await s.m.remember({ text: TEXT });
    await s.m.remember({ text: NEAR });
    const r = await s.m.consolidate();
    assert.equal(r.merges.length, 1, JSON.stringify(r.merges));
    assert.equal((await s.m.list({ filter: { types: ['episode'] }, limit: 10 })).total, 4);
  } finally {
    await s.close();
  }
});

test(named('owner-marked chunks are never merged'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: TEXT, labels: ['owner-marked'] });
    await s.m.remember({ text: NEAR });
    assert.equal((await s.m.consolidate()).merges.length, 0);
  } finally {
    await s.close();
  }
});

test(named('importance moves, TTL, purge after retention through a real forget, stalled goals, skip when nothing is new'), async () => {
  const s = await lifecycleStore({ lifecycle: { purgeAfterMs: 10 * DAY, stalledGoalMs: 7 * DAY } });
  try {
    const strong = await s.m.remember({ text: 'The owner is allergic to peanuts', type: 'fact', importance: 1 });
    for (let i = 0; i < 12; i++) await s.m.lifecycle.recall(strong.id);
    const weak = await s.m.remember({ text: 'Someone mentioned a blue umbrella once', type: 'general', importance: 0.3 });
    const ttl = await s.m.remember({ text: 'Door code 4471 valid this week', expiresAt: new Date(s.clock.t + DAY).toISOString() });
    const goal = await s.m.remember({ text: 'Finish the garden shed', type: 'goal', importance: 0.9 });
    const skill = await s.m.remember({ text: 'How to reset the router', type: 'skill', importance: 0.3 });

    const r1 = await s.m.consolidate();
    assert.equal((await s.m.get(strong.id)).lifecycle, 'consolidated');
    assert.ok(r1.changes.some((c) => c.id === strong.id && c.to === 'consolidated' && c.reason === 'strong'));
    assert.equal((await s.m.consolidate()).status, 'skipped');

    s.advance(40 * DAY); // weak memory decays below the forgotten threshold; the TTL passed; the goal stalls
    const r2 = await s.m.consolidate();
    assert.equal((await s.m.history(weak.id)).versions.at(-1)!.lifecycle, 'expired');
    assert.equal((await s.m.history(ttl.id)).versions.at(-1)!.lifecycle, 'expired');
    assert.equal(r2.counts.ttlExpired, 1);
    assert.equal((await s.m.get(skill.id)).lifecycle, 'frozen');
    assert.deepEqual(r2.openLoops.map((l) => l.id), [goal.id]);
    assert.deepEqual((await s.m.lifecycle.status()).openLoops.map((l) => l.id), [goal.id]);
    // Expired is soft-deleted: hidden from search, still in history, audited.
    assert.equal((await s.m.search('umbrella')).hits.length, 0);
    assert.ok((await s.m.history(weak.id)).audit.some((e) => e.action === 'lifecycle' && e.details.to === 'expired'));

    s.advance(11 * DAY); // past retention: purged for real
    const r3 = await s.m.consolidate();
    assert.equal(r3.counts.purged, 2);
    await assert.rejects(s.m.get(weak.id), { code: 'forgotten' });
    await assert.rejects(s.m.get(ttl.id), { code: 'forgotten' });
    // Long-term is long-term: a year unrecalled, consolidated memories are not scored again, so never expired nor purged.
    for (let i = 0; i < 4; i++) {
      s.advance(90 * DAY);
      const r = await s.m.consolidate({ force: true });
      assert.ok(!r.changes.some((c) => c.id === strong.id), JSON.stringify(r.changes));
    }
    assert.equal((await s.m.get(strong.id)).lifecycle, 'consolidated');
    assert.equal((await s.m.search('peanuts')).hits[0]?.memory.id, strong.id);
    assert.equal((await s.m.verifyAudit()).ok, true);
  } finally {
    await s.close();
  }
});

test(named('one runner at a time: a live lease makes a second runner report busy'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'something to consolidate' });
    const jobs = s.m.store.jobs!;
    const sys: Principal = { role: 'owner', namespace: 'default', id: 'mnemos-lifecycle' };
    const claim = await jobs.claim(sys, 'consolidate', 'otherhost:1:abc', 60_000, s.clock.t, () => false);
    assert.ok('claimed' in claim);
    const r = await s.m.consolidate({ force: true });
    assert.equal(r.status, 'busy');
    // Once the lease expires, the next run takes the job over and completes it.
    s.advance(61_000);
    const r2 = await s.m.consolidate({ force: true });
    assert.equal(r2.status, 'done');
    assert.equal(r2.resumed, true);
    assert.equal(r2.attempts, 2);
  } finally {
    await s.close();
  }
});

test(named('a memory that expires a second time waits the whole retention again before it is purged'), async () => {
  const s = await lifecycleStore({ lifecycle: { purgeAfterMs: 30 * DAY } });
  try {
    const door = await s.m.remember({ text: 'Door code 4471 valid this week', expiresAt: new Date(s.clock.t + DAY).toISOString() });
    s.advance(2 * DAY);
    await s.m.consolidate({ force: true });
    assert.equal((await s.m.history(door.id)).versions.at(-1)!.lifecycle, 'expired');
    // The owner gives it a new life of 40 days; it expires again after them.
    const renewed = await s.m.update(door.id, { expiresAt: new Date(s.clock.t + 40 * DAY).toISOString() });
    // Its new life brings it back: the new version was expired too, hidden from search.
    assert.equal((await s.m.get(renewed.id)).lifecycle, 'activated');
    assert.deepEqual((await s.m.search('door code')).hits.map((h) => h.memory.id), [renewed.id]);
    s.advance(41 * DAY);
    await s.m.consolidate({ force: true });
    assert.equal((await s.m.history(door.id)).versions.at(-1)!.lifecycle, 'expired');
    s.advance(DAY);
    const early = await s.m.consolidate({ force: true });
    assert.equal(early.counts.purged ?? 0, 0, 'purged a day after its second expiry, by the date of the first');
    assert.equal((await s.m.history(door.id)).versions.at(-1)!.id, renewed.id);
    s.advance(30 * DAY);
    assert.equal((await s.m.consolidate({ force: true })).counts.purged, 1);
  } finally {
    await s.close();
  }
});

// A fact re-typed as a skill kept decaying and was forgotten (then purged); a skill re-typed as a fact never decayed.
test(named('re-typing a memory to or from skill moves it in or out of frozen, and only generated and activated memories are scored'), async () => {
  const s = await lifecycleStore();
  try {
    const fact = await s.m.remember({ text: 'To rotate the deploy keys, run the rotate-keys script from the ops folder', type: 'fact', importance: 0.01 });
    const skill = await s.m.remember({ text: 'Bake sourdough: feed the starter, mix, fold every 30 minutes, proof overnight', type: 'skill', importance: 0.01 });
    const asSkill = await s.m.update(fact.id, { type: 'skill' });
    const asFact = await s.m.update(skill.id, { type: 'fact' });
    assert.equal((await s.m.get(asSkill.id))!.lifecycle, 'frozen');
    assert.equal((await s.m.get(asFact.id))!.lifecycle, 'activated');
    const report = await s.m.consolidate({ force: true });
    assert.equal(report.counts.scored, 1, 'the frozen one is not scored');
    assert.equal((await s.m.get(asSkill.id))!.lifecycle, 'frozen', 'the new skill does not decay');
    assert.equal((await s.m.get(asFact.id))!.lifecycle, 'expired', 'the former skill decays as a fact');
    // An archived skill re-typed stays archived: only a live memory is frozen or thawed.
    const old = await s.m.remember({ text: 'An old note', type: 'fact' });
    await s.m.store.apply(s.m.principal, [{ kind: 'lifecycle', id: old.id, from: 'generated', to: 'archived', reason: 'owner' }]);
    assert.equal((await s.m.get((await s.m.update(old.id, { type: 'skill' })).id))!.lifecycle, 'archived');
  } finally {
    await s.close();
  }
});

test(named('a forgotten goal leaves the open loops of stored consolidation reports, and its text leaves the job rows'), async () => {
  const s = await lifecycleStore();
  try {
    const goal = await s.m.remember({ text: 'Goal: finish the Wobblestrand migration plan', type: 'goal' });
    const other = await s.m.remember({ text: 'Goal: renew the passport', type: 'goal' });
    s.advance(10 * DAY);
    const r = await s.m.consolidate({ force: true });
    assert.deepEqual(r.openLoops.map((l) => l.id).sort(), [goal.id, other.id].sort(), 'the run reports both, with their text');
    assert.ok(r.openLoops.some((l) => l.text.includes('Wobblestrand')));
    await s.m.confirmForget((await s.m.forget(goal.id)).token);
    const status = await s.m.lifecycle.status();
    assert.deepEqual(status.openLoops.map((l) => l.id), [other.id], 'the forgotten goal is no open loop any more');
    assert.equal(status.openLoops[0]!.text, 'Goal: renew the passport');
    assert.ok(!JSON.stringify(status).includes('Wobblestrand'), 'status shows nothing of it');
    const skipped = await s.m.consolidate();
    assert.equal(skipped.status, 'done', 'the forget was news: the next run ran');
    const rows = (await rawSql(s.db, 'SELECT report FROM jobs')) as { report: unknown }[];
    assert.ok(!rows.some((row) => JSON.stringify(row.report ?? '').includes('Wobblestrand')), 'no job row holds the goal\'s text');
  } finally {
    await s.close();
  }
});
