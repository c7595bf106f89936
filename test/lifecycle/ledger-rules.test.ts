import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isExactHit, ledgerScore, promptBlock, rankFacts, sameValue, strengthen, validateFactInput, type LedgerFact } from '../../src/lifecycle/ledger-rules.ts';
import { ledgerFact } from './helpers.ts';

test('ledger key, value and statement limits', () => {
  const ok = ['user.name', 'a1', 'project_x-y.z', 'x'.repeat(64)];
  const bad = ['A', 'a', '_lead', 'has space', 'UPPER', 'x'.repeat(65), 'é.name'];
  for (const key of ok) assert.doesNotThrow(() => validateFactInput({ key, value: 'v' }), key);
  for (const key of bad) assert.throws(() => validateFactInput({ key, value: 'v' }), { code: 'validation_failed' }, key);
  assert.throws(() => validateFactInput({ key: 'k1', value: 'v'.repeat(501) }), { code: 'validation_failed' });
  assert.throws(() => validateFactInput({ key: 'k1', value: '' }), { code: 'validation_failed' });
  assert.throws(() => validateFactInput({ key: 'k1', value: 'v', statement: 's'.repeat(301) }), { code: 'validation_failed' });
  assert.doesNotThrow(() => validateFactInput({ key: 'k1', value: 'v'.repeat(500), statement: 's'.repeat(300) }));
});

test('strengthen: mentions + 1, confidence = min(1, max(old, new) + 0.05)', () => {
  const rows: [number, number, number, number, number][] = [
    [0.6, 1, 0.5, 0.65, 2],
    [0.6, 1, 0.8, 0.85, 2],
    [0.98, 7, 0.9, 1, 8],
  ];
  for (const [c, m, n, wc, wm] of rows) assert.deepEqual(strengthen({ confidence: c, mentions: m }, n), { confidence: wc, mentions: wm });
});

test('ranking score: confidence · e^(-days/180) · (1 + ln(1 + min(mentions, 1000))/4)', () => {
  const now = Date.parse('2026-07-01T00:00:00Z');
  const at = (days: number) => new Date(now - days * 86_400_000).toISOString();
  const rows: [number, number, number, number][] = [
    [1, 0, 0, 1],
    [0.95, 1, 0, 0.95 * (1 + Math.log(2) / 4)],
    [0.8, 3, 180, 0.8 * Math.exp(-1) * (1 + Math.log(4) / 4)],
    [1, 5000, 0, 1 + Math.log(1001) / 4],
  ];
  for (const [confidence, mentions, days, want] of rows) assert.ok(Math.abs(ledgerScore({ confidence, mentions, updatedAt: at(days) }, now) - want) < 1e-9);
});

const fact = ledgerFact;

test('a pin outranks background facts whatever their score; the prompt block keeps 48 facts within the budget', () => {
  const now = Date.parse('2026-01-02T00:00:00Z');
  const ranked = rankFacts([fact('learned.strong', { confidence: 1, mentions: 900 }), fact('pinned.weak', { confidence: 0.5, source: 'agent pin', updatedAt: '2025-01-01T00:00:00Z' })], now);
  assert.deepEqual(ranked.map((f) => f.key), ['pinned.weak', 'learned.strong']);
  const many = rankFacts(Array.from({ length: 100 }, (_, i) => fact(`k${String(i).padStart(3, '0')}`)), now);
  const block = promptBlock(many);
  assert.equal(block.facts, 48);
  assert.ok(block.tokens <= 1500);
  const tight = promptBlock(many, 60);
  assert.ok(tight.tokens <= 60 && tight.facts > 0 && tight.facts < 48);
});

test('exact ledger hits: key in any separator style, or the whole value', () => {
  const f = fact('user.home_city', { value: 'Lisbon' });
  const rows: [string, boolean][] = [
    ['user home city', true],
    ['what is the user.home_city?', true],
    ['trip to Lisbon next week', true],
    ['lisbonne', false],
    ['home', false],
  ];
  for (const [q, want] of rows) assert.equal(isExactHit(f, q), want, q);
});

test('the same ledger value ignores only letter case and surrounding whitespace', () => {
  for (const [a, b] of [['SQLite', 'sqlite'], [' Lisbon ', 'lisbon'], ['C++', 'c++']]) assert.ok(sameValue(a!, b!), `${a} = ${b}`);
  for (const [a, b] of [['-5', '5'], ['a.b@example.com', 'a_b@example.com'], ['C++', 'C'], ['+1', '1'], ['new york', 'new-york'], ['$5', '5']]) assert.ok(!sameValue(a!, b!), `${a} != ${b}`);
});
