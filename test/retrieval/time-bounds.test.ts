import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimeQuery } from '../../src/retrieval/time/time-expressions.ts';

const REF = '2025-03-15T12:00:00Z';

test('a count of days, weeks, months or years past what a date can hold is no time phrase, never an exception', () => {
  for (const unit of ['days', 'weeks', 'months', 'years'])
    for (const n of ['100000000', '300000000', '9999999999', '99999999999999', '1' + '0'.repeat(40)])
      for (const q of [`tea ${n} ${unit} ago`, `tea in the past ${n} ${unit}`, `tea last ${n} ${unit}`, `tea over the last ${n} ${unit}`]) {
        const r = parseTimeQuery(q, REF);
        assert.equal(r.range, null, q);
        assert.deepEqual(r.expressions, [], q);
      }
});

test('time phrases stay within the years 0000-9999; ordinary and far but representable ones still resolve', () => {
  // 3,000 years back is year -975: representable, but no date a query means.
  assert.equal(parseTimeQuery('tea 3000 years ago', REF).range, null);
  assert.deepEqual(parseTimeQuery('tea 2000 years ago', REF).range, { from: '0025-01-01T00:00:00.000Z', to: '0026-01-01T00:00:00.000Z' });
  assert.deepEqual(parseTimeQuery('tea 3 days ago', REF).range, { from: '2025-03-12T00:00:00.000Z', to: '2025-03-13T00:00:00.000Z' });
  assert.equal(parseTimeQuery('on 9999-12-31', REF).range?.from, '9999-12-31T00:00:00.000Z');
  // Another phrase of the same query still counts when one is out of range.
  assert.deepEqual(parseTimeQuery('tea 99999999999999 days ago or in May 2024', REF).range, { from: '2024-05-01T00:00:00.000Z', to: '2024-06-01T00:00:00.000Z' });
});
