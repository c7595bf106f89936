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

test('a per-text cap gives every text its beginning while the page budget lasts, and the note says which bound cut what', () => {
  // Without the cap the first text took the whole budget and the others showed nothing.
  const b = new TextBudget(10, 4);
  assert.deepEqual(['abcdefgh', 'ij', 'klmnop', 'qrstuv'].map((t) => b.take(t)), [
    { text: 'abcd', truncated: true },
    { text: 'ij', truncated: false },
    { text: 'klmn', truncated: true }, // 10 - 4 - 2 = 4 left, no more than the cap: the page budget cuts it
    { text: '', truncated: true }, // by the page budget, spent
  ]);
  assert.equal(b.cut, 3);
  assert.equal(b.cutEach, 1, 'only the first was cut by the cap');
  assert.equal(b.note('get it whole'), 'maxCharsEach 4 cut 1 text and maxChars 10 cut 2 texts (marked truncated); get it whole');
  // Between characters, as the page budget cuts.
  const e = new TextBudget(100, 2);
  assert.deepEqual(e.take('a😀b'), { text: 'a', truncated: true });
  assert.equal(e.note('x'), 'maxCharsEach 2 cut 1 text (marked truncated); x');
  // A cap at or above the budget changes nothing, and a budget without cuts has no note.
  const same = new TextBudget(5, 50);
  assert.deepEqual(same.take('abcdefg'), { text: 'abcde', truncated: true });
  assert.equal(same.note('x'), 'maxChars 5 cut 1 text (marked truncated); x');
  assert.equal(new TextBudget(5, 2).note('x'), undefined);
});
