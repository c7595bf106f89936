/**
 * canonicalJson is hashed into every audit entry: its output must stay
 * byte-identical to JSON.stringify over the key-sorted value, or existing
 * chains would stop verifying.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { canonicalJson, sha256Hex } from '../../src/domain/hash.ts';
import { createHash } from 'node:crypto';

/** The reference: JSON.stringify with every object's keys sorted. */
function reference(value: unknown): string {
  return JSON.stringify(value, function (this: unknown, _key, v: unknown) {
    if (v && typeof v === 'object' && !Array.isArray(v)) return Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]));
    return v;
  });
}

const cases: [string, unknown][] = [
  ['number', 1],
  ['escaped string', 'a"b\n\\ \u2028 é'],
  ['null', null],
  ['booleans', [true, false]],
  ['array holes', [1, undefined, () => 1, 'x']],
  ['nested objects, dates, non-finite numbers', { b: 1, a: { d: [new Date(0), NaN, Infinity, -0], c: undefined }, é: 'ü' }],
  ['empty containers', { o: {}, a: [] }],
  ['objects in arrays', { z: [{ y: 1, x: 2 }] }],
  ['exponents', [1e21, 5e-7, -1.5, 0.1 + 0.2]],
  ['functions and symbols dropped', { f: () => 1, s: Symbol('x'), k: 1 }],
  ['keys in code-unit order', { é: 1, z: 2, Z: 3, a: 4, _: 7, 'a b': 8, ab: 9 }],
  ['more keys than the in-place sort takes', Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${(i * 7) % 40}`, i]))],
  ['an audit body', { seq: 7, at: '2026-01-01T00:00:00.000Z', actor: 'owner:o', namespace: 'ns', action: 'create', memoryId: '01J', beforeHash: null, afterHash: 'ab', details: { lineageId: '01J', type: 'fact' } }],
];

for (const [name, value] of cases) {
  test(`canonicalJson: ${name}`, () => assert.equal(canonicalJson(value), reference(value)));
}

test('canonicalJson: integer-like keys sort as strings too (JSON.stringify alone would put them first, in numeric order)', () => {
  // Chains have always been hashed this way; the reference above cannot express it.
  assert.equal(canonicalJson({ b: 1, '9': 2, '10': 3, a: 4 }), '{"10":3,"9":2,"a":4,"b":1}');
  const many = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [String(i), i]));
  assert.equal(canonicalJson(many), `{${Object.keys(many).sort().map((k) => `"${k}":${k}`).join(',')}}`);
});

test('sha256Hex equals a streamed SHA-256', () => {
  for (const s of ['', 'abc', 'ü'.repeat(1000)]) assert.equal(sha256Hex(s), createHash('sha256').update(s).digest('hex'));
});
