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
