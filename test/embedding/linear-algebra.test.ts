import { test } from 'node:test';
import assert from 'node:assert/strict';
import { orthonormalizeColumns, randomizedSvd, sparseFromRows, sparseTimesDense, sparseTransposeTimesDense, symmetricEigen } from '../../src/embedding/builtin/linear-algebra.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';

const near = (a: number, b: number, tol = 1e-9): boolean => Math.abs(a - b) < tol;

test('sparse products (column-major dense blocks)', () => {
  // A = [[1, 2], [0, 3], [4, 0]] (3 x 2); X = I2
  const a = sparseFromRows([new Map([[0, 1], [1, 2]]), new Map([[1, 3]]), new Map([[0, 4]])], 2);
  assert.deepEqual([...sparseTimesDense(a, Float64Array.from([1, 0, 0, 1]), 2)], [1, 0, 4, 2, 3, 0]);
  // Aᵀ · [1, 1, 1]ᵀ = [5, 5]
  assert.deepEqual([...sparseTransposeTimesDense(a, Float64Array.from([1, 1, 1]), 1)], [5, 5]);
});

test('symmetricEigen: eigenvalues descending, A v = λ v', () => {
  const cases: Array<[number[], number, number[]]> = [
    [[2, 1, 1, 2], 2, [3, 1]],
    [[4, 0, 0, 0, 1, 0, 0, 0, 9], 3, [9, 4, 1]],
    [[2, -1, 0, -1, 2, -1, 0, -1, 2], 3, [2 + Math.SQRT2, 2, 2 - Math.SQRT2]],
  ];
  for (const [m, k, expected] of cases) {
    const { values, vectors } = symmetricEigen(Float64Array.from(m), k);
    expected.forEach((v, i) => assert.ok(near(values[i]!, v), `${values[i]} vs ${v}`));
    for (let j = 0; j < k; j++) {
      for (let r = 0; r < k; r++) {
        let av = 0;
        for (let c = 0; c < k; c++) av += m[r * k + c]! * vectors[c * k + j]!;
        assert.ok(near(av, values[j]! * vectors[r * k + j]!, 1e-9));
      }
    }
  }
});

test('orthonormalizeColumns gives QᵀQ = I and leaves a dependent column at zero', () => {
  const n = 6;
  const rand = mulberry32(3);
  const m = Float64Array.from({ length: n * 3 }, () => rand());
  for (let i = 0; i < n; i++) m[2 * n + i] = 2 * m[i]!; // column 2 = 2 · column 0
  orthonormalizeColumns(m, n, 3);
  const dotCols = (a: number, b: number): number => m.subarray(a * n, a * n + n).reduce((s, x, i) => s + x * m[b * n + i]!, 0);
  assert.ok(near(dotCols(0, 0), 1) && near(dotCols(1, 1), 1) && near(dotCols(0, 1), 0));
  assert.ok(near(dotCols(2, 2), 0), 'rank-deficient column is zero');
});

test('randomizedSvd recovers the leading singular values of a low-rank symmetric matrix', () => {
  // A = 5·u1u1ᵀ + 3·u2u2ᵀ + 1·u3u3ᵀ on 40 dims with orthonormal u's.
  const n = 40;
  const rand = mulberry32(11);
  const u = Float64Array.from({ length: n * 3 }, () => rand() - 0.5);
  orthonormalizeColumns(u, n, 3);
  const weights = [5, 3, 1];
  const rows = Array.from({ length: n }, (_, i) => {
    const row = new Map<number, number>();
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let c = 0; c < 3; c++) s += weights[c]! * u[c * n + i]! * u[c * n + j]!;
      row.set(j, s);
    }
    return row;
  });
  const svd = randomizedSvd(sparseFromRows(rows, n), 2, { seed: 5 });
  assert.equal(svd.rank, 2);
  assert.ok(near(svd.singularValues[0]!, 5, 1e-6) && near(svd.singularValues[1]!, 3, 1e-6), `${svd.singularValues}`);
  // The first left singular vector is ±u1.
  let d = 0;
  for (let i = 0; i < n; i++) d += svd.u[i * 2]! * u[i]!;
  assert.ok(near(Math.abs(d), 1, 1e-6));
  // Same seed, same result: training must be reproducible.
  assert.deepEqual(randomizedSvd(sparseFromRows(rows, n), 2, { seed: 5 }), svd);
});
