import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/index.ts';
import { lifecycleStore } from './helpers.ts';
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
