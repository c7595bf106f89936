/**
 * The little linear algebra the built-in embedder needs, in plain typed
 * arrays: a sparse symmetric matrix, Gram-Schmidt orthonormalisation, a Jacobi
 * eigensolver for small symmetric matrices, and a randomized truncated SVD
 * (Halko, Martinsson & Tropp 2011) built from them. Dense blocks are
 * column-major Float64Arrays (each column contiguous, which keeps the inner
 * loops of Gram-Schmidt sequential in memory).
 */
import { gaussian, mulberry32 } from './prng.ts';

/** Compressed sparse rows. */
export interface SparseMatrix {
  rows: number;
  cols: number;
  rowStart: Int32Array;
  colIndex: Int32Array;
  values: Float64Array;
}

export function sparseFromRows(rows: ReadonlyArray<ReadonlyMap<number, number>>, cols: number): SparseMatrix {
  let nnz = 0;
  for (const r of rows) nnz += r.size;
  const rowStart = new Int32Array(rows.length + 1);
  const colIndex = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  let at = 0;
  rows.forEach((row, i) => {
    rowStart[i] = at;
    for (const [c, v] of [...row].sort((a, b) => a[0] - b[0])) {
      colIndex[at] = c;
      values[at++] = v;
    }
  });
  rowStart[rows.length] = at;
  return { rows: rows.length, cols, rowStart, colIndex, values };
}

/** A (rows x cols, sparse) times X (cols x k, dense, column-major) -> rows x k, column-major. */
export function sparseTimesDense(a: SparseMatrix, x: Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.rows * k);
  const { rowStart, colIndex, values } = a;
  for (let j = 0; j < k; j++) {
    const xo = j * a.cols;
    const o = j * a.rows;
    for (let i = 0; i < a.rows; i++) {
      let s = 0;
      for (let p = rowStart[i]!; p < rowStart[i + 1]!; p++) s += values[p]! * x[xo + colIndex[p]!]!;
      out[o + i] = s;
    }
  }
  return out;
}

/** Aᵀ (cols x rows) times X (rows x k, column-major) -> cols x k, column-major, without materialising Aᵀ. */
export function sparseTransposeTimesDense(a: SparseMatrix, x: Float64Array, k: number): Float64Array {
  const out = new Float64Array(a.cols * k);
  const { rowStart, colIndex, values } = a;
  for (let j = 0; j < k; j++) {
    const xo = j * a.rows;
    const o = j * a.cols;
    for (let i = 0; i < a.rows; i++) {
      const xv = x[xo + i]!;
      if (xv === 0) continue;
      for (let p = rowStart[i]!; p < rowStart[i + 1]!; p++) out[o + colIndex[p]!]! += values[p]! * xv;
    }
  }
  return out;
}

/**
 * Orthonormalises the k columns of an n x k column-major matrix in place
 * (modified Gram-Schmidt, run twice: "twice is enough" for stability).
 */
export function orthonormalizeColumns(m: Float64Array, n: number, k: number): void {
  for (let pass = 0; pass < 2; pass++) {
    for (let j = 0; j < k; j++) {
      const cj = m.subarray(j * n, (j + 1) * n);
      for (let prev = 0; prev < j; prev++) {
        const cp = m.subarray(prev * n, (prev + 1) * n);
        let dot = 0;
        for (let i = 0; i < n; i++) dot += cj[i]! * cp[i]!;
        for (let i = 0; i < n; i++) cj[i]! -= dot * cp[i]!;
      }
      let norm = 0;
      for (let i = 0; i < n; i++) norm += cj[i]! * cj[i]!;
      norm = Math.sqrt(norm);
      // A column that collapsed to zero (rank deficiency) stays zero rather than dividing by ~0.
      if (norm > 1e-12) for (let i = 0; i < n; i++) cj[i] = cj[i]! / norm;
      else cj.fill(0);
    }
  }
}

/**
 * Eigen-decomposition of a small symmetric k x k matrix by cyclic Jacobi
 * rotations. Returns eigenvalues (descending) and eigenvectors as columns.
 */
