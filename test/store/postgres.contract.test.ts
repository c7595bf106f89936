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
      async cleanup() {
        await raw.end();
        await store.close();
        await dropSchema(schema);
      },
    };
  });
}

test('postgres: pgvector availability is detected and reported in notes()', { skip: pgSkip('PostgreSQL notes test') }, async () => {
  const { schema, url } = freshSchema('notes');
  const store = await PgStore.open({ url, analyze });
  try {
    const notes = store.notes();
    assert.equal(notes.length, 1);
    assert.match(notes[0]!, store.pgvectorAvailable ? /HNSW/ : /exact scan/);
    assert.equal(store.capabilities.multiProcess, true);
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
