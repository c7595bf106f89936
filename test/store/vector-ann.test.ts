/**
 * The approximate vector index (usearch HNSW behind VectorScan) on the
 * selected backend, against the exact scan of the same store: recall, scope
 * before ranking (a guest never sees owner memories, and the exact fallback
 * fires when scope filters most candidates), forget and replaced vectors
 * leaving the results, a second model with its own index, configuration,
 * and a process that neither loads usearch before it is needed nor waits for
 * an unfinished build to exit.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { isPostgresLocation, openStore } from '../../src/adapters/open-store.ts';
import { graphSnapshotsFor } from '../../src/adapters/graph-snapshots.ts';
import { checkVectorIndexConfig } from '../../src/adapters/vector-scan.ts';
import type { Memory } from '../../src/domain/memory.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { MemoryStore } from '../../src/ports/store.ts';
import type { VectorIndex, VectorIndexConfig } from '../../src/ports/vectors.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { vectorIndexConfigFromEnv } from '../../src/surfaces/cli/vector-index-env.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { selfState } from '../../src/services/self-state.ts';
import { named, testStores } from '../helpers/backend.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'ann', id: 'owner' };
const guest: Principal = { role: 'guest', namespace: 'ann', id: 'visitor' };
const DIMS = 48;

/** A seeded generator, so every run sees the same vectors. */
const random = mulberry32;

function unit(v: Float32Array): Float32Array {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** Unit vectors around a few dozen centres, like embeddings of topics (uniform noise is the hardest case for any graph index and unlike real text). */
function clustered(count: number, dims: number, seed: number): Float32Array[] {
  const r = random(seed);
  const centres = Array.from({ length: 40 }, () => Float32Array.from({ length: dims }, () => r() * 2 - 1));
  return Array.from({ length: count }, () => {
    const c = centres[Math.floor(r() * centres.length)]!;
    return unit(Float32Array.from(c, (x) => x + (r() * 2 - 1) * 0.6));
  });
}

async function open(location: string, vectorIndex: VectorIndexConfig): Promise<MemoryStore & { vectors: VectorIndex }> {
  // PostgreSQL's default graph directory is under the working directory (the project here): tests that do not name one save none.
  const s = await openStore(location, { analyze, vectorIndex: { ...(isPostgresLocation(location) ? { graphDir: null } : {}), ...vectorIndex } });
  assert.ok(s.vectors);
  return s as MemoryStore & { vectors: VectorIndex };
}

/** Inserts one memory per vector (in batches, as the engine writes), returning the memories in order. */
async function insertAll(s: MemoryStore, p: Principal, model: string, vectors: Float32Array[], visibility: (i: number) => 'owner' | 'shared' | 'public' = () => 'owner'): Promise<Memory[]> {
  const out: Memory[] = [];
  for (let i = 0; i < vectors.length; i += 500) {
    const batch = vectors.slice(i, i + 500).map((v, j) => ({ m: mem(p, { text: `vector memory ${i + j}`, key: `ann:${inserted++}`, visibility: visibility(i + j) }), v }));
    await s.apply(
      p,
      batch.map(({ m, v }) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model, vector: v } })),
    );
    out.push(...batch.map((b) => b.m));
  }
  return out;
}

const ids = (hits: { id: string }[]) => hits.map((h) => h.id);

/** A float as IEEE half precision (round to nearest, ties to even), as usearch stores the graph's vectors. */
function half(x: number): number {
  const u = new Uint32Array(Float32Array.of(x).buffer)[0]!;
  const sign = (u >>> 16) & 0x8000;
  const e = ((u >>> 23) & 0xff) - 112;
  let mant = u & 0x7fffff;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mant |= 0x800000;
    const shift = 14 - e;
    let h = mant >>> shift;
    const rest = mant & ((1 << shift) - 1);
    const mid = 1 << (shift - 1);
    if (rest > mid || (rest === mid && h & 1)) h++;
    return sign | h;
  }
  let h = (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && h & 1)) h++;
  return sign | h;
}

/** Whether a saved graph file holds this vector (its half-precision bytes, in order). */
function holds(file: string, v: Float32Array): boolean {
  const pattern = Buffer.alloc(2 * v.length);
  v.forEach((x, i) => pattern.writeUInt16LE(half(x), 2 * i));
  return readFileSync(file).includes(pattern);
}
let inserted = 0;

