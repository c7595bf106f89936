/**
 * The bounded full scan: an 8-bit copy of the rows gives every row an
 * interval that must hold the score the float32 kernel gives it, and the
 * search that rules rows out with those intervals must return exactly what
 * scoring every row returns (same ids, same scores, same order, ties
 * included), over a real SQLite store.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import type { SqliteVectorIndex } from '../../src/adapters/sqlite/vectors.ts';
import { BOUNDED_SCAN_MIN_ROWS, VectorCache, type VectorRow } from '../../src/adapters/vector-cache.ts';
import { VectorMatrix } from '../../src/adapters/vector-matrix.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { tempDir } from '../helpers/temp.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'bounded', id: 'owner' };

function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

const cases: { name: string; dims: number; rows: (r: () => number, dims: number) => Float32Array; query: (r: () => number, dims: number) => Float32Array }[] = [
  { name: 'unit vectors, 192 dims', dims: 192, rows: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)), query: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)) },
  { name: 'unit vectors, 3 dims (padding)', dims: 3, rows: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)), query: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)) },
  { name: 'unit vectors, 1536 dims (a smaller query scale)', dims: 1536, rows: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)), query: (r, d) => unit(Float32Array.from({ length: d }, () => r() - 0.5)) },
  { name: 'large and tiny magnitudes, one dominant component', dims: 100, rows: (r, d) => Float32Array.from({ length: d }, (_, j) => (j === 7 ? 5e3 : (r() - 0.5) * 1e-3)), query: (r, d) => Float32Array.from({ length: d }, () => (r() - 0.5) * 40) },
  // Worst cases: every rounding error of the row (then of the query) has the same sign as its partner, so the
  // errors add up to nearly the whole bound instead of cancelling out.
  { name: 'row rounding errors all aligned with the query', dims: 192, rows: (r, d) => {
      const c = 0.001 * (1 + Math.floor(r() * 3));
      return Float32Array.from({ length: d }, (_, j) => (j === 0 ? 127 : (j % 100) + 0.4999) * c);
    }, query: (_r, d) => new Float32Array(d).fill(1) },
  // (1,536 dimensions, mostly small query components: otherwise the row's share of the bound dominates it.)
  {
    name: 'query rounding errors all aligned with the row',
    dims: 1536,
    rows: (_r, d) => new Float32Array(d).fill(1),
    query: (r, d) => {
      const u = 1e-5 * (1 + Math.floor(r() * 3));
      const largest = Math.min(32767, Math.floor((2 ** 31 - 1) / (127 * d)));
      return Float32Array.from({ length: d }, (_, j) => (j === 0 ? largest : (j % 10) + 0.4999) * u);
    },
  },
  { name: 'mixed scales across rows', dims: 64, rows: (r, d) => Float32Array.from({ length: d }, () => (r() - 0.5) * 10 ** Math.floor(r() * 8 - 4)), query: (r, d) => Float32Array.from({ length: d }, () => r() - 0.5) },
];

for (const c of cases) {
  test(`8-bit bounds hold the float32 kernel's score: ${c.name}`, () => {
    const r = mulberry32(c.dims);
    const n = 300;
    const m = new VectorMatrix(c.dims, { initialRows: 8 });
    const rows = Array.from({ length: n }, () => c.rows(r, c.dims));
    // Special rows: all zeros, one NaN, one infinite, one too large to bound.
    rows[3] = new Float32Array(c.dims);
    rows[4] = Float32Array.from(rows[4]!, (x, j) => (j === 0 ? NaN : x));
    rows[5] = Float32Array.from(rows[5]!, (x, j) => (j === 0 ? Infinity : x));
    rows[6] = Float32Array.from(rows[6]!, (x, j) => (j === 0 ? 1e30 : x));
    rows.forEach((v, i) => {
      m.reserve(i + 1);
      m.set(i, v);
    });
    for (let k = 0; k < 5; k++) {
      const q = c.query(r, c.dims);
      const b = m.bounds(q, n);
      assert.ok(b, 'this Node has WebAssembly SIMD: the 8-bit copy exists');
      const lo = Array.from(b.lo.subarray(0, n));
      const hi = Array.from(b.hi.subarray(0, n));
      const exact = Array.from(m.scores(q, n).subarray(0, n));
      for (let i = 0; i < n; i++) {
        if (i === 4 || i === 5 || i === 6) {
          assert.deepEqual([lo[i], hi[i]], [-Infinity, Infinity], `row ${i} has no bound`);
          continue;
        }
        assert.ok(lo[i]! <= exact[i]! && exact[i]! <= hi[i]!, `row ${i}: ${exact[i]} outside [${lo[i]}, ${hi[i]}]`);
      }
      assert.ok(lo[3]! <= 0 && hi[3]! >= 0 && hi[3]! - lo[3]! < 1e-20, `a zero row scores exactly 0: [${lo[3]}, ${hi[3]}]`);
    }
    assert.equal(m.bounds(new Float32Array(c.dims), n), null, 'a zero query cannot be bounded');
  });
}

test('8-bit bounds are tight enough to be worth it: unit vectors in 192 dimensions get intervals under 0.05 wide', () => {
  const r = mulberry32(11);
  const m = new VectorMatrix(192, { initialRows: 1000 });
  for (let i = 0; i < 1000; i++) m.set(i, unit(Float32Array.from({ length: 192 }, () => r() - 0.5)));
  const b = m.bounds(unit(Float32Array.from({ length: 192 }, () => r() - 0.5)), 1000)!;
  let widest = 0;
  for (let i = 0; i < 1000; i++) widest = Math.max(widest, b.hi[i]! - b.lo[i]!);
  assert.ok(widest < 0.05, `widest interval ${widest}`);
});

test("dense vectors get the residual-length bound: intervals a fifth narrower than the per-dimension bound alone gives", () => {
  const r = mulberry32(12);
  const rows = Array.from({ length: 1000 }, () => unit(Float32Array.from({ length: 192 }, () => r() - 0.5)));
  const m = new VectorMatrix(192, { initialRows: 1000 });
  rows.forEach((v, i) => m.set(i, v));
  const q = unit(Float32Array.from({ length: 192 }, () => r() - 0.5));
  const b = m.bounds(q, 1000)!;
  const qL1 = q.reduce((a, x) => a + Math.abs(x), 0);
  let width = 0;
  let perDimension = 0;
  rows.forEach((v, i) => {
    width += b.hi[i]! - b.lo[i]!;
    // |q·e| <= Σ|q_j|·s/2 on both sides, with s = max|v|/127: the first bound's main term.
    perDimension += (Math.max(...v.map(Math.abs)) / 127) * qL1;
  });
  assert.ok(width < 0.8 * perDimension, `mean width ${width / 1000} against ${perDimension / 1000} per dimension`);
});

test('the bounded scan returns exactly what scoring every row returns: ids, scores, order, ties, scope masks and removed rows', async () => {
  const tmp = tempDir('mnemos-bounded-scan-');
  const store = SqliteStore.open({ path: join(tmp.dir, 'm.db'), analyze });
  try {
    const dims = 48;
    const r = mulberry32(3);
    const centres = Array.from({ length: 30 }, () => Float32Array.from({ length: dims }, () => r() * 2 - 1));
    const n = BOUNDED_SCAN_MIN_ROWS + 2000;
    const vectors = Array.from({ length: n }, () => unit(Float32Array.from(centres[Math.floor(r() * centres.length)]!, (x) => x + (r() * 2 - 1) * 0.5)));
    // Exact duplicates (the same text embedded twice): ties that can fall on the k-th place.
    for (let i = 0; i < 600; i++) vectors[n - 1 - i] = vectors[i * 3]!;
    const ms = vectors.map((_, i) => mem(owner, { text: `bounded ${i}`, key: `b:${i}` }));
    for (let i = 0; i < n; i += 1000) {
      await store.apply(
        owner,
        ms.slice(i, i + 1000).map((m, j) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: 'b48', vector: vectors[i + j]! } })),
      );
    }
    const real = store.vectors as unknown as SqliteVectorIndex;
    const bounded = new VectorCache('b48', dims, real);
    const full = new VectorCache('b48', dims, real, { quantized: false });
    await bounded.refresh();
    await full.refresh();
    // Memories forgotten after the load leave holes (removed slots) in the caches.
    await store.apply(owner, ms.slice(100, 160).map((m) => ({ kind: 'forget' as const, lineageId: m.id, reason: 'test' })));
    await bounded.refresh();
    await full.refresh();
    assert.equal(bounded.size, n - 60);
    const rowids: number[] = [];
    await real.eachVector('b48', null, (v) => rowids.push(v.rowid));
    const half = new Set(rowids.filter((_, i) => i % 2 === 0));
    let ruledOut = 0;
    for (const allowed of [null, half]) {
      for (const limit of [1, 10, 100, 700]) {
        for (let k = 0; k < 6; k++) {
          // Queries at stored vectors (their duplicates tie at the top) and between centres.
          const q = k % 2 === 0 ? vectors[k * 3]! : unit(Float32Array.from(centres[k]!, (x, j) => x + centres[k + 1]![j]!));
          const a = bounded.nearest(q, allowed, limit);
          assert.equal(bounded.lastScan?.rows, n, 'the full scan covered every slot, holes included');
          ruledOut += bounded.lastScan.rows - bounded.lastScan.scoredExactly;
          const b = full.nearest(q, allowed, limit);
          assert.equal(full.lastScan?.scoredExactly, full.lastScan?.rows);
          assert.deepEqual(a, b, `limit ${limit}, ${allowed ? 'half admitted' : 'all admitted'}, query ${k}`);
          assert.equal(a.length, limit);
        }
      }
    }
    assert.ok(ruledOut > 0.5 * 48 * n, `the bounds ruled out ${ruledOut} row scorings over 48 searches of ${n} rows`);
  } finally {
    await store.close();
    tmp.cleanup();
  }
});

test('the bounded scan never returns rows outside the admitted set, even when fewer rows are admitted than asked for', async () => {
  const dims = 16;
  const n = BOUNDED_SCAN_MIN_ROWS + 1000;
  const r = mulberry32(5);
  const rows = Array.from({ length: n }, (_, i) => ({ rowid: i + 1, id: `id${String(i).padStart(6, '0')}`, namespace: 'a', vector: unit(Float32Array.from({ length: dims }, () => r() - 0.5)) }));
  // The change log and row reads of a store, over an array: the cache under test is the real one.
  const source = { logHead: async () => 0, logTail: async () => 0, changedSince: async () => [], eachVector: async (_m: string, _r: number[] | null, visit: (row: VectorRow) => void) => rows.forEach((row) => visit(row)) };
  const bounded = new VectorCache('m16', dims, source);
  const full = new VectorCache('m16', dims, source, { quantized: false });
  await bounded.refresh();
  await full.refresh();
  // More than an eighth of the rows (so the full scan answers, not row-by-row scoring), fewer than the limit.
  const admitted = rows.filter((_, i) => i % 7 === 0);
  const allowed = new Set(admitted.map((x) => x.rowid));
  const ids = new Set(admitted.map((x) => x.id));
  assert.ok(allowed.size * 8 >= n && allowed.size < 1000);
  for (let k = 0; k < 4; k++) {
    const q = unit(Float32Array.from({ length: dims }, () => r() - 0.5));
    const hits = bounded.nearest(q, allowed, 1000);
    assert.ok(bounded.lastScan!.scoredExactly < n, 'the bounded path answered');
    assert.deepEqual(hits.filter((h) => !ids.has(h.id)), [], 'no row outside the admitted set');
    assert.deepEqual(hits, full.nearest(q, allowed, 1000), 'every admitted row, as scoring every row gives them');
  }
});
