/**
 * Saved approximate-index graphs (graph-snapshots.ts) on their own: what a
 * loader refuses and why, what it deletes, and that a save leaves one
 * generation. The store-level behaviour (loading, forget) is in
 * vector-ann.test.ts.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { GraphSnapshots, vectorHash, type GraphIdentity } from '../../src/adapters/graph-snapshots.ts';
import { loadUsearch, newHnswIndex, type HnswIndex } from '../../src/adapters/usearch.ts';
import { tempDir } from '../helpers/temp.ts';

const DIMS = 8;
const id: GraphIdentity = { model: 'm', namespace: 'ns', dims: DIMS, params: { storage: 's', connectivity: 16 } };

function graph(): HnswIndex {
  const lib = loadUsearch();
  if ('error' in lib) throw new Error(lib.error);
  return newHnswIndex(lib.module, { dimensions: DIMS, connectivity: 16, expansionAdd: 64, expansionSearch: 64 });
}

function filled(rows: number): { g: HnswIndex; rowids: Float64Array; hashes: Uint32Array; placeholders: number } {
  const g = graph();
  const vectors = Float32Array.from({ length: rows * DIMS }, (_, i) => Math.sin(i + 1));
  const rowids = Float64Array.from({ length: rows }, (_, i) => 10 + 3 * i);
  g.add(BigUint64Array.from(rowids, (r) => BigInt(r)), vectors, 1);
  const hashes = Uint32Array.from(rowids, (_, i) => vectorHash(vectors.subarray(i * DIMS, (i + 1) * DIMS)));
  return { g, rowids, hashes, placeholders: 0 };
}

test('saved graphs: a save loads back; each thing that does not match is refused with its reason', () => {
  const tmp = tempDir('mnemos-graphs-');
  try {
    const s = new GraphSnapshots(join(tmp.dir, 'g'));
    assert.deepEqual(s.load(id, graph), { reason: 'no saved graph' });
    const { g, rowids, hashes } = filled(50);
    s.save(id, g, { rowids, hashes, placeholders: 0 });
    const back = s.load(id, graph);
    assert.ok('graph' in back, JSON.stringify(back));
    assert.deepEqual([back.graph.size(), [...back.rows.rowids], [...back.rows.hashes], back.rows.placeholders], [50, [...rowids], [...hashes], 0]);

    const cases: { other: GraphIdentity; reason: string }[] = [
      { other: { ...id, dims: 16 }, reason: 'the saved graph was made with 8 dimensions, not 16' },
      { other: { ...id, params: { ...id.params, connectivity: 32 } }, reason: 'the saved graph was made with connectivity 16, not 32' },
      { other: { ...id, params: { ...id.params, storage: 'usearch 9' } }, reason: 'the saved graph was made with storage s, not usearch 9' },
    ];
    for (const c of cases) assert.deepEqual(s.load(c.other, graph), { reason: c.reason });
    // Another model or namespace has its own files: nothing saved for it.
    assert.deepEqual(s.load({ ...id, model: 'other' }, graph), { reason: 'no saved graph' });
    assert.ok('graph' in s.load(id, graph), 'a refusal for other parameters deletes nothing');

    // A description pointing elsewhere is refused before any file is opened.
    const meta = readdirSync(s.dir).find((f) => f.endsWith('.json'))!;
    const original = readFileSync(join(s.dir, meta), 'utf8');
    writeFileSync(join(s.dir, meta), original.replace(/"generation":"[^"]+"/, '"generation":"../../etc/x"'));
    assert.match((s.load(id, graph) as { reason: string }).reason, /its generation is not one this code writes/);
    writeFileSync(join(s.dir, meta), original);

    // A damaged row list: refused, and every file of the graph deleted.
    const rowsFile = readdirSync(s.dir).find((f) => f.endsWith('.rows'))!;
    const bytes = readFileSync(join(s.dir, rowsFile));
    bytes[3] ^= 1;
    writeFileSync(join(s.dir, rowsFile), bytes);
    assert.deepEqual(s.load(id, graph), { reason: "the saved graph's row list is damaged (its checksum differs)" });
    assert.deepEqual(readdirSync(s.dir), []);
  } finally {
    tmp.cleanup();
  }
});

test('saved graphs: a new save replaces the old generation; discard and drop delete what they name', () => {
  const tmp = tempDir('mnemos-graphs-');
  try {
    const s = new GraphSnapshots(tmp.dir);
    const a = filled(20);
    s.save(id, a.g, a);
    const b = filled(30);
    s.save(id, b.g, b);
    const files = readdirSync(tmp.dir);
    assert.equal(files.length, 3, files.join(', '));
    assert.equal((s.load(id, graph) as { graph: HnswIndex }).graph.size(), 30);

    const other = { ...id, model: 'm2' };
    s.save(other, a.g, a);
    const elsewhere = { ...id, namespace: 'ns2' };
    s.save(elsewhere, a.g, a);
    s.discard('ns', 'm2');
    assert.deepEqual([s.has(id), s.has(other), s.has(elsewhere)], [false, true, true], 'a replaced model goes, the kept one and other namespaces stay');
    s.discard('ns');
    assert.deepEqual([s.has(other), s.has(elsewhere)], [false, true]);
    s.drop(elsewhere);
    assert.deepEqual(readdirSync(tmp.dir), []);
  } finally {
    tmp.cleanup();
  }
});

test('saved graphs: files of a save that never finished (a process killed mid-write) change nothing, and go once an hour old', () => {
  const tmp = tempDir('mnemos-graphs-');
  try {
    const s = new GraphSnapshots(tmp.dir);
    const a = filled(20);
    s.save(id, a.g, a);
    const key = readdirSync(tmp.dir).find((f) => f.endsWith('.json'))!.slice(0, -'.json'.length);
    // What a save killed before its rename leaves: a graph, a row list and a description under a new generation.
    const stray = [`${key}.zz1-00000000.graph`, `${key}.zz1-00000000.rows`, `${key}.zz1-00000000.tmp`, `${key}.zz2-00000000.graph`];
    for (const f of stray) writeFileSync(join(tmp.dir, f), 'half written');
    assert.equal((s.load(id, graph) as { graph: HnswIndex }).graph.size(), 20, 'the last finished save still loads');
    // An hour old: the next save sweeps it; a younger one may be another process's save in progress and stays.
    const hourAgo = new Date(Date.now() - 61 * 60_000);
    for (const f of stray.slice(0, 3)) utimesSync(join(tmp.dir, f), hourAgo, hourAgo);
    const b = filled(25);
    s.save(id, b.g, b);
    const left = readdirSync(tmp.dir);
    assert.ok(!stray.slice(0, 3).some((f) => left.includes(f)), left.join(', '));
    assert.ok(left.includes(stray[3]!));
    assert.equal(left.length, 4);
    assert.equal((s.load(id, graph) as { graph: HnswIndex }).graph.size(), 25);
  } finally {
    tmp.cleanup();
  }
});

test('vector hash: equal vectors hash alike; a change in any one component changes it', () => {
  const v = Float32Array.from({ length: 192 }, (_, i) => Math.cos(i));
  const h = vectorHash(v);
  assert.equal(vectorHash(Float32Array.from(v)), h);
  for (let i = 0; i < v.length; i++) {
    for (const change of [(x: number) => -x, (x: number) => x + 1e-7, (x: number) => x * 2]) {
      const w = Float32Array.from(v);
      w[i] = change(w[i]!);
      if (w[i] !== v[i]) assert.notEqual(vectorHash(w), h, `component ${i}`);
    }
  }
});
