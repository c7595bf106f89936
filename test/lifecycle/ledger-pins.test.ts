import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/index.ts';
import { DAY, lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

const agent: Principal = { role: 'agent', namespace: 'default', id: 'agent-1', agentId: 'bot' };
const guest: Principal = { role: 'guest', namespace: 'default', id: 'guest-1', agentId: 'bot' };

test(named('an owner-pinned fact is replaced only after the owner confirms'), async () => {
  const s = await lifecycleStore();
  try {
    const owner = s.m.lifecycle;
    const a = s.m.as(agent).lifecycle;
    const pinned = await owner.pin({ key: 'user.home_city', value: 'Lisbon', statement: 'The owner lives in Lisbon', category: 'identity' });
    assert.equal(pinned.status, 'added');
    if (pinned.status !== 'added') throw new Error();
    assert.equal(pinned.fact.confidence, 0.95);
    assert.equal(pinned.fact.source, 'owner pin');

    const proposal = await a.pin({ key: 'user.home_city', value: 'Porto' });
    assert.equal(proposal.status, 'pending_confirmation');
    if (proposal.status !== 'pending_confirmation') throw new Error();
    // Nothing changed yet, and the agent cannot confirm its own proposal.
    assert.equal((await owner.fact('user.home_city')).value, 'Lisbon');
    await assert.rejects(a.confirmPin(proposal.pending.id), { code: 'forbidden' });
    // Background learning never replaces a pin.
    assert.equal((await owner.learn({ key: 'user.home_city', value: 'Faro', confidence: 1 })).status, 'rejected');

    const listed = await owner.facts();
    assert.equal(listed.pending.length, 1);
    const done = await owner.confirmPin(proposal.pending.id);
    assert.equal(done.status, 'confirmed');
    assert.equal((await owner.fact('user.home_city')).value, 'Porto');
    const old = await owner.fact(pinned.fact.id);
    assert.equal(old.status, 'superseded');
    assert.ok(old.validUntil);
    assert.equal(old.supersededBy, done.fact!.id);
    await assert.rejects(owner.confirmPin(proposal.pending.id), { code: 'conflict' });
  } finally {
    await s.close();
  }
});

test(named('strengthen, supersede of agent pins, retire, and a pin outranking learned facts'), async () => {
  const s = await lifecycleStore();
  try {
    const a = s.m.as(agent).lifecycle;
    const first = await a.pin({ key: 'project.db', value: 'SQLite' });
    assert.equal(first.status, 'added');
    const again = await a.pin({ key: 'project.db', value: 'sqlite' });
    assert.equal(again.status, 'strengthened');
    if (again.status !== 'strengthened') throw new Error();
    assert.equal(again.fact.mentions, 2);
    assert.equal(again.fact.confidence, 1);
    const replaced = await a.pin({ key: 'project.db', value: 'PostgreSQL' });
    assert.equal(replaced.status, 'superseded');
    await s.m.lifecycle.learn({ key: 'project.lang', value: 'TypeScript', confidence: 1 });
    await s.m.lifecycle.learn({ key: 'project.lang', value: 'TypeScript', confidence: 1 });
    const ranked = (await s.m.lifecycle.facts()).facts.map((f) => f.key);
    assert.deepEqual(ranked, ['project.db', 'project.lang']);
    const hits = await s.m.lifecycle.ledgerHits('which project db do we use?');
    assert.deepEqual(hits.map((h) => h.value), ['PostgreSQL']);
    assert.match((await s.m.lifecycle.promptBlock()).text, /project\.db: PostgreSQL/);
    assert.equal((await a.retire('project.db')).status, 'retired');
    await assert.rejects(a.fact('project.db'), { code: 'not_found' });
  } finally {
    await s.close();
  }
});

test(named('guests never see owner ledger or graph data'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.lifecycle.pin({ key: 'user.secret_name', value: 'Zanzibar Quokka' });
    await s.m.remember({ text: 'Dr. Quokka works at Zanzibar Labs' });
    await s.m.remember({ text: 'Shared note: Dr. Emu visits on Friday', visibility: 'shared' });
    await s.m.consolidate({ force: true });
    const g = s.m.as(guest);
    assert.deepEqual((await g.lifecycle.facts()).facts, []);
    assert.deepEqual(await g.lifecycle.ledgerHits('user secret name Zanzibar Quokka'), []);
    assert.equal((await g.lifecycle.promptBlock()).text, '');
    await assert.rejects(g.lifecycle.fact('user.secret_name'), { code: 'not_found' });
    await assert.rejects(g.lifecycle.pin({ key: 'user.secret_name', value: 'x' }), { code: 'forbidden' });
    assert.deepEqual((await g.lifecycle.entity('Quokka')).entities, []);
    assert.deepEqual(await g.lifecycle.graphCandidates('what about Dr. Quokka at Zanzibar Labs?'), []);
    // What is shared with the guest's agent stays visible.
    assert.equal((await g.lifecycle.entity('Emu')).entities.length, 1);
    await assert.rejects(g.consolidate(), { code: 'forbidden' });
    await assert.rejects(g.lifecycle.status(), { code: 'forbidden' });
    // The owner sees both.
    assert.equal((await s.m.lifecycle.entity('Quokka')).entities.length, 1);
    assert.equal((await s.m.lifecycle.ledgerHits('user secret name')).length, 1);
  } finally {
    await s.close();
  }
});