export function symmetricEigen(input: Float64Array, k: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(input);
  const v = new Float64Array(k * k);
  for (let i = 0; i < k; i++) v[i * k + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < k; p++) for (let q = p + 1; q < k; q++) off += a[p * k + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < k; p++) {
      for (let q = p + 1; q < k; q++) {
        const apq = a[p * k + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * k + q]! - a[p * k + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let r = 0; r < k; r++) {
          const arp = a[r * k + p]!;
          const arq = a[r * k + q]!;
          a[r * k + p] = c * arp - s * arq;
          a[r * k + q] = s * arp + c * arq;
        }
        for (let r = 0; r < k; r++) {
          const apr = a[p * k + r]!;
          const aqr = a[q * k + r]!;
          a[p * k + r] = c * apr - s * aqr;
          a[q * k + r] = s * apr + c * aqr;
        }
        for (let r = 0; r < k; r++) {
          const vrp = v[r * k + p]!;
          const vrq = v[r * k + q]!;
          v[r * k + p] = c * vrp - s * vrq;
          v[r * k + q] = s * vrp + c * vrq;
        }
      }
    }
  }
  const order = [...Array(k).keys()].sort((x, y) => a[y * k + y]! - a[x * k + x]!);
  const values = new Float64Array(k);
  const vectors = new Float64Array(k * k);
  order.forEach((src, dst) => {
    values[dst] = a[src * k + src]!;
    for (let r = 0; r < k; r++) vectors[r * k + dst] = v[r * k + src]!;
  });
  return { values, vectors };
}

export interface TruncatedSvd {
  rank: number;
  /** Left singular vectors, rows x rank, row-major. */
  u: Float64Array;
  singularValues: Float64Array;
}

/**
 * Randomized truncated SVD: a seeded Gaussian sketch, `powerIterations`
 * rounds of subspace iteration (A Aᵀ), then an exact SVD of the small
 * projected matrix via the eigen-decomposition of B Bᵀ.
 */
export function randomizedSvd(a: SparseMatrix, rank: number, options: { oversample?: number; powerIterations?: number; seed?: number } = {}): TruncatedSvd {
  const k = Math.max(1, Math.min(rank + (options.oversample ?? 10), a.rows, a.cols));
  const normal = gaussian(mulberry32(options.seed ?? 1));
  const omega = new Float64Array(a.cols * k);
  for (let i = 0; i < omega.length; i++) omega[i] = normal();
  let q = sparseTimesDense(a, omega, k);
  orthonormalizeColumns(q, a.rows, k);
  for (let it = 0; it < (options.powerIterations ?? 4); it++) {
    const z = sparseTransposeTimesDense(a, q, k);
    orthonormalizeColumns(z, a.cols, k);
    q = sparseTimesDense(a, z, k);
    orthonormalizeColumns(q, a.rows, k);
  }
  // B = Qᵀ A is k x cols; held transposed (cols x k, column-major) as Aᵀ Q.
  const bt = sparseTransposeTimesDense(a, q, k);
  const bbt = new Float64Array(k * k);
  for (let i = 0; i < k; i++) {
    const ci = bt.subarray(i * a.cols, (i + 1) * a.cols);
    for (let j = i; j < k; j++) {
      const cj = bt.subarray(j * a.cols, (j + 1) * a.cols);
      let s = 0;
      for (let r = 0; r < a.cols; r++) s += ci[r]! * cj[r]!;
      bbt[i * k + j] = s;
      bbt[j * k + i] = s;
    }
  }
  const { values, vectors } = symmetricEigen(bbt, k);
  const r = Math.min(rank, k);
  // U = Q · eigenvectors, returned row-major (rows x r): row i is term i's coordinates.
  const u = new Float64Array(a.rows * r);
  for (let j = 0; j < r; j++) {
    for (let t = 0; t < k; t++) {
      const w = vectors[t * k + j]!;
      if (w === 0) continue;
      const qt = t * a.rows;
      for (let i = 0; i < a.rows; i++) u[i * r + j]! += q[qt + i]! * w;
    }
  }
  const singularValues = new Float64Array(r);
  for (let j = 0; j < r; j++) singularValues[j] = Math.sqrt(Math.max(0, values[j]!));
  return { rank: r, u, singularValues };
}
