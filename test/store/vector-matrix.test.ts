/**
 * The vector scan kernel: the WebAssembly SIMD path and the JavaScript path
 * must give the same dot products as a plain loop, for any dimension (padding
 * to 16-float blocks adds nothing) and across growth of the matrix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { paddedDims } from '../../src/adapters/simd-dot.ts';
import { VectorMatrix } from '../../src/adapters/vector-matrix.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';

function randomVector(rand: () => number, dims: number): Float32Array {
  return Float32Array.from({ length: dims }, () => rand() * 2 - 1);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

test('padded dimensions are whole 16-float blocks', () => {
  for (const [dims, padded] of [[1, 16], [16, 16], [17, 32], [192, 192], [384, 384], [1536, 1536], [100, 112]] as const) assert.equal(paddedDims(dims), padded, `dims ${dims}`);
});

for (const simd of [true, false]) {
  for (const dims of [3, 16, 100, 192]) {
    test(`${simd ? 'SIMD' : 'JavaScript'} scores equal plain dot products (dims ${dims}, growing past the first block)`, () => {
      const rand = mulberry32(dims);
      const m = new VectorMatrix(dims, { initialRows: 4, simd });
      if (simd) assert.equal(m.simd, true, 'this Node has WebAssembly SIMD; the kernel must load');
      const rows = Array.from({ length: 37 }, () => randomVector(rand, dims));
      rows.forEach((v, i) => {
        m.reserve(i + 1);
        m.set(i, v);
      });
      // Overwrite one row: the old values must not linger in the padding.
      rows[5] = randomVector(rand, dims);
      m.set(5, rows[5]);
      const q = randomVector(rand, dims);
      const scores = m.scores(q, rows.length);
      rows.forEach((v, i) => assert.ok(Math.abs(scores[i]! - dot(v, q)) < 1e-4, `row ${i}: ${scores[i]} vs ${dot(v, q)}`));
    });
  }
}

test('a query shorter than a row block scores only its own dimensions', () => {
  const m = new VectorMatrix(5, { initialRows: 2 });
  m.set(0, Float32Array.from([1, 0, 0, 0, 0]));
  m.set(1, Float32Array.from([0, 0, 0, 0, 1]));
  const s = m.scores(Float32Array.from([0.5, 0, 0, 0, 0.25]), 2);
  assert.deepEqual([s[0], s[1]], [0.5, 0.25]);
});

for (const simd of [true, false]) {
  test(`${simd ? 'SIMD' : 'JavaScript'} scores of listed rows equal the full pass bit for bit (candidate and small-scope scoring)`, () => {
    const rand = mulberry32(7);
    const dims = 100;
    const m = new VectorMatrix(dims, { initialRows: 8, simd });
    const rows = Array.from({ length: 50 }, () => randomVector(rand, dims));
    rows.forEach((v, i) => {
      m.reserve(i + 1);
      m.set(i, v);
    });
    const q = randomVector(rand, dims);
    const all = Array.from(m.scores(q, rows.length));
    const slots = [49, 3, 17, 0, 25];
    assert.deepEqual(Array.from(m.scoresOf(q, slots).subarray(0, slots.length)), slots.map((s) => all[s]));
    assert.deepEqual(Array.from(m.row(17)), Array.from(rows[17]!));
  });
}
