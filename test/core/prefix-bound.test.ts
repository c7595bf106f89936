import assert from 'node:assert/strict';
import { test } from 'node:test';
import { prefixUpperBound } from '../../src/adapters/sql/scope-sql.ts';

const bytes = (s: string) => Buffer.from(s, 'utf8');

test('prefixUpperBound: above every string with the prefix, and nothing else below it, in byte order', () => {
  const cases: [string, string | null][] = [
    ['file:/notes/a.md#', 'file:/notes/a.md$'],
    ['a', 'b'],
    ['é', 'ê'],
    ['x\u{d7fe}', 'x\u{d7ff}'],
    ['x\u{d7ff}', null], // the next code unit is a surrogate
    ['x\u{1F600}', null], // ends in a surrogate pair's low half
    ['x\uffff', null],
    ['', null],
  ];
  for (const [prefix, want] of cases) assert.equal(prefixUpperBound(prefix), want, JSON.stringify(prefix));
  const prefix = 'file:/a#';
  const upper = prefixUpperBound(prefix)!;
  for (const s of ['file:/a#', 'file:/a#L1', 'file:/a#\u{1F600}', 'file:/a#\uffff\uffff']) assert.ok(Buffer.compare(bytes(s), bytes(upper)) < 0, s);
  for (const s of ['file:/a$', 'file:/a%', 'file:/b']) assert.ok(Buffer.compare(bytes(s), bytes(upper)) >= 0, s);
});