test(named('approximate index: recall@10 against the exact scan, above a threshold forced low'), async (t) => {
  const st = testStores('mnemos-ann-');
  const ann = await open(st.db, { mode: 'auto', threshold: 1000 });
  const exact = await open(st.db, { mode: 'exact', threshold: 0 });
  try {
    const M = 'ann-recall';
    const data = clustered(4000, DIMS, 7);
    await insertAll(ann, owner, M, data);
    const ready = await ann.vectors.prepare(owner, { model: M, dimensions: DIMS });
    assert.equal(ready.kind, 'approximate', ready.reason);
    assert.equal(ready.vectors, 4000);
    const queries = clustered(100, DIMS, 99);
    let found = 0;
    let approximate = 0;
    for (const q of queries) {
      const a = await ann.vectors.nearest(owner, { model: M, vector: q, filter: {}, limit: 10 });
      const e = await exact.vectors.nearest(owner, { model: M, vector: q, filter: {}, limit: 10 });
      assert.equal(e.index.kind, 'exact');
      if (a.index.kind === 'approximate') approximate++;
      const truth = new Set(ids(e.hits));
      found += ids(a.hits).filter((id) => truth.has(id)).length;
      // Candidates are scored exactly: a hit the two paths share has the same score.
      const exactScore = new Map(e.hits.map((h) => [h.id, h.score]));
      for (const h of a.hits) if (exactScore.has(h.id)) assert.equal(h.score, exactScore.get(h.id));
    }
    const recall = found / (queries.length * 10);
    t.diagnostic(`recall@10 of the approximate index over 4,000 clustered ${DIMS}-d vectors, 100 queries: ${recall.toFixed(3)}`);
    assert.equal(approximate, queries.length, 'every query went through the approximate index');
    assert.ok(recall >= 0.95, `recall@10 ${recall} < 0.95`);

    // Below the threshold the exact scan answers, and says why.
    const small = { ...owner, namespace: 'ann-small' };
    await insertAll(ann, small, M, data.slice(0, 50));
    const r = await ann.vectors.nearest(small, { model: M, vector: queries[0]!, filter: {}, limit: 5 });
    assert.equal(r.index.kind, 'exact');
    assert.match(r.index.reason, /50 vectors in the namespace, at most the threshold of 1000/);
    assert.deepEqual(ids(r.hits), ids((await exact.vectors.nearest(small, { model: M, vector: queries[0]!, filter: {}, limit: 5 })).hits));
  } finally {
    await ann.close();
    await exact.close();
    await st.cleanup();
  }
});

