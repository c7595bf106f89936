/**
 * Time-sortable ids (domain/ids.ts): ULID layout (time in the first ten
 * characters, Crockford base32), monotonic within a process whatever the
 * clock does, the increment carrying across bytes, and a clear error when a
 * millisecond's random part is used up.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idFactory, isId, newId } from '../../src/domain/ids.ts';

const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const decodeTime = (id: string) => [...id.slice(0, 10)].reduce((t, c) => t * 32 + ENCODING.indexOf(c), 0);
/** The 80-bit random part as a bigint, to check increments exactly. */
const randomPart = (id: string) => [...id.slice(10)].reduce((r, c) => r * 32n + BigInt(ENCODING.indexOf(c)), 0n);

test('ids are ULIDs whose first ten characters encode the time', () => {
  for (const t of [0, 1, 1_700_000_000_123, 2 ** 48 - 1]) {
    const id = idFactory()(t);
    assert.ok(isId(id), id);
    assert.equal(decodeTime(id), t);
  }
  assert.throws(() => idFactory()(-1), RangeError);
  assert.throws(() => idFactory()(2 ** 48), RangeError);
  assert.throws(() => idFactory()(Number.NaN), RangeError);
  assert.ok(isId(newId()));
});

test('ids sort in creation order: same millisecond, later ones, and a clock that steps back', () => {
  const make = idFactory();
  const times = [1000, 1000, 1000, 1005, 1005, 999, 998, 1006, 2000, 2000];
  const ids = times.map((t) => make(t));
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i - 1]! < ids[i]!, `${ids[i - 1]} < ${ids[i]}`);
  // Within one millisecond (or an earlier clock reading) the time stays and the random part counts up by one.
  assert.equal(decodeTime(ids[5]!), 1005);
  assert.equal(randomPart(ids[5]!), randomPart(ids[4]!) + 1n);
  assert.equal(randomPart(ids[2]!), randomPart(ids[0]!) + 2n);
  const many = new Set(Array.from({ length: 20_000 }, (_, i) => make(3000 + (i >> 3))));
  assert.equal(many.size, 20_000);
});

test('the increment carries across bytes, and a used-up millisecond is an error', () => {
  // A random source of ...00 ff ff: the next id in that millisecond carries into the third byte from the end.
  const carry = idFactory((buf) => buf.fill(0).fill(0xff, 8, 10));
  const a = carry(5);
  const b = carry(5);
  assert.equal(randomPart(b), randomPart(a) + 1n);
  assert.equal(randomPart(b), 1n << 16n);
  const full = idFactory((buf) => buf.fill(0xff));
  assert.equal(randomPart(full(7)), (1n << 80n) - 1n);
  assert.throws(() => full(7), /more ids in one millisecond/);
  assert.throws(() => full(7), /more ids in one millisecond/, 'still used up: nothing wrapped around');
  assert.ok(isId(full(8)), 'the next millisecond starts afresh');
});
