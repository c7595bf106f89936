/**
 * PostgreSQL vectors beyond the shared contract: two store instances on one
 * schema (as two server processes would be) keep their in-process caches in
 * step through vector_log, and the engine's vector search works end to end
 * on a postgres:// URL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import pg from 'pg';
import { PgStore } from '../../src/adapters/postgres/index.ts';
import { PG_MIGRATIONS } from '../../src/adapters/postgres/migrations.ts';
import { MEMORY_COLUMNS, memoryToRow } from '../../src/adapters/sql/rows.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { mem } from './contract.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgTestUrl } from '../helpers/pg-env.ts';

const owner: Principal = { role: 'owner', namespace: 'two', id: 'owner' };
const M = 'two-stores-3d';

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
}

test('postgres vectors: a second store instance sees the first one\u2019s new, replaced and forgotten vectors', postgresOnly('needs a server'), async () => {
  const { schema, url } = freshSchema('vec2');
  const a = await PgStore.open({ url, analyze });
  const b = await PgStore.open({ url, analyze });
  try {
    const q = unit(1, 0, 0);
    const near = async (s: PgStore, limit = 10) => (await s.vectors.nearest(owner, { model: M, vector: q, filter: {}, limit })).hits.map((h) => h.id);
    // B builds its cache before anything exists, so everything after comes through the change log.
    assert.deepEqual(await near(b), []);
    const m1 = mem(owner, { text: 'first vector' });
    const m2 = mem(owner, { text: 'second vector' });
    await a.apply(owner, [
      { kind: 'insert', memory: m1, onExistingSource: 'conflict', vector: { model: M, vector: q } },
      { kind: 'insert', memory: m2, onExistingSource: 'conflict', vector: { model: M, vector: unit(1, 1, 0) } },
    ]);
    assert.deepEqual(await near(b), [m1.id, m2.id]);
    assert.equal(await a.vectors.put(owner, [{ id: m1.id, model: M, vector: unit(0, 0, 1) }]), 1);
    assert.deepEqual(await near(b), [m2.id, m1.id], 'the replaced vector, not the cached one, is scored');
    await a.apply(owner, [{ kind: 'forget', lineageId: m2.id, reason: 'asked' }]);
    assert.deepEqual(await near(b), [m1.id]);

    // Writers racing from both instances: B's cache, followed incrementally, ends equal to a fresh load.
    const batch = (s: PgStore, i: number) => {
      const m = mem(owner, { text: `raced vector ${i}` });
      return s.apply(owner, [{ kind: 'insert', memory: m, onExistingSource: 'conflict', vector: { model: M, vector: unit(1, i / 40, 0) } }]);
    };
    await Promise.all(Array.from({ length: 20 }, (_, i) => Promise.all([batch(i % 2 ? a : b, i), near(b, 100)])));
    const c = await PgStore.open({ url, analyze });
    try {
      const fresh = await near(c, 100);
      assert.equal(fresh.length, 21);
      assert.deepEqual(await near(b, 100), fresh);
      assert.deepEqual(await near(a, 100), fresh);
    } finally {
      await c.close();
    }
  } finally {
    await a.close();
    await b.close();
    await dropSchema(schema);
  }
});

test('postgres vectors: openMemory on a postgres:// URL embeds at write time and searches by vector, scoped', postgresOnly('needs a server'), async () => {
  const { schema, url } = freshSchema('vecengine');
  const m = await openMemory({ db: url, config: { vectorMinSimilarity: -1 } });
  try {
    const secret = await m.remember({ text: 'the lighthouse keeper logged a storm on the northern cliffs' });
    const shared = await m.remember({ text: 'the lighthouse keeper wrote about a storm over the cliffs', visibility: 'shared' });
    await m.remember({ text: 'a recipe for lemon cake with poppy seeds' });
    const r = await m.search({ query: 'lighthouse storm cliffs', mode: 'vector', limit: 2 });
    assert.equal(r.explain.skipped.vector, undefined);
    assert.ok(r.explain.vectorModel);
    assert.equal(await m.store.vectors!.count(m.principal, r.explain.vectorModel), 3, 'each remember stored its vector');
    assert.deepEqual(new Set(r.hits.map((h) => h.memory.id)), new Set([secret.id, shared.id]));
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'g' });
    const g = await guest.search({ query: 'lighthouse storm cliffs', mode: 'vector', limit: 5 });
    assert.deepEqual(g.hits.map((h) => h.memory.id), [shared.id]);
    // Training the built-in model re-embeds every memory with it, stored in PostgreSQL.
    const done = await m.embedBackfill({ retrain: true });
    assert.equal(done.trained, true);
    assert.equal(done.embedded, 3);
    assert.equal(await m.store.vectors!.modelId(m.principal, 'builtin'), done.model);
    const again = await m.search({ query: 'lighthouse storm cliffs', mode: 'vector', limit: 1 });
    assert.equal(again.explain.vectorModel, done.model);
    assert.ok([secret.id, shared.id].includes(again.hits[0]!.memory.id));
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});

test('postgres vectors: migration 7 numbers the memories already stored, which then get vectors like new ones', postgresOnly('needs a server'), async () => {
  const { schema, url } = freshSchema('vecmig');
  const old = mem(owner, { text: 'stored before vectors existed' });
  const raw = new pg.Client({ connectionString: pgTestUrl()! });
  await raw.connect();
  try {
    // A store as the previous release left it: migrations 1-6 and one memory row.
    await raw.query(`CREATE SCHEMA ${schema}; SET search_path = ${schema}`);
    await raw.query('CREATE TABLE mnemos_schema (version INTEGER NOT NULL, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
    for (const m of PG_MIGRATIONS.filter((x) => x.version <= 6)) {
      await raw.query(m.sql);
      await raw.query('INSERT INTO mnemos_schema (version, name) VALUES ($1, $2)', [m.version, m.name]);
    }
    await raw.query(`INSERT INTO memories (${MEMORY_COLUMNS.join(', ')}) VALUES (${MEMORY_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`, memoryToRow(old, 4));
  } finally {
    await raw.end();
  }
  const store = await PgStore.open({ url, analyze });
  try {
    assert.ok((await store.schemaVersion()) >= 7);
    assert.deepEqual(await store.vectors.missing(owner, M, 10), [{ id: old.id, text: old.text }]);
    assert.equal(await store.vectors.put(owner, [{ id: old.id, model: M, vector: unit(1, 0, 0) }]), 1);
    const fresh = mem(owner, { text: 'stored after' });
    await store.apply(owner, [{ kind: 'insert', memory: fresh, onExistingSource: 'conflict', vector: { model: M, vector: unit(0, 1, 0) } }]);
    assert.deepEqual((await store.vectors.nearest(owner, { model: M, vector: unit(1, 0.1, 0), filter: {}, limit: 5 })).hits.map((h) => h.id), [old.id, fresh.id]);
  } finally {
    await store.close();
    await dropSchema(schema);
  }
});