test(named('approximate index: scope comes before ranking; a guest never sees owner memories, and the exact fallback fires when scope filters most candidates'), async (t) => {
  const st = testStores('mnemos-ann-scope-');
  const ann = await open(st.db, { mode: 'approximate', threshold: 0 });
  const exact = await open(st.db, { mode: 'exact', threshold: 0 });
  try {
    const M = 'ann-scope';
    const r = random(3);
    const q = unit(Float32Array.from({ length: DIMS }, () => r() * 2 - 1));
    // 2,000 owner-only memories right around the query, 100 public ones farther out, and 1,000 unrelated public ones:
    // a global top-k taken before scope would hold only owner rows and leave the guest nothing.
    const near = Array.from({ length: 2000 }, () => unit(Float32Array.from(q, (x) => x + (r() * 2 - 1) * 0.05)));
    const farther = Array.from({ length: 100 }, () => unit(Float32Array.from(q, (x) => x + (r() * 2 - 1) * 0.4)));
    const ownerOnly = new Set(ids(await insertAll(ann, owner, M, near, () => 'owner')));
    const pub = await insertAll(ann, owner, M, [...farther, ...clustered(1000, DIMS, 5)], () => 'public');
    assert.equal(pub.length, 1100);
    assert.equal((await ann.vectors.prepare(owner, { model: M, dimensions: DIMS })).kind, 'approximate');

    const cases: { name: string; p: Principal; limit: number; fallback: boolean }[] = [
      { name: 'owner, whose candidates are all in scope', p: owner, limit: 10, fallback: false },
      { name: 'guest, whose candidates are almost all owner-only', p: guest, limit: 10, fallback: true },
      { name: 'guest asking for more', p: guest, limit: 50, fallback: true },
    ];
    for (const c of cases) {
      const a = await ann.vectors.nearest(c.p, { model: M, vector: q, filter: {}, limit: c.limit });
      const e = await exact.vectors.nearest(c.p, { model: M, vector: q, filter: {}, limit: c.limit });
      t.diagnostic(`${c.name}: ${a.index.kind}, ${a.index.candidates} candidates, ${a.index.admitted} admitted (checked best first)${a.index.fallback ? ', fell back to the exact scan' : ''}`);
      assert.equal(a.hits.length, c.limit, c.name);
      assert.equal(!!a.index.fallback, c.fallback, `${c.name}: ${a.index.reason}`);
      if (c.p.role === 'guest') {
        assert.ok(!a.hits.some((h) => ownerOnly.has(h.id)), `${c.name}: an owner-only memory reached a guest`);
        // The guest gets exactly what the exact scan of its own rows gives: the farther public memories.
        assert.deepEqual(ids(a.hits), ids(e.hits), c.name);
        assert.match(a.index.reason, /too few of the index's candidates were in scope/);
      }
    }
    // A guest who may read one memory in six: the first round's survivors fall short, and a second, wider
    // round (sized by the first round's survival rate) finds enough without falling back.
    const mixed = { ...owner, namespace: 'ann-mixed' };
    const mixedGuest = { ...guest, namespace: 'ann-mixed' };
    const spread = clustered(3000, DIMS, 21);
    const mixedMs = await insertAll(ann, mixed, M, spread, (i) => (i % 6 === 0 ? 'public' : 'owner'));
    const hidden = new Set(ids(mixedMs.filter((_, i) => i % 6 !== 0)));
    assert.equal((await ann.vectors.prepare(mixed, { model: M, dimensions: DIMS })).kind, 'approximate');
    let shared = 0;
    let widened = 0;
    const probes = clustered(20, DIMS, 22);
    for (const v of probes) {
      const a = await ann.vectors.nearest(mixedGuest, { model: M, vector: v, filter: {}, limit: 10 });
      const e = await exact.vectors.nearest(mixedGuest, { model: M, vector: v, filter: {}, limit: 10 });
      assert.equal(a.hits.length, 10);
      assert.ok(!a.hits.some((h) => hidden.has(h.id)), 'an owner-only memory reached a guest');
      if (a.index.kind === 'approximate' && a.index.candidates! > 40) widened++;
      const truth = new Set(ids(e.hits));
      shared += ids(a.hits).filter((id) => truth.has(id)).length;
    }
    t.diagnostic(`guest reading 1 memory in 6: ${widened} of ${probes.length} queries answered by a second, wider round; recall@10 ${(shared / 200).toFixed(3)}`);
    assert.ok(widened >= probes.length / 2, `${widened} widened rounds`);
    assert.ok(shared / 200 >= 0.9, `recall@10 ${shared / 200}`);

    // A filter is scope too: only the public memories' type, through the approximate path.
    const filtered = await ann.vectors.nearest(owner, { model: M, vector: q, filter: { types: ['preference'] }, limit: 5 });
    assert.deepEqual(filtered.hits, [], 'no memory has that type');
  } finally {
    await ann.close();
    await exact.close();
    await st.cleanup();
  }
});

test(named('approximate index: forget and replaced vectors leave the results at once; a second model has its own index'), async () => {
  const st = testStores('mnemos-ann-forget-');
  const ann = await open(st.db, { mode: 'approximate', threshold: 0 });
  const exact = await open(st.db, { mode: 'exact', threshold: 0 });
  try {
    const A = 'ann-model-a';
    const data = clustered(1500, DIMS, 11);
    const ms = await insertAll(ann, owner, A, data);
    assert.equal((await ann.vectors.prepare(owner, { model: A, dimensions: DIMS })).kind, 'approximate');
    const q = data[42]!;
    const before = await ann.vectors.nearest(owner, { model: A, vector: q, filter: {}, limit: 10 });
    assert.equal(before.index.kind, 'approximate');
    assert.equal(before.hits[0]!.id, ms[42]!.id, 'a stored vector is its own nearest neighbour');

    // Forget: gone from the next answer of the same process, whose graph follows the change log.
    await ann.apply(owner, [{ kind: 'forget', lineageId: ms[42]!.id, reason: 'asked' }]);
    const after = await ann.vectors.nearest(owner, { model: A, vector: q, filter: {}, limit: 10 });
    assert.equal(after.index.kind, 'approximate');
    assert.ok(!ids(after.hits).includes(ms[42]!.id), 'a forgotten memory is never returned');
    assert.deepEqual(ids(after.hits), ids((await exact.vectors.nearest(owner, { model: A, vector: q, filter: {}, limit: 10 })).hits));

    // A replaced vector answers where it now is, not where it was.
    const moved = ms[7]!;
    const target = data[900]!;
    assert.equal(await ann.vectors.put(owner, [{ id: moved.id, model: A, vector: target }]), 1);
    const there = await ann.vectors.nearest(owner, { model: A, vector: target, filter: {}, limit: 2 });
    assert.deepEqual(new Set(ids(there.hits)), new Set([moved.id, ms[900]!.id]));
    const old = await ann.vectors.nearest(owner, { model: A, vector: data[7]!, filter: {}, limit: 10 });
    assert.ok(!ids(old.hits).includes(moved.id) || old.hits.find((h) => h.id === moved.id)!.score < 0.999, 'its old position is gone');

    // Model switch: the same memories re-embedded by another model (other dimensions) get their own index.
    const B = 'ann-model-b';
    const other = clustered(ms.length, DIMS + 16, 12);
    const live = ms.filter((m) => m.id !== ms[42]!.id);
    assert.equal(await ann.vectors.put(owner, live.map((m) => ({ id: m.id, model: B, vector: other[ms.indexOf(m)]! }))), live.length);
    const b = await ann.vectors.prepare(owner, { model: B, dimensions: DIMS + 16 });
    assert.equal(b.kind, 'approximate');
    assert.equal(b.vectors, live.length);
    const qb = other[100]!;
    const nb = await ann.vectors.nearest(owner, { model: B, vector: qb, filter: {}, limit: 5 });
    assert.equal(nb.index.kind, 'approximate');
    assert.equal(nb.hits[0]!.id, ms[100]!.id);
    assert.deepEqual(ids(nb.hits), ids((await exact.vectors.nearest(owner, { model: B, vector: qb, filter: {}, limit: 5 })).hits));
    // The first model answers from what the store still keeps of it (PostgreSQL keeps a vector per memory and
    // model; SQLite one per memory, so there B replaced A): never a row re-embedded away, on either.
    for (const v of [data[3]!, data[900]!]) {
      const a = await ann.vectors.nearest(owner, { model: A, vector: v, filter: {}, limit: 5 });
      assert.deepEqual(ids(a.hits), ids((await exact.vectors.nearest(owner, { model: A, vector: v, filter: {}, limit: 5 })).hits));
    }
    assert.equal((await ann.vectors.prepare(owner, { model: A, dimensions: DIMS })).vectors, await exact.vectors.count(owner, A));
    await assert.rejects(ann.vectors.nearest(owner, { model: B, vector: q, filter: {}, limit: 1 }), { code: 'validation_failed' });
  } finally {
    await ann.close();
    await exact.close();
    await st.cleanup();
  }
});

test(named('approximate index: the store capability, its notes and search explain say which index answers'), async () => {
  const st = testStores('mnemos-ann-engine-');
  try {
    for (const [mode, capable] of [['auto', true], ['approximate', true], ['exact', false]] as const) {
      const s = await open(st.db, { mode, threshold: 10 });
      try {
        assert.equal(s.capabilities.approximateVectorIndex, capable, mode);
        assert.match(s.notes!()[0]!, mode === 'exact' ? /the approximate index is turned off/ : /approximate HNSW index \(usearch\)/);
      } finally {
        await s.close();
      }
    }
    // Through the engine: the built-in embedder, a threshold of 500 vectors, 1,200 memories.
    const engineDb = st.store('engine.db');
    const m = await openMemory({ db: engineDb, config: { vectorIndex: { mode: 'auto', threshold: 500, graphDir: join(st.dir, 'engine-graphs') } } });
    try {
      const words = ['harbour', 'lantern', 'orchard', 'violin', 'glacier', 'saffron', 'compass', 'meadow', 'quartz', 'falcon', 'ember', 'tide'];
      const r = random(5);
      const pick = () => words[Math.floor(r() * words.length)]!;
      await m.rememberMany(Array.from({ length: 1200 }, (_, i) => ({ text: `note ${i}: the ${pick()} near the ${pick()} and the ${pick()}` })));
      const ready = await m.prepareVectorIndex();
      assert.equal(ready?.kind, 'approximate', ready?.reason);
      // Vectors alone: the model is untrained, and an untrained model joins a hybrid search only when no keyword matches.
      const found = await m.search({ query: 'violin by the glacier', limit: 5, mode: 'vector' });
      assert.equal(found.explain.vectorIndex?.kind, 'approximate', found.explain.vectorIndex?.reason);
      assert.equal(found.explain.vectorIndex?.vectors, 1200);
      assert.ok(found.hits.length > 0);
      const state = selfState(m.context);
      const part = state.parts.find((x) => x.part === 'vector_search')!;
      assert.match(part.why, /up to 500 vectors per namespace and model, an approximate HNSW index \(usearch\) above.*; a built index is saved and the next process loads it/);
      assert.match(part.setting ?? '', /MNEMOS_VECTOR_GRAPH_DIR/);
      assert.equal(found.explain.vectorIndex?.graph?.built, 1200);
    } finally {
      await m.close();
    }
    // The engine's next handle loads the graph the first one saved.
    const again = await openMemory({ db: engineDb, config: { vectorIndex: { mode: 'auto', threshold: 500, graphDir: join(st.dir, 'engine-graphs') } } });
    try {
      const ready = await again.prepareVectorIndex();
      assert.deepEqual(ready?.graph, { fromSaved: 1200, built: 0 });
    } finally {
      await again.close();
    }
  } finally {
    await st.cleanup();
  }
});

test(named('approximate index: in auto mode an index built above the threshold is kept until the namespace shrinks below half of it'), async () => {
  const st = testStores('mnemos-ann-shrink-');
  const s = await open(st.db, { mode: 'auto', threshold: 400 });
  try {
    const M = 'ann-shrink';
    const data = clustered(600, DIMS, 31);
    const ms = await insertAll(s, owner, M, data);
    const forget = (from: number, to: number) => s.apply(owner, ms.slice(from, to).map((m) => ({ kind: 'forget' as const, lineageId: m.id, reason: 'shrink' })));
    const cases: { forget: [number, number] | null; vectors: number; kind: 'exact' | 'approximate'; reason: RegExp }[] = [
      { forget: null, vectors: 600, kind: 'approximate', reason: /600 vectors in the namespace, above the threshold of 400/ },
      { forget: [0, 250], vectors: 350, kind: 'approximate', reason: /more than half of it, so the index built above it is kept/ },
      { forget: [250, 450], vectors: 150, kind: 'exact', reason: /150 vectors in the namespace, at most the threshold of 400/ },
    ];
    const forgotten = new Set<string>();
    for (const c of cases) {
      if (c.forget) {
        await forget(...c.forget);
        for (const m of ms.slice(...c.forget)) forgotten.add(m.id);
      }
      const use = await s.vectors.prepare(owner, { model: M, dimensions: DIMS });
      assert.deepEqual([use.vectors, use.kind], [c.vectors, c.kind], use.reason);
      assert.match(use.reason, c.reason);
      const r = await s.vectors.nearest(owner, { model: M, vector: data[500]!, filter: {}, limit: 3 });
      assert.equal(r.hits[0]!.id, ms[500]!.id);
      assert.ok(!r.hits.some((h) => forgotten.has(h.id)), 'forgotten memories never come back');
    }
  } finally {
    await s.close();
    await st.cleanup();
  }
});

test(named('approximate index: the build goes on while the process waits on nothing but a distant timer'), async () => {
  // An idle server's event loop sleeps in its poll phase until the next timer or socket event. The build's
  // slices must still run back to back then: scheduled as unreferenced immediates they ran once per wake-up,
  // and 100,000 vectors took minutes instead of seconds to enter the graph.
  const st = testStores('mnemos-ann-idle-');
  const s = await open(st.db, { mode: 'approximate', threshold: 0 });
  try {
    const M = 'ann-idle';
    const data = clustered(30_000, DIMS, 47);
    const ms = await insertAll(s, owner, M, data);
    // A warm-up that does not wait (a server's search thread) loads the copy and starts the build, and returns at once.
    const started = await s.vectors.prepare(owner, { model: M, dimensions: DIMS, wait: false });
    assert.equal(started.kind, 'exact');
    assert.match(started.reason, /the approximate index is building \(\d+ of 30000 rows still to insert/);
    const first = await s.vectors.nearest(owner, { model: M, vector: data[7]!, filter: {}, limit: 3 });
    assert.equal(first.index.kind, 'exact', 'the exact scan answers while the graph builds');
    let kind: string = first.index.kind;
    // Up to 40 wake-ups: the build takes about 4 s of CPU here, and a test run sharing two cores with three
    // others stretched it past 12 s; with slices only once per wake-up it took over two minutes.
    for (let wakeUps = 0; wakeUps < 40 && kind !== 'approximate'; wakeUps++) {
      await new Promise((r) => setTimeout(r, 1000));
      kind = (await s.vectors.nearest(owner, { model: M, vector: data[7]!, filter: {}, limit: 3 })).index.kind;
    }
    assert.equal(kind, 'approximate', 'the graph took in the rows while the process slept');
    const r = await s.vectors.nearest(owner, { model: M, vector: data[7]!, filter: {}, limit: 3 });
    assert.equal(r.hits[0]!.id, ms[7]!.id);
  } finally {
    await s.close();
    await st.cleanup();
  }
});

test(named('approximate index: a built graph is saved, and the next process loads it and inserts only the rows written since'), async (t) => {
  const st = testStores('mnemos-ann-saved-');
  const graphDir = join(st.dir, 'graphs');
  const cfg: VectorIndexConfig = { mode: 'auto', threshold: 1000, graphDir };
  // An exact-mode handle builds no graph; it writes and forgets as a CLI command would, sharing the directory.
  const writer = await open(st.db, { mode: 'exact', threshold: 0, graphDir });
  const M = 'ann-saved';
  const prepare = async (s: MemoryStore & { vectors: VectorIndex }) => {
    const use = await s.vectors.prepare(owner, { model: M, dimensions: DIMS });
    assert.equal(use.kind, 'approximate', use.reason);
    return use.graph;
  };
  const graphFiles = () => (existsSync(graphDir) ? readdirSync(graphDir).filter((f) => f.endsWith('.graph')) : []);
  /** Recall@10 against the exact scan, over queries near stored vectors; and a row's own vector finds it first. */
  const check = async (s: MemoryStore & { vectors: VectorIndex }, own: { m: Memory; v: Float32Array }) => {
    let found = 0;
    const queries = clustered(30, DIMS, 5);
    for (const q of queries) {
      const a = await s.vectors.nearest(owner, { model: M, vector: q, filter: {}, limit: 10 });
      assert.equal(a.index.kind, 'approximate');
      const truth = new Set(ids((await writer.vectors.nearest(owner, { model: M, vector: q, filter: {}, limit: 10 })).hits));
      found += ids(a.hits).filter((id) => truth.has(id)).length;
    }
    assert.ok(found / 300 >= 0.95, `recall@10 ${found / 300}`);
    assert.equal((await s.vectors.nearest(owner, { model: M, vector: own.v, filter: {}, limit: 1 })).hits[0]!.id, own.m.id);
    // Scope still comes first: every memory here is the owner's own.
    assert.deepEqual((await s.vectors.nearest(guest, { model: M, vector: own.v, filter: {}, limit: 5 })).hits, []);
  };
  try {
    const data = clustered(3000, DIMS, 21);
    const ms = await insertAll(writer, owner, M, data);
    const first = await open(st.db, cfg);
    assert.deepEqual(await prepare(first), { fromSaved: 0, built: 3000, note: 'no saved graph' });
    assert.equal(graphFiles().length, 1, 'the finished build was saved');
    await check(first, { m: ms[10]!, v: data[10]! });
    await first.close();

    // Rows written while no process held the graph enter it at the next load; only they are inserted.
    const moreData = clustered(200, DIMS, 22);
    const more = await insertAll(writer, owner, M, moreData);
    const second = await open(st.db, cfg);
    assert.deepEqual(await prepare(second), { fromSaved: 3000, built: 200 });
    await check(second, { m: more[5]!, v: moreData[5]! });
    await second.close(); // saves what it added

    const third = await open(st.db, cfg);
    assert.deepEqual(await prepare(third), { fromSaved: 3200, built: 0 });
    await check(third, { m: more[6]!, v: moreData[6]! });

    // A forget deletes the namespace's saved graphs at once: usearch's files keep a removed row's vector.
    const kept = join(st.dir, 'kept');
    mkdirSync(kept);
    for (const f of readdirSync(graphDir)) copyFileSync(join(graphDir, f), join(kept, f));
    assert.ok(holds(join(kept, graphFiles()[0]!), data[10]!), 'a saved graph holds its rows\' vectors (so the checks below can see one)');
    await writer.apply(owner, [{ kind: 'forget', lineageId: ms[10]!.id, reason: 'asked' }]);
    assert.deepEqual(readdirSync(graphDir), [], 'no saved graph outlives the forget');
    // The process holding the graph follows the change log, and saves it again with the removed node overwritten.
    const r = await third.vectors.nearest(owner, { model: M, vector: data[10]!, filter: {}, limit: 10 });
    assert.ok(!ids(r.hits).includes(ms[10]!.id));
    await third.close();
    assert.equal(graphFiles().length, 1, 'saved again, scrubbed');
    assert.ok(!holds(join(graphDir, graphFiles()[0]!), data[10]!), 'the forgotten vector is not in the saved file');
    const fourth = await open(st.db, cfg);
    assert.deepEqual(await prepare(fourth), { fromSaved: 3199, built: 0 });
    await check(fourth, { m: ms[11]!, v: data[11]! });
    await fourth.close();

    // Files that escaped the forget (a process killed between its commit and the deletion): the loader
    // finds the row gone, deletes the files, and the row never comes back; it saves a scrubbed graph.
    for (const f of readdirSync(graphDir)) rmSync(join(graphDir, f));
    for (const f of readdirSync(kept)) copyFileSync(join(kept, f), join(graphDir, f));
    const fifth = await open(st.db, cfg);
    const stale = await prepare(fifth);
    assert.deepEqual([stale?.fromSaved, stale?.built], [3199, 0]);
    assert.match(stale?.note ?? '', /rows of the saved graph gone or changed since it was saved: 1; its files were deleted/);
    assert.deepEqual(readdirSync(graphDir), []);
    assert.ok(!ids((await fifth.vectors.nearest(owner, { model: M, vector: data[10]!, filter: {}, limit: 10 })).hits).includes(ms[10]!.id));
    await fifth.close();
    assert.equal(graphFiles().length, 1);
    assert.ok(!holds(join(graphDir, graphFiles()[0]!), data[10]!));

    // Rows written since a scrubbed save: the placeholder it holds is counted, only the new rows are inserted.
    await insertAll(writer, owner, M, clustered(5, DIMS, 23));
    const sixth = await open(st.db, cfg);
    assert.deepEqual(await prepare(sixth), { fromSaved: 3199, built: 5 });
    await sixth.close();

    // A damaged graph file never reaches the native loader: it is deleted and the graph built again.
    const file = join(graphDir, graphFiles()[0]!);
    const bytes = readFileSync(file);
    bytes[bytes.length >> 1] ^= 0xff;
    writeFileSync(file, bytes);
    const seventh = await open(st.db, cfg);
    assert.deepEqual(await prepare(seventh), { fromSaved: 0, built: 3204, note: 'the saved graph file is damaged (its checksum differs)' });
    await check(seventh, { m: more[7]!, v: moreData[7]! });
    await seventh.close();
    t.diagnostic(`saved graph files: ${readdirSync(graphDir).join(', ')}`);
    assert.equal(graphFiles().length, 1, 'saved again after the rebuild, the damaged generation gone');

    // A vector replaced while no process held the graph: found by its hash, it leaves the graph and enters again where it now is.
    assert.equal(await writer.vectors.put(owner, [{ id: ms[20]!.id, model: M, vector: data[900]! }]), 1);
    const eighth = await open(st.db, cfg);
    const replaced = await prepare(eighth);
    assert.deepEqual([replaced?.fromSaved, replaced?.built], [3203, 1]);
    assert.match(replaced?.note ?? '', /rows of the saved graph gone or changed since it was saved: 1;/);
    const there = await eighth.vectors.nearest(owner, { model: M, vector: data[900]!, filter: {}, limit: 2 });
    assert.deepEqual(new Set(ids(there.hits)), new Set([ms[20]!.id, ms[900]!.id]));
    await eighth.close();
    assert.ok(!holds(join(graphDir, graphFiles()[0]!), data[20]!), 'the replaced vector is not in the saved file either');

    // A forget by a process that cannot see this directory (another machine, another setting): the process
    // holding a saved graph deletes its files once it follows the removal, and saves a scrubbed one.
    const ninth = await open(st.db, cfg);
    assert.deepEqual(await prepare(ninth), { fromSaved: 3204, built: 0 });
    const elsewhere = await open(st.db, { mode: 'exact', threshold: 0, graphDir: null });
    await elsewhere.apply(owner, [{ kind: 'forget', lineageId: ms[30]!.id, reason: 'asked elsewhere' }]);
    await elsewhere.close();
    assert.equal(graphFiles().length, 1, 'the forgetting process saw no saved graph');
    assert.ok(!ids((await ninth.vectors.nearest(owner, { model: M, vector: data[30]!, filter: {}, limit: 10 })).hits).includes(ms[30]!.id));
    assert.deepEqual(readdirSync(graphDir), [], 'deleted by the process that held it');
    await ninth.close();
    assert.equal(graphFiles().length, 1);
    assert.ok(!holds(join(graphDir, graphFiles()[0]!), data[30]!));
  } finally {
    await writer.close();
    await st.cleanup();
  }
});

test(named('approximate index: a process closing after another forgot a row saves no graph holding it, even before it searched again'), async () => {
  const st = testStores('mnemos-ann-close-');
  const graphDir = join(st.dir, 'graphs');
  const cfg: VectorIndexConfig = { mode: 'auto', threshold: 400, graphDir };
  const M = 'ann-close';
  const graphFiles = () => (existsSync(graphDir) ? readdirSync(graphDir).filter((f) => f.endsWith('.graph')) : []);
  // The CLI beside a running server: one handle shares the directory, one cannot see it (another machine, another setting).
  const writer = await open(st.db, { mode: 'exact', threshold: 0, graphDir });
  const elsewhere = await open(st.db, { mode: 'exact', threshold: 0, graphDir: null });
  try {
    const data = clustered(600, DIMS, 31);
    const ms = await insertAll(writer, owner, M, data);
    const holder = await open(st.db, cfg);
    assert.equal((await holder.vectors.prepare(owner, { model: M, dimensions: DIMS })).kind, 'approximate');
    assert.equal(graphFiles().length, 1, 'the finished build was saved');
    // Rows written since that save make the holder's graph due for a save at close.
    const moreData = clustered(5, DIMS, 32);
    await insertAll(writer, owner, M, moreData);
    await holder.vectors.nearest(owner, { model: M, vector: moreData[0]!, filter: {}, limit: 5 });
    await holder.vectors.prepare(owner, { model: M, dimensions: DIMS });
    // Another process forgets a row; the holder closes (a server stopping) without a search in between.
    await writer.apply(owner, [{ kind: 'forget', lineageId: ms[10]!.id, reason: 'asked' }]);
    assert.deepEqual(readdirSync(graphDir), [], 'the forget deleted the saved graph');
    await holder.close();
    for (const f of graphFiles()) assert.ok(!holds(join(graphDir, f), data[10]!), 'the forgotten vector is not written back at close');

    // With nothing unsaved, a forget the holder's directory never heard of: its saved copy must go or be scrubbed at close.
    const again = await open(st.db, cfg);
    await again.vectors.prepare(owner, { model: M, dimensions: DIMS });
    await again.vectors.nearest(owner, { model: M, vector: data[1]!, filter: {}, limit: 5 });
    assert.equal(graphFiles().length, 1);
    assert.ok(holds(join(graphDir, graphFiles()[0]!), data[20]!), 'a saved graph holds its rows\' vectors (so the check below can see one)');
    await elsewhere.apply(owner, [{ kind: 'forget', lineageId: ms[20]!.id, reason: 'asked elsewhere' }]);
    assert.equal(graphFiles().length, 1, 'the forgetting process saw no saved graph');
    await again.close();
    for (const f of graphFiles()) assert.ok(!holds(join(graphDir, f), data[20]!), 'the holder followed the removal before closing');
  } finally {
    await writer.close();
    await elsewhere.close();
    await st.cleanup();
  }
});

test('saved graphs: where they live by default, and how to turn them off', () => {
  assert.equal(graphSnapshotsFor(undefined, { file: '/data/memory.db' })?.dir, '/data/memory.db-graphs');
  assert.equal(graphSnapshotsFor(undefined, { file: ':memory:' }), null);
  assert.equal(graphSnapshotsFor(null, { file: '/data/memory.db' }), null);
  assert.equal(graphSnapshotsFor('/var/cache/mnemos', { file: '/data/memory.db' })?.dir, '/var/cache/mnemos');
  const a = graphSnapshotsFor(undefined, { server: 'postgres://u@db:5432/one' })!.dir;
  const b = graphSnapshotsFor(undefined, { server: 'postgres://u@db:5432/two' })!.dir;
  assert.match(a, /\.mnemos\/graphs-[0-9a-f]{16}$/);
  assert.notEqual(a, b, 'two databases never share a directory');
});

test('vector index configuration: environment and checks', () => {
  const cases: { env: Record<string, string>; want?: VectorIndexConfig; error?: RegExp }[] = [
    { env: {}, want: { mode: 'auto', threshold: 200_000 } },
    { env: { MNEMOS_VECTOR_INDEX: 'exact' }, want: { mode: 'exact', threshold: 200_000 } },
    { env: { MNEMOS_VECTOR_INDEX: 'Approximate', MNEMOS_VECTOR_INDEX_THRESHOLD: '0' }, want: { mode: 'approximate', threshold: 0 } },
    { env: { MNEMOS_VECTOR_INDEX_THRESHOLD: '50_000' }, want: { mode: 'auto', threshold: 50_000 } },
    { env: { MNEMOS_VECTOR_GRAPH_DIR: '/srv/graphs' }, want: { mode: 'auto', threshold: 200_000, graphDir: '/srv/graphs' } },
    { env: { MNEMOS_VECTOR_GRAPH_DIR: 'off' }, want: { mode: 'auto', threshold: 200_000, graphDir: null } },
    { env: { MNEMOS_VECTOR_INDEX: 'hnsw' }, error: /MNEMOS_VECTOR_INDEX must be auto, exact or approximate/ },
    { env: { MNEMOS_VECTOR_INDEX_THRESHOLD: 'lots' }, error: /MNEMOS_VECTOR_INDEX_THRESHOLD must be a whole number/ },
    { env: { MNEMOS_VECTOR_INDEX_THRESHOLD: '-1' }, error: /MNEMOS_VECTOR_INDEX_THRESHOLD must be a whole number/ },
  ];
  for (const c of cases) {
    if (c.error) assert.throws(() => vectorIndexConfigFromEnv(c.env), { code: 'validation_failed', message: c.error });
    else assert.deepEqual(vectorIndexConfigFromEnv(c.env), c.want);
  }
  assert.throws(() => checkVectorIndexConfig({ mode: 'fast' as never, threshold: 1 }), { code: 'validation_failed' });
  assert.throws(() => checkVectorIndexConfig({ mode: 'auto', threshold: 1.5 }), { code: 'validation_failed' });
  // usearch is installed here (an optional dependency with prebuilt binaries), so forcing the index is accepted.
  checkVectorIndexConfig({ mode: 'approximate', threshold: 0 });
});

test(named('approximate index: usearch is not loaded until an index is needed, and an unfinished build neither blocks close nor keeps the process alive'), async () => {
  const st = testStores('mnemos-ann-exit-');
  try {
    // The child searches twice (the first reads the stored vectors once, the second loads them and starts a
    // build of 20,000 vectors that takes seconds), then closes the
    // store on PostgreSQL (its pool would keep any process alive) and on SQLite just returns: neither may
    // wait for the build. It reports how long it lived after its last statement.
    const script = `
      import { createRequire } from 'node:module';
      import { openStore } from './src/adapters/open-store.ts';
      import { analyze } from './src/retrieval/text/analyze.ts';
      import { mem } from './test/store/contract.ts';
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((k) => k.includes('/usearch/'));
      const p = { role: 'owner', namespace: 'exit', id: 'owner' };
      const s = await openStore(process.env.LOC, { analyze, vectorIndex: { mode: 'approximate', threshold: 0 } });
      const out = { afterOpen: loaded() };
      const ops = [];
      for (let i = 0; i < 20000; i++) {
        const v = Float32Array.from({ length: 256 }, (_, j) => Math.sin(i * 0.37 + j * 1.3 + (i % 97) * j));
        ops.push({ kind: 'insert', memory: mem(p, { text: 'exit ' + i, key: 'exit:' + i }), onExistingSource: 'conflict', vector: { model: 'exit', vector: v } });
      }
      for (let i = 0; i < ops.length; i += 2000) await s.apply(p, ops.slice(i, i + 2000));
      const first = await s.vectors.nearest(p, { model: 'exit', vector: ops[0].vector.vector, filter: {}, limit: 5 });
      out.afterFirst = loaded();
      out.firstReason = first.index.reason;
      const r = await s.vectors.nearest(p, { model: 'exit', vector: ops[0].vector.vector, filter: {}, limit: 5 });
      out.afterSearch = loaded();
      out.reason = r.index.reason;
      out.kind = r.index.kind;
      const t0 = performance.now();
      if (s.backend === 'postgres') await s.close();
      out.closeMs = performance.now() - t0;
      const last = performance.now();
      process.on('exit', () => console.log(JSON.stringify({ ...out, lingeredMs: performance.now() - last })));
    `;
    const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: new URL('../..', import.meta.url).pathname,
      env: { ...process.env, LOC: st.db },
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(child.status, 0, child.stderr);
    const out = JSON.parse(child.stdout.trim().split('\n').pop()!) as {
      afterOpen: boolean;
      afterFirst: boolean;
      firstReason: string;
      afterSearch: boolean;
      reason: string;
      kind: string;
      closeMs: number;
      lingeredMs: number;
    };
    assert.equal(out.afterOpen, false, 'opening a store, even with the index forced on, loads no native code');
    // A process that searches once (a CLI command) builds nothing it would throw away.
    assert.equal(out.afterFirst, false, 'the first search reads the vectors once and loads no native code');
    assert.match(out.firstReason, /first search of this model/);
    assert.equal(out.afterSearch, true);
    // The second search starts the build, and the exact scan answers until it is done.
    assert.equal(out.kind, 'exact');
    assert.match(out.reason, /the approximate index is building/);
    assert.ok(out.closeMs < 1000, `close took ${out.closeMs} ms`);
    assert.ok(out.lingeredMs < 500, `the process lived ${out.lingeredMs} ms after its last statement (the build kept it alive)`);
  } finally {
    await st.cleanup();
  }
});
