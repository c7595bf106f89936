/**
 * The ledger's search index: it must find exactly the facts isExactHit
 * accepts (checked against the rule applied to every fact), and a search
 * must see every change to the ledger, from this handle or another one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LedgerIndex } from '../../src/lifecycle/ledger-index.ts';
import { isExactHit } from '../../src/lifecycle/ledger-rules.ts';
import { openMemory, type Principal } from '../../src/index.ts';
import { ledgerFact, lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

const fact = (i: number, key: string, value: string) => ledgerFact(key, { id: `f${i}`, value });

test('the ledger index finds exactly the facts the exact-hit rule accepts', () => {
  const facts = [
    fact(1, 'user.home_city', 'Lisbon'),
    fact(2, 'user.name', 'Dana Silva'),
    fact(3, 'user.email', 'dana@example.com'),
    fact(4, 'project.db', 'no'),
    fact(5, 'project.lang', 'TypeScript 5'),
    fact(6, 'team.size', '12'),
    fact(7, 'a.b', 'São Paulo'),
    fact(8, 'office', 'floor 3, room 12 & 14'),
    fact(9, 'user.home_city_old', 'Porto'),
    fact(10, 'k', 'x'),
  ];
  const index = new LedgerIndex(facts);
  const queries = [
    'user home city',
    'what is the user.home_city?',
    'trip to Lisbon next week',
    'lisbonne',
    'no',
    'is it no or yes',
    'Dana Silva called',
    'dana',
    'DANA@EXAMPLE.COM',
    'typescript 5 or 6',
    'team size 12',
    '12',
    'x',
    'k x',
    'sao paulo',
    'São  Paulo trip',
    'floor 3 room 12  14',
    'floor 3, room 12 & 14',
    'user home city old',
    '',
    '   ',
    '!!!',
    'project-db and project_lang',
  ];
  for (const q of queries) {
    const want = facts.filter((f) => isExactHit(f, q)).map((f) => f.id).sort();
    assert.deepEqual(index.exactHits(q).map((f) => f.id).sort(), want, JSON.stringify(q));
  }
  // The table has both outcomes, so the comparison says something.
  assert.ok(queries.some((q) => index.exactHits(q).length > 0) && queries.some((q) => index.exactHits(q).length === 0));
});

test(named('search sees every ledger change at once: pins and retirements from this handle and from another one'), async () => {
  const s = await lifecycleStore();
  const other = await openMemory({ db: s.db });
  try {
    const hits = async (q: string) => (await s.m.search(q)).ledger.map((f) => f.value);
    assert.deepEqual(await hits('where is the office'), []);
    await s.m.lifecycle.pin({ key: 'office', value: 'Lisbon' });
    assert.deepEqual(await hits('where is the office'), ['Lisbon'], 'a pin from this handle');
    await other.lifecycle.pin({ key: 'office', value: 'Porto' });
    assert.deepEqual(await hits('where is the office'), ['Porto'], 'a change from another handle');
    await other.lifecycle.pin({ key: 'team.size', value: 'twelve people' });
    assert.deepEqual(await hits('we are twelve people'), ['twelve people']);
    await other.lifecycle.retire('office');
    assert.deepEqual(await hits('where is the office'), [], 'a retirement from another handle');
    // Each caller sees only its own scope: a guest gets none of the owner's facts.
    const guest: Principal = { role: 'guest', namespace: 'default', id: 'g1' };
    assert.deepEqual((await s.m.as(guest).search('we are twelve people')).ledger, []);
  } finally {
    await other.close();
    await s.close();
  }
});
