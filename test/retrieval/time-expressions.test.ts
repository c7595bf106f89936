import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseTimeQuery } from '../../src/retrieval/time/time-expressions.ts';
import { MnemosError } from '../../src/domain/errors.ts';

// Reference: Wednesday 10 May 2023, 12:00 UTC. Ranges are [from, to) by day.
const REF = '2023-05-10T12:00:00.000Z';

const CASES: Array<[query: string, phrase: string, kind: 'absolute' | 'relative', from: string, to: string]> = [
  ['what happened yesterday?', 'yesterday', 'relative', '2023-05-09', '2023-05-10'],
  ['notes from today', 'today', 'relative', '2023-05-10', '2023-05-11'],
  ['the day before yesterday', 'the day before yesterday', 'relative', '2023-05-08', '2023-05-09'],
  ['meetings last week', 'last week', 'relative', '2023-05-01', '2023-05-08'],
  ['plans this week', 'this week', 'relative', '2023-05-08', '2023-05-15'],
  ['what did I read last month', 'last month', 'relative', '2023-04-01', '2023-05-01'],
  ['trips last year', 'last year', 'relative', '2022-01-01', '2023-01-01'],
  ['earlier this year', 'earlier this year', 'relative', '2023-01-01', '2023-05-11'],
  ['3 days ago', '3 days ago', 'relative', '2023-05-07', '2023-05-08'],
  ['two weeks ago', 'two weeks ago', 'relative', '2023-04-24', '2023-05-01'],
  ['a couple of months ago', 'a couple of months ago', 'relative', '2023-03-01', '2023-04-01'],
  ['a year ago', 'a year ago', 'relative', '2022-01-01', '2023-01-01'],
  ['in the past 3 days', 'in the past 3 days', 'relative', '2023-05-08', '2023-05-11'],
  ['over the last week', 'over the last week', 'relative', '2023-05-04', '2023-05-11'],
  ['last Tuesday', 'last Tuesday', 'relative', '2023-05-09', '2023-05-10'],
  ['last Wednesday', 'last Wednesday', 'relative', '2023-05-03', '2023-05-04'],
  ['on Friday', 'on Friday', 'relative', '2023-05-05', '2023-05-06'],
  ['this Friday', 'this Friday', 'relative', '2023-05-12', '2023-05-13'],
  ['last weekend', 'last weekend', 'relative', '2023-05-06', '2023-05-08'],
  ['what did we discuss recently', 'recently', 'relative', '2023-04-10', '2023-05-11'],
  ['in May 2023', 'in May 2023', 'absolute', '2023-05-01', '2023-06-01'],
  ['May 2023', 'May 2023', 'absolute', '2023-05-01', '2023-06-01'],
  ['in 2022', 'in 2022', 'absolute', '2022-01-01', '2023-01-01'],
  ['since 2021', 'since 2021', 'absolute', '2021-01-01', '2023-05-11'],
  ['on 8 May 2023', 'on 8 May 2023', 'absolute', '2023-05-08', '2023-05-09'],
  ['on 1 February, 2023?', 'on 1 February, 2023', 'absolute', '2023-02-01', '2023-02-02'],
  ['on October 13, 2023', 'on October 13, 2023', 'absolute', '2023-10-13', '2023-10-14'],
  ['the 3rd of March 2021', 'the 3rd of March 2021', 'absolute', '2021-03-03', '2021-03-04'],
  ['Sept 5, 2020', 'Sept 5, 2020', 'absolute', '2020-09-05', '2020-09-06'],
  ['2023-04-30', '2023-04-30', 'absolute', '2023-04-30', '2023-05-01'],
  ['in June', 'in June', 'absolute', '2022-06-01', '2022-07-01'], // latest June on or before the reference
  ['in March', 'in March', 'absolute', '2023-03-01', '2023-04-01'],
  ['last May', 'last May', 'absolute', '2022-05-01', '2022-06-01'],
  ['on May 8', 'on May 8', 'absolute', '2023-05-08', '2023-05-09'],
  ['12 June', '12 June', 'absolute', '2022-06-12', '2022-06-13'],
  ['summer of 2022', 'summer of 2022', 'absolute', '2022-06-01', '2022-09-01'],
  ['winter 2022', 'winter 2022', 'absolute', '2022-12-01', '2023-03-01'],
];

test('time phrases resolve to half-open UTC ranges relative to the reference date', () => {
  for (const [query, phrase, kind, from, to] of CASES) {
    const t = parseTimeQuery(query, REF);
    assert.equal(t.expressions.length, 1, `${query}: ${JSON.stringify(t.expressions.map((e) => e.phrase))}`);
    const e = t.expressions[0]!;
    assert.equal(e.phrase, phrase, query);
    assert.equal(e.kind, kind, query);
    assert.deepEqual([e.range.from.slice(0, 10), e.range.to.slice(0, 10)], [from, to], query);
    assert.deepEqual(t.range, e.range, query);
  }
});

test('no time phrase: modal "may", ordinary numbers', () => {
  for (const q of ['I may go', 'may 3 people come?', 'room 42', 'What did Caroline research?']) {
    const t = parseTimeQuery(q, REF);
    assert.deepEqual(t.expressions, [], q);
    assert.equal(t.range, null, q);
    assert.equal(t.text, q, q);
  }
});

test('an impossible day falls back to its month', () => {
  const t = parseTimeQuery('on 31 February 2023', REF);
  assert.deepEqual(t.expressions.map((e) => [e.phrase, e.granularity]), [['February 2023', 'month']]);
});

test('the longest phrase wins, several phrases give a covering range', () => {
  const one = parseTimeQuery('What did Gina find on 1 February, 2023?', REF);
  assert.deepEqual(one.expressions.map((e) => e.phrase), ['on 1 February, 2023']);
  const two = parseTimeQuery('between January 2022 and March 2022', REF);
  assert.deepEqual(two.expressions.map((e) => e.phrase), ['January 2022', 'March 2022']);
  assert.deepEqual(two.range, { from: '2022-01-01T00:00:00.000Z', to: '2022-04-01T00:00:00.000Z' });
});

test('strip decides which phrases leave the query text (default: none)', () => {
  const q = 'What did Melanie paint last year, and what on 8 May 2023?';
  assert.equal(parseTimeQuery(q, REF).text, q);
  assert.equal(parseTimeQuery(q, REF, { strip: 'absolute' }).text, 'What did Melanie paint last year, and what?');
  assert.equal(parseTimeQuery(q, REF, { strip: 'all' }).text, 'What did Melanie paint, and what?');
  assert.equal(parseTimeQuery('What did Gina find for her store on 1 February, 2023?', REF, { strip: 'all' }).text, 'What did Gina find for her store?');
});

test('recentDays is configurable; a bad reference date is a validation error', () => {
  const t = parseTimeQuery('recently', REF, { recentDays: 7 });
  assert.equal(t.range!.from, '2023-05-03T00:00:00.000Z');
  assert.throws(() => parseTimeQuery('yesterday', 'not a date'), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.equal(parseTimeQuery('yesterday', new Date(REF)).range!.from, '2023-05-09T00:00:00.000Z');
});
