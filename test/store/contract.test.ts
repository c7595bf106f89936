/**
 * The store contract on the backend this pass selects (test/helpers/backend.ts).
 * Only how to open a store and count its raw rows differs per backend.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { PgStore } from '../../src/adapters/postgres/index.ts';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { BACKEND, postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient } from '../helpers/pg-env.ts';
import { tempDir } from '../helpers/temp.ts';
import { runStoreContract, type StoreFactory } from './contract.ts';

const sqlite: StoreFactory = async () => {
  const tmp = tempDir('mnemos-contract-');
  const store = SqliteStore.open({ path: join(tmp.dir, 'memory.db'), analyze });
  const one = (sql: string, ...params: unknown[]) => (store.db.prepare(sql).get(...params) as { n: number }).n;
  return {
    store,
    async rawCounts(lineageId, uniqueTerm) {
      return {
        memories: one('SELECT count(*) AS n FROM memories WHERE lineage_id = ?', lineageId),
        fullText: one('SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?', `"${uniqueTerm}"`),
        pending: one('SELECT count(*) AS n FROM pending_changes WHERE subject_id = ?', lineageId),
      };
    },
    async rawVectorRows() {
      return one('SELECT count(*) AS n FROM memory_vectors');
    },
    async rawVectorLogRows() {
      return one('SELECT count(*) AS n FROM vector_log');
    },
    reopen: async () => SqliteStore.open({ path: join(tmp.dir, 'memory.db'), analyze }),
    async cleanup() {
      await store.close();
      tmp.cleanup();
    },
  };
};

const postgres: StoreFactory = async () => {
  const { schema, url } = freshSchema('contract');
  const store = await PgStore.open({ url, analyze });
  const raw = await pgClient(schema);
  const one = async (sql: string, ...params: unknown[]) => Number((await raw.query<{ n: string }>(sql, params)).rows[0]!.n);
  return {
    store,
    async rawCounts(lineageId, uniqueTerm) {
      return {
        memories: await one('SELECT count(*) AS n FROM memories WHERE lineage_id = $1', lineageId),
        fullText: await one("SELECT count(*) AS n FROM memories WHERE tsv @@ plainto_tsquery('simple', $1)", uniqueTerm),
        pending: await one('SELECT count(*) AS n FROM pending_changes WHERE subject_id = $1', lineageId),
      };
    },
    async rawVectorRows() {
      return one('SELECT count(*) AS n FROM memory_vectors');
    },
    async rawVectorLogRows() {
      return one('SELECT count(*) AS n FROM vector_log');
    },
    reopen: () => PgStore.open({ url, analyze }),
    async cleanup() {
      await raw.end();
      await store.close();
      await dropSchema(schema);
    },
  };
};

runStoreContract(BACKEND === 'sqlite' ? sqlite : postgres);

test('postgres: notes() names the vector path in use and whether pgvector is there', postgresOnly('needs a server'), async () => {
  const { schema, url } = freshSchema('notes');
  const store = await PgStore.open({ url, analyze });
  try {
    const notes = store.notes();
    assert.equal(notes.length, 1);
    // Whatever the extension's state, the note names the path in use: the exact in-process scan.
    assert.match(notes[0]!, /exact in-process scan over stored float32 arrays/);
    assert.match(notes[0]!, store.pgvectorAvailable ? /pgvector is available but not used/ : /pgvector is not installed/);
    assert.equal(store.capabilities.multiProcess, true);
    assert.equal(store.capabilities.vectors, true);
    // The default configuration may use the approximate index above its threshold (usearch is installed here).
    assert.equal(store.capabilities.approximateVectorIndex, true);
    assert.match(notes[0]!, /approximate HNSW index \(usearch\) per namespace and model/);
  } finally {
    await store.close();
    await dropSchema(schema);
  }
});

// Needs no server, so it runs in the SQLite pass too: a machine without PostgreSQL still checks the error.
test('postgres: an unreachable server is "unavailable" and the message hides the password', async () => {
  await assert.rejects(PgStore.open({ url: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', analyze }), (err: unknown) => {
    const e = err as { code?: string; message: string };
    assert.equal(e.code, 'unavailable');
    assert.ok(!e.message.includes('hunter2'));
    assert.match(e.message, /127\.0\.0\.1:1/);
    return true;
  });
});
