import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import {
  and,
  confidenceToWeight,
  evidenceCount,
  evidenceToStv,
  modusPonens,
  not,
  or,
  revision,
  simpleModusPonens,
  weightRevision,
  weightToConfidence,
} from '../../src/pln/formulas.ts';
import { stv, type Stv } from '../../src/pln/truth.ts';

test('pinned vector: (S a) (0.8, 0.6) with S->T (0.9, 0.8) gives exactly (0.7600000000000001, 0.52)', () => {
  const out = modusPonens(stv(0.8, 0.6), stv(0.9, 0.8));
  assert.equal(out.s, 0.7600000000000001);
  assert.equal(out.c, 0.52);
});

/** [name, computed, expected] compared to 12 decimal places. */
const cases: Array<[string, () => Stv, Stv]> = [
  ['MP with explicit complement', () => modusPonens(stv(0.8, 0.6), stv(0.9, 0.8), stv(0.5, 0.9)), { s: 0.82, c: 0.6 }],
  ['MP from a false fact uses only the complement', () => modusPonens(stv(0, 0.9), stv(0.9, 0.8)), { s: 0.2, c: 0.2 }],
  ['MP from a true fact uses only the rule', () => modusPonens(stv(1, 0.7), stv(0.9, 0.8)), { s: 0.9, c: 0.7 }],
  ['MP confidence capped by the fact', () => modusPonens(stv(1, 0.1), stv(0.9, 0.8)), { s: 0.9, c: 0.1 }],
  ['simple MP', () => simpleModusPonens(stv(0.8, 0.6), stv(0.9, 0.8)), { s: 0.72, c: 0.48 }],
  ['and', () => and(stv(0.5, 0.9), stv(0.4, 0.3)), { s: 0.2, c: 0.3 }],
  ['or', () => or(stv(0.5, 0.9), stv(0.4, 0.3)), { s: 0.7, c: 0.3 }],
  ['not', () => not(stv(0.3, 0.7)), { s: 0.7, c: 0.7 }],
  ['revision of equal weights', () => revision(stv(0.8, 0.5), stv(0.4, 0.5)), { s: 0.6, c: 1600 / 2400 }],
  ['revision weighs by evidence', () => revision(stv(1, 0.9), stv(0, 0.5)), { s: 0.9, c: 8000 / 8800 }],
  ['revision with no evidence', () => revision(stv(1, 0), stv(0, 0)), { s: 0.5, c: 0 }],
  ['evidence 8:2', () => evidenceToStv(8, 2), { s: 0.8, c: 10 / 12 }],
  ['evidence 0:3', () => evidenceToStv(0, 3), { s: 0, c: 0.6 }],
  ['no evidence', () => evidenceToStv(0, 0), { s: 0.5, c: 0 }],
  ['patham9 revision', () => weightRevision(stv(1, 0.5), stv(0, 0.5)), { s: 0.5, c: 2 / 3 }],
  ['patham9 revision unequal', () => weightRevision(stv(1, 0.75), stv(0, 0.5)), { s: 0.75, c: 0.8 }],
];
for (const [name, compute, want] of cases) {
  test(name, () => {
    const got = compute();
    assert.ok(Math.abs(got.s - want.s) < 1e-12 && Math.abs(got.c - want.c) < 1e-12, `${JSON.stringify(got)} != ${JSON.stringify(want)}`);
  });
}

const numbers: Array<[string, number, number]> = [
  ['n(0.5) = K', evidenceCount(0.5), 800],
  ['n(0) = 0', evidenceCount(0), 0],
  ['n(1) uses the 0.9999 cap', evidenceCount(1), 800 / 0.0001],
  ['n with another K', evidenceCount(0.5, 10), 10],
  ['w(0.5) = 1', confidenceToWeight(0.5), 1],
  ['w(0.75) = 3', confidenceToWeight(0.75), 3],
  ['c(w=3) = 0.75', weightToConfidence(3), 0.75],
];
for (const [name, got, want] of numbers) test(name, () => assert.ok(Math.abs(got - want) < 1e-6, `${got} != ${want}`));

test('truth values outside [0, 1] and bad evidence counts are refused', () => {
  for (const [s, c] of [[-0.1, 0.5], [0.5, 1.1], [NaN, 0.5], [0.5, Infinity]] as const) {
    assert.throws(() => stv(s, c), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  }
  assert.throws(() => evidenceToStv(-1, 2), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => evidenceToStv(1, Infinity), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('every formula refuses an input truth value outside [0, 1], naming the argument', () => {
  const ok: Stv = { s: 0.5, c: 0.5 };
  const bad: Stv[] = [{ s: 0.5, c: 2 }, { s: 0.5, c: -0.5 }, { s: Number.NaN, c: 0.5 }, { s: 1.5, c: 0.1 }];
  const calls: [string, (x: Stv) => unknown][] = [
    ['fact', (x) => modusPonens(x, ok)],
    ['rule', (x) => modusPonens(ok, x)],
    ['complement', (x) => modusPonens(ok, ok, x)],
    ['fact', (x) => simpleModusPonens(x, ok)],
    ['b', (x) => and(ok, x)],
    ['a', (x) => or(x, ok)],
    ['a', (x) => not(x)],
    ['a', (x) => revision(x, ok)],
    ['b', (x) => weightRevision(ok, x)],
  ];
  for (const [field, call] of calls) {
    for (const x of bad) assert.throws(() => call(x), (e: unknown) => MnemosError.is(e, 'validation_failed') && e.details?.['field'] === field, `${field} ${JSON.stringify(x)}`);
  }
  assert.throws(() => revision(ok, ok, -5), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('evidence counts whose sum overflows still give their proportion, at full confidence', () => {
  assert.deepEqual(evidenceToStv(1e308, 1e308), { s: 0.5, c: 1 });
  assert.deepEqual(evidenceToStv(1.5e308, 0.5e308), { s: 0.75, c: 1 });
});
