/**
 * Migration 8 gives SQLite one vector per memory and model. Stores written
 * before it (keyed by the memory alone) keep every vector they had.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { LATEST_SCHEMA_VERSION } from '../../src/adapters/sqlite/migrations.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { sqliteOnly } from '../helpers/backend.ts';
import { tempDir } from '../helpers/temp.ts';

test('a store from before migration 8 keeps its vectors and then holds a second model beside them', sqliteOnly('a SQLite file migrated in place'), async () => {
  const tmp = tempDir('mnemos-vec-mig-');
  const db = join(tmp.dir, 'old.db');
  try {
    const m = await openMemory({ db });
    await m.rememberMany(Array.from({ length: 5 }, (_, i) => ({ text: `lighthouse log entry ${i} about the lamp` })));
    const model = (await m.search({ query: 'lighthouse lamp', mode: 'vector' })).explain.vectorModel!;
    await m.close();

    // Put the store back in its version-7 shape, as an older Mnemos left it: the old vector table, no ledger version,
    // tombstones without the source digest (migration 12).
    const raw = new Database(db);
    const before = raw.prepare('SELECT memory_rowid, model, vector FROM memory_vectors ORDER BY memory_rowid').all();
    assert.equal(before.length, 5);
    raw.exec(`
      DROP TABLE memory_vectors;
      CREATE TABLE memory_vectors (memory_rowid INTEGER PRIMARY KEY REFERENCES memories(rowid) ON DELETE CASCADE, model TEXT NOT NULL, vector BLOB NOT NULL);
      CREATE INDEX memory_vectors_model ON memory_vectors(model);
      DROP TABLE ledger_version;
      DROP TRIGGER ledger_facts_versioned_insert;
      DROP TRIGGER ledger_facts_versioned_update;
      DROP TRIGGER ledger_facts_versioned_delete;
      DROP INDEX tombstones_namespace;
      DROP TABLE tombstone_sources;
    `);
    const put = raw.prepare('INSERT INTO memory_vectors (memory_rowid, model, vector) VALUES (?, ?, ?)');
    for (const r of before as { memory_rowid: number; model: string; vector: Buffer }[]) put.run(r.memory_rowid, r.model, r.vector);
    raw.pragma('user_version = 7');
    raw.close();

    const again = await openMemory({ db });
    try {
      assert.equal(await again.store.schemaVersion(), LATEST_SCHEMA_VERSION);
      const check = new Database(db, { readonly: true });
      assert.deepEqual(check.prepare('SELECT memory_rowid, model, vector FROM memory_vectors ORDER BY memory_rowid').all(), before, 'every vector kept, byte for byte');
      check.close();
      const v = again.store.vectors!;
      const first = (await again.list({ limit: 1 })).items[0]!;
      await v.put(again.principal, [{ id: first.id, model: 'another-model', vector: Float32Array.from([1, 0, 0, 0]) }]);
      assert.equal(await v.count(again.principal, model), 5);
      assert.equal(await v.count(again.principal, 'another-model'), 1);
      // The change log's triggers came back with the table: the search copy sees the new vector.
      assert.equal((await v.nearest(again.principal, { model: 'another-model', vector: Float32Array.from([1, 0, 0, 0]), filter: {}, limit: 5 })).hits.length, 1);
      await again.confirmForget((await again.forget(first.id)).token);
      assert.equal(await v.count(again.principal, 'another-model'), 0, 'forget removes every model of the memory');
    } finally {
      await again.close();
    }
  } finally {
    await tmp.cleanup();
  }
});