test(named('an agent pinning or learning a key held by an owner-only fact learns nothing of it and changes nothing, whatever value it guesses'), async () => {
  const s = await lifecycleStore();
  try {
    const owner = s.m.lifecycle;
    const a = s.m.as(agent).lifecycle;
    const secret = await owner.pin({ key: 'user.bank', value: 'Barclays', statement: 'Owner banks at Barclays, account ending 4410' });
    if (secret.status !== 'added') throw new Error();
    const right = await a.pin({ key: 'user.bank', value: 'barclays' });
    const wrong = await a.pin({ key: 'user.bank', value: 'Lloyds' });
    // The same answer for a right and a wrong guess, once the caller's own words and fresh ids are set aside.
    const shape = (r: Awaited<ReturnType<typeof a.pin>>) => {
      if (r.status !== 'pending_confirmation') return r;
      return { ...r, message: r.message.replace(r.pending.id, ''), pending: { ...r.pending, id: '', createdAt: '', proposed: { ...r.pending.proposed, value: '' } } };
    };
    assert.equal(right.status, 'pending_confirmation');
    assert.deepEqual(shape(right), shape(wrong));
    // Nor the hidden fact's id: not in the answer, not in the agent's pending list.
    if (right.status !== 'pending_confirmation') throw new Error();
    assert.equal(right.pending.targetId, null);
    assert.doesNotMatch(JSON.stringify([right, wrong, await a.facts()]), new RegExp(secret.fact.id));
    assert.equal((await owner.facts()).pending[0]!.targetId, secret.fact.id, 'the owner sees which fact a change targets');
    assert.doesNotMatch(JSON.stringify([right, wrong]), /4410|Barclays/);
    // Background learning by the agent gets one answer too.
    const learnRight = await a.learn({ key: 'user.bank', value: 'BARCLAYS', confidence: 1 });
    const learnWrong = await a.learn({ key: 'user.bank', value: 'Lloyds', confidence: 1 });
    assert.equal(learnRight.status, 'rejected');
    assert.deepEqual(learnRight, learnWrong);
    assert.doesNotMatch(JSON.stringify(learnRight), /4410|Barclays/);
    const after = await owner.fact('user.bank');
    assert.deepEqual(after, secret.fact, 'the owner fact is unchanged: no strengthening by a guess');

    // An owner-only learned fact: the agent's pin replaces it as any pin replaces a learned fact, carrying nothing over.
    await owner.learn({ key: 'user.tea', value: 'green', statement: 'Owner drinks green tea at night', confidence: 0.8 });
    const pinned = await a.pin({ key: 'user.tea', value: 'Green' });
    assert.equal(pinned.status, 'superseded');
    if (pinned.status !== 'superseded') throw new Error();
    assert.deepEqual([pinned.fact.value, pinned.fact.statement, pinned.fact.mentions, pinned.fact.confidence], ['Green', '', 1, 0.95]);
    assert.equal(pinned.replaced, undefined, 'the replaced fact was hidden from the agent, so its id is too');
    const replaced = (await owner.facts({ status: ['superseded'] })).facts.find((f) => f.key === 'user.tea')!;
    assert.equal(replaced.mentions, 1);
  } finally {
    await s.close();
  }
});

