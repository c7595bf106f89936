import { test } from 'node:test';
import assert from 'node:assert/strict';
import { estimateTokens } from '../../src/retrieval/token-estimate.ts';
import { packContext, renderWithCitation, type PackItem } from '../../src/retrieval/context-pack.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import { MnemosError } from '../../src/domain/errors.ts';

test('estimateTokens: ceil(narrow code points / 4) + wide code points', () => {
  const cases: Array<[string, number]> = [
    ['', 0],
    ['a', 1],
    ['abcd', 1],
    ['abcde', 2],
    ['Hello, world!', 4], // 13 narrow
    ['日本語', 3],
    ['日本語 ok', 4], // 3 wide + ceil(3/4)
    ['🙂🙂', 2],
    ['naïve', 2], // code points, not UTF-16 units
  ];
  for (const [text, tokens] of cases) assert.equal(estimateTokens(text), tokens, JSON.stringify(text));
});

test('estimateTokens never under-counts a join of parts', () => {
  const rand = mulberry32(1);
  const alphabet = 'ab cd,日🙂\n';
  const piece = (): string => Array.from({ length: Math.floor(rand() * 30) }, () => alphabet[Math.floor(rand() * alphabet.length)]).join('');
  for (let i = 0; i < 200; i++) {
    const a = piece();
    const b = piece();
    assert.ok(estimateTokens(a + b) <= estimateTokens(a) + estimateTokens(b), `${a}|${b}`);
  }
});

const items: PackItem[] = [
  { id: 'm1', text: 'Caroline went to an LGBTQ support group.', citation: 'conv-26 D1:3' },
  { id: 'm2', text: 'x'.repeat(400), citation: 'big.md:1-40' },
  { id: 'm3', text: 'Melanie painted a sunrise.', citation: 'conv-26 D1:12' },
  { id: 'm4', text: 'Short.', citation: 'm4' },
];

test('packContext: rank order, whole items with citations, skips what does not fit, never over budget', () => {
  // Rendered costs: m1 14, m2 104, m3 11, m4 3; the "\n\n" separator costs 1.
  const cases: Array<[budget: number, taken: string[], skipped: string[]]> = [
    [0, [], ['m1', 'm2', 'm3', 'm4']],
    [5, ['m4'], ['m1', 'm2', 'm3']], // a small item later in the ranking still fits
    [16, ['m1'], ['m2', 'm3', 'm4']],
    [29, ['m1', 'm3'], ['m2', 'm4']],
    [30, ['m1', 'm3', 'm4'], ['m2']],
    [135, ['m1', 'm2', 'm3', 'm4'], []],
    [134, ['m1', 'm2', 'm3'], ['m4']],
  ];
  for (const [budget, taken, skipped] of cases) {
    const packed = packContext(items, budget);
    assert.deepEqual(packed.items.map((i) => i.id), taken, `budget ${budget}`);
    assert.deepEqual(packed.skipped.map((i) => i.id), skipped, `budget ${budget}`);
    assert.ok(packed.usedTokens <= budget, `budget ${budget}`);
    assert.ok(estimateTokens(packed.text) <= packed.usedTokens, `budget ${budget}: the joined text is within the estimate`);
    for (const item of packed.items) {
      assert.ok(packed.text.includes(renderWithCitation(item)), 'each item appears whole with its citation');
      assert.equal(item.tokens, estimateTokens(renderWithCitation(item)));
    }
  }
});

test('packContext: random items and budgets never exceed the budget', () => {
  const rand = mulberry32(42);
  for (let round = 0; round < 100; round++) {
    const list: PackItem[] = Array.from({ length: 1 + Math.floor(rand() * 12) }, (_, i) => ({
      id: `r${i}`,
      text: 'word '.repeat(Math.floor(rand() * 80)),
      citation: `c${i}`,
    }));
    const budget = Math.floor(rand() * 300);
    const packed = packContext(list, budget, { separator: '\n---\n' });
    assert.ok(packed.usedTokens <= budget);
    assert.ok(estimateTokens(packed.text) <= budget);
  }
});

test('packContext: custom render and estimator, budget validated', () => {
  const packed = packContext(items, 3, { render: (i) => i.id, estimate: () => 1, separator: ' ' });
  assert.deepEqual(packed.items.map((i) => i.id), ['m1', 'm2']);
  assert.equal(packed.text, 'm1 m2');
  for (const bad of [-1, 1.5, Number.NaN]) assert.throws(() => packContext(items, bad), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});
