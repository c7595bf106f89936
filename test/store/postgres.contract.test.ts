import assert from 'node:assert/strict';
import pg from 'pg';
import { test } from 'node:test';
import { PgStore } from '../../src/adapters/postgres/index.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { runStoreContract } from './contract.ts';
import { dropSchema, freshSchema, pgSkip } from './pg-env.ts';

const skip = pgSkip('PostgreSQL store contract');
if (skip) {
  test('store contract: postgres', { skip }, () => {});
} else {
  runStoreContract('postgres', async () => {
    const { schema, url } = freshSchema('contract');
    const store = await PgStore.open({ url, analyze });
    const raw = new pg.Client({ connectionString: process.env.MNEMOS_TEST_PG_URL!, options: `-c search_path=${schema}` });
    await raw.connect();
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
      async cleanup() {
        await raw.end();
        await store.close();
        await dropSchema(schema);
      },
    };
  });
}

test('postgres: notes() names the vector path in use and whether pgvector is there', { skip: pgSkip('PostgreSQL notes test') }, async () => {
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
    assert.equal(store.capabilities.approximateVectorIndex, false);
  } finally {
    await store.close();
    await dropSchema(schema);
  }
});

test('postgres: an unreachable server is "unavailable" and the message hides the password', async () => {
  await assert.rejects(PgStore.open({ url: 'postgres://someone:hunter2@127.0.0.1:1/nowhere', analyze }), (err: unknown) => {
    const e = err as { code?: string; message: string };
    assert.equal(e.code, 'unavailable');
    assert.ok(!e.message.includes('hunter2'));
    assert.match(e.message, /127\.0\.0\.1:1/);
    return true;
  });
});