test(named('a pin whose value differs beyond letter case and surrounding spaces, or that restates the statement or category, is stored'), async () => {
  const s = await lifecycleStore();
  try {
    const owner = s.m.lifecycle;
    for (const [key, before, after] of [['thermostat.offset', '-5', '5'], ['user.email', 'a.b@example.com', 'a_b@example.com'], ['project.lang', 'C++', 'C'], ['user.score', '+1', '1']]) {
      await owner.pin({ key: key!, value: before! });
      const r = await owner.pin({ key: key!, value: after! });
      assert.equal(r.status, 'superseded', `${before} -> ${after}`);
      assert.equal((await owner.fact(key!)).value, after);
    }
    // Letter case and surrounding spaces are the same value (docs: LIFECYCLE.md).
    assert.equal((await owner.pin({ key: 'project.lang', value: ' c ' })).status, 'strengthened');
    assert.equal((await owner.fact('project.lang')).value, 'C');

    const first = await owner.pin({ key: 'user.city', value: 'Lisbon', statement: 'User lives in Lisbon', category: 'identity' });
    if (first.status !== 'added') throw new Error();
    const restated = await owner.pin({ key: 'user.city', value: 'Lisbon', statement: 'User moved back to Lisbon in 2025', category: 'preference' });
    assert.equal(restated.status, 'superseded');
    const now = await owner.fact('user.city');
    assert.deepEqual([now.value, now.statement, now.category, now.mentions], ['Lisbon', 'User moved back to Lisbon in 2025', 'preference', 2]);
    assert.equal((await owner.fact(first.fact.id)).status, 'superseded');
    // Only the category given: the statement stays; nothing new: strengthened.
    assert.equal((await owner.pin({ key: 'user.city', value: 'Lisbon', category: 'identity' })).status, 'superseded');
    assert.deepEqual([(await owner.fact('user.city')).statement, (await owner.fact('user.city')).category], ['User moved back to Lisbon in 2025', 'identity']);
    assert.equal((await owner.pin({ key: 'user.city', value: 'lisbon', statement: 'User moved back to Lisbon in 2025' })).status, 'strengthened');
    // Pinning a learned fact's value keeps its statement.
    await owner.learn({ key: 'user.tea', value: 'green', statement: 'Drinks green tea', confidence: 0.7 });
    assert.equal((await owner.pin({ key: 'user.tea', value: 'green' })).status, 'superseded');
    assert.deepEqual([(await owner.fact('user.tea')).statement, (await owner.fact('user.tea')).source], ['Drinks green tea', 'owner pin']);
  } finally {
    await s.close();
  }
});

test(named('confirming a pending change whose target the owner has since replaced is a conflict and changes nothing'), async () => {
  const s = await lifecycleStore();
  try {
    const owner = s.m.lifecycle;
    await owner.pin({ key: 'user.bank', value: 'Barclays' });
    const proposal = await s.m.as(agent).lifecycle.pin({ key: 'user.bank', value: 'HSBC' });
    if (proposal.status !== 'pending_confirmation') throw new Error();
    await owner.pin({ key: 'user.bank', value: 'Santander' });
    await assert.rejects(owner.confirmPin(proposal.pending.id), { code: 'conflict', message: /since been replaced/ });
    assert.equal((await owner.fact('user.bank')).value, 'Santander');
    assert.deepEqual((await owner.facts()).pending.map((q) => [q.id, q.status]), [[proposal.pending.id, 'pending']]);
    // The owner can still refuse it.
    assert.equal((await owner.rejectPin(proposal.pending.id)).status, 'rejected');
  } finally {
    await s.close();
  }
});

test(named('a look-back search (asOf, knownAt) leads only with ledger facts already settled then'), async () => {
  const s = await lifecycleStore({ start: '2026-03-01T00:00:00.000Z' });
  try {
    await s.m.lifecycle.pin({ key: 'dana.city', value: 'Lisbon' });
    await s.m.remember({ text: 'Dana moved house this spring', validFrom: '2026-03-01T00:00:00Z' });
    s.advance(10 * DAY);
    const between = new Date(s.clock.t).toISOString();
    s.advance(10 * DAY);
    await s.m.lifecycle.pin({ key: 'dana.city', value: 'Porto' });
    const now = await s.m.search('dana.city');
    assert.deepEqual(now.ledger.map((f) => f.value), ['Porto']);
    // Porto was pinned after `between`: a search looking back there does not lead with it.
    for (const filter of [{ knownAt: between }, { asOf: between }, { asOf: '2020-01-01T00:00:00Z', knownAt: '2020-01-01T00:00:00Z' }]) {
      assert.deepEqual((await s.m.search({ query: 'dana.city', filter })).ledger, [], JSON.stringify(filter));
    }
    assert.deepEqual((await s.m.search({ query: 'dana.city', filter: { knownAt: new Date(s.clock.t).toISOString() } })).ledger.map((f) => f.value), ['Porto']);
  } finally {
    await s.close();
  }
});
