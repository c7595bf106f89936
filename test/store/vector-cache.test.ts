/**
 * The in-process vector cache over a real SQLite store: concurrent searches
 * share one refresh (a server's first burst of queries must not start one
 * full load of every vector per request), and later changes arrive through
 * the change log.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import type { SqliteVectorIndex } from '../../src/adapters/sqlite/vectors.ts';
import { VectorCache, type VectorRows } from '../../src/adapters/vector-cache.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import { tempDir } from '../helpers/temp.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'cache', id: 'owner' };

test('concurrent refreshes share one load; later writes arrive through the log', async () => {
  const tmp = tempDir('mnemos-vector-cache-');
  const store = SqliteStore.open({ path: join(tmp.dir, 'm.db'), analyze });
  try {
    const ms = Array.from({ length: 20 }, (_, i) => mem(owner, { text: `memory number ${i}`, key: `c:${i}` }));
    const unit = (i: number) => Float32Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0));
    await store.apply(owner, ms.map((m, i) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: 'm4', vector: unit(i) } })));
    const real = store.vectors as unknown as SqliteVectorIndex;
    let fullLoads = 0;
    let partialLoads = 0;
    const rows: VectorRows = {
      logHead: () => real.logHead(),
      logTail: () => real.logTail(),
      changedSince: (seq) => real.changedSince(seq),
      eachVector: (model, rowids, visit) => {
        if (rowids === null) fullLoads++;
        else partialLoads++;
        return real.eachVector(model, rowids, visit);
      },
    };
    const cache = new VectorCache('m4', 4, rows);
    await Promise.all(Array.from({ length: 10 }, () => cache.refresh()));
    assert.equal(fullLoads, 1, 'ten concurrent refreshes, one full load');
    assert.equal(cache.size, 20);
    const extra = mem(owner, { text: 'one more', key: 'c:extra' });
    await store.apply(owner, [{ kind: 'insert', memory: extra, onExistingSource: 'conflict', vector: { model: 'm4', vector: unit(1) } }]);
    await cache.refresh();
    assert.equal(fullLoads, 1, 'a change is read from the log, not by reloading everything');
    assert.equal(partialLoads, 1);
    assert.equal(cache.size, 21);
    assert.ok(cache.nearest(unit(1), null, 25).some((h) => h.id === extra.id));
  } finally {
    await store.close();
    tmp.cleanup();
  }
});

test('a prune that lands before the cache reads the changes makes it reload, not miss entries; a prune keeps the newest entry', async () => {
  const tmp = tempDir('mnemos-vector-cache-');
  const store = SqliteStore.open({ path: join(tmp.dir, 'm.db'), analyze });
  try {
    const unit = (i: number) => Float32Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0));
    const put = (ms: ReturnType<typeof mem>[]) =>
      store.apply(owner, ms.map((m, i) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: 'm4', vector: unit(i) } })));
    await put(Array.from({ length: 3 }, (_, i) => mem(owner, { text: `first ${i}` })));
    const real = store.vectors as unknown as SqliteVectorIndex;
    let pruneNext = false;
    let fullLoads = 0;
    const rows: VectorRows = {
      logHead: () => real.logHead(),
      logTail: () => real.logTail(),
      // The prune runs right before the cache reads the changes, as another process could.
      changedSince: async (seq) => {
        if (pruneNext) {
          pruneNext = false;
          await real.pruneLog(owner, 1);
        }
        return real.changedSince(seq);
      },
      eachVector: (model, rowids, visit) => {
        if (rowids === null) fullLoads++;
        return real.eachVector(model, rowids, visit);
      },
    };
    const cache = new VectorCache('m4', 4, rows);
    await cache.refresh();
    assert.equal(cache.size, 3);
    const later = Array.from({ length: 4 }, (_, i) => mem(owner, { text: `later ${i}` }));
    await put(later);
    pruneNext = true;
    await cache.refresh();
    assert.equal(fullLoads, 2, 'the entries the prune took were noticed: a full reload');
    assert.equal(cache.size, 7, 'all seven vectors are there, not only the one entry the prune left');
    // Even asked to keep none, a prune leaves the newest entry: "no entry after mine" must mean "nothing changed".
    await real.pruneLog(owner, 0);
    assert.equal((await real.changedSince(0)).length, 1);
    await put([mem(owner, { text: 'last one' })]);
    await real.pruneLog(owner, 0);
    await cache.refresh();
    assert.equal(cache.size, 8, 'a write followed by the harshest prune still reaches the copy');
  } finally {
    await store.close();
    tmp.cleanup();
  }
});

test('a small admitted set is scored row by row and ranks exactly like the full scan', async () => {
  const rand = mulberry32(3);
  const dims = 24;
  const all = Array.from({ length: 400 }, (_, i) => {
    const v = Float32Array.from({ length: dims }, () => rand() * 2 - 1);
    const n = Math.hypot(...v);
    return { rowid: i + 1, id: `m${String(i).padStart(4, '0')}`, namespace: i % 2 ? 'a' : 'b', vector: v.map((x) => x / n) };
  });
  const rows: VectorRows = {
    logHead: async () => 0,
    logTail: async () => 0,
    changedSince: async () => [],
    eachVector: async (_model, _rowids, visit) => all.forEach((row) => visit(row)),
  };
  const cache = new VectorCache('m', dims, rows);
  await cache.refresh();
  assert.equal(cache.countIn('a'), 200);
  const q = all[10]!.vector;
  const brute = (allowed: Set<number>, limit: number) =>
    all
      .filter((r) => allowed.has(r.rowid))
      .map((r) => ({ id: r.id, score: r.vector.reduce((s, x, j) => s + x * q[j]!, 0) }))
      .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((h) => h.id);
  // 20 rows of 400 takes the row-by-row path, 300 the full pass; both must give the brute-force order.
  for (const size of [20, 300]) {
    const allowed = new Set(all.filter((_, i) => i % Math.floor(400 / size) === 0).map((r) => r.rowid));
    assert.deepEqual(cache.nearest(q, allowed, 7).map((h) => h.id), brute(allowed, 7), `${allowed.size} admitted rows`);
  }
  // Rows without a vector in the cache (admitted memories of another model) are skipped.
  assert.deepEqual(cache.scoreRows(q, [11, 99_999], 5).map((h) => h.id), [all[10]!.id]);
});

test('a load that fails part way leaves nothing behind: the next refresh loads every row again', async () => {
  const all = Array.from({ length: 50 }, (_, i) => ({ rowid: i + 1, id: `m${i}`, namespace: 'a', vector: Float32Array.from({ length: 4 }, (_, j) => (j === i % 4 ? 1 : 0)) }));
  let failAfter = 20;
  let tail = 0;
  const rows: VectorRows = {
    logHead: async () => 10,
    logTail: async () => tail,
    changedSince: async (seq) => (seq < 10 ? [{ seq: 10, rowid: 1 }] : []),
    eachVector: async (_model, rowids, visit) => {
      for (const r of all) {
        if (rowids && !rowids.includes(r.rowid)) continue;
        if (failAfter-- === 0) throw new Error('connection lost');
        visit(r);
      }
    },
  };
  const cache = new VectorCache('m', 4, rows);
  await assert.rejects(cache.refresh(), /connection lost/);
  failAfter = Infinity;
  await cache.refresh();
  assert.equal(cache.size, 50);
  // A reload forced by a pruned log that fails half way, after the old rows went: the next refresh loads them all again.
  await cache.refresh();
  tail = 12;
  (rows as { logHead: () => Promise<number> }).logHead = async () => 20;
  rows.changedSince = async (seq) => (seq < 20 ? [{ seq: 20, rowid: 2 }] : []);
  failAfter = 10;
  await assert.rejects(cache.refresh(), /connection lost/);
  failAfter = Infinity;
  await cache.refresh();
  assert.equal(cache.size, 50, 'all rows back after the failed reload');
  assert.deepEqual(cache.nearest(all[7]!.vector, null, 50).length, 50);
});
