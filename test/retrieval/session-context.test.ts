import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contextualVector, rankScores, smoothScores, type Neighbours } from '../../src/retrieval/session-context.ts';

// A session q -> a -> b, and a lone turn z.
const NEIGHBOURS: Record<string, Neighbours> = { q: { next: 'a' }, a: { previous: 'q', next: 'b' }, b: { previous: 'a' }, z: {} };
const nb = (id: string): Neighbours => NEIGHBOURS[id] ?? {};

test('smoothScores: s(i) + wPrev·s(prev) + wNext·s(next); zero scores dropped', () => {
  const scores = new Map([['q', 10], ['z', 3]]);
  const out = smoothScores(scores, ['q', 'a', 'b', 'z'], nb, { previous: 0.5, next: 0.2 });
  assert.deepEqual([...out], [['q', 10], ['a', 5], ['z', 3]]);
  const both = smoothScores(new Map([['q', 10], ['a', 4], ['b', 2]]), ['q', 'a', 'b'], nb, { previous: 0.5, next: 0.2 });
  assert.deepEqual([...both], [['q', 10 + 0.8], ['a', 4 + 5 + 0.4], ['b', 2 + 2]]);
  assert.deepEqual(rankScores(both, 2), ['q', 'a']);
});

test('contextualVector: unit length of own + weighted neighbours; none = own direction', () => {
  const own = Float32Array.from([1, 0]);
  const prev = Float32Array.from([0, 1]);
  const v = contextualVector(own, prev, undefined, { previous: 1, next: 0 });
  assert.ok(Math.abs(v[0]! - Math.SQRT1_2) < 1e-6 && Math.abs(v[1]! - Math.SQRT1_2) < 1e-6);
  assert.deepEqual([...contextualVector(own, undefined, undefined)], [1, 0]);
  const w = contextualVector(own, prev, Float32Array.from([0, -1]), { previous: 0.5, next: 0.5 });
  assert.deepEqual([...w], [1, 0], 'opposite neighbours cancel');
});
