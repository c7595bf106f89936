import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TextBudget } from '../../src/domain/text-budget.ts';

test('a text budget takes texts whole while they fit, cuts the one that does not between characters, then gives nothing', () => {
  const rows: [number, string[], [string, boolean][], number][] = [
    [10, ['abc', 'defg'], [['abc', false], ['defg', false]], 0],
    [5, ['abc', 'defg', 'h'], [['abc', false], ['de', true], ['', true]], 2],
    [2, ['a😀b'], [['a', true]], 1], // the emoji would be cut in half: it is left out whole
    [3, ['a😀b'], [['a😀', true]], 1],
    [1, ['😀'], [['', true]], 1],
  ];
  for (const [max, texts, want, cut] of rows) {
    const b = new TextBudget(max);
    assert.deepEqual(texts.map((t) => { const r = b.take(t); return [r.text, r.truncated]; }), want, `${max} ${texts.join('|')}`);
    assert.equal(b.cut, cut);
  }
});
