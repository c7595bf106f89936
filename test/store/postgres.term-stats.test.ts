/**
 * PostgreSQL keeps BM25 statistics (term_df, fts_docs) beside the rows; the
 * bulk insert maintains them in the same statement as the rows, the other
 * writes in a separate one. Whatever path wrote them, they must equal a
 * recount from the stored tsvectors of the rows that are left.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient } from '../helpers/pg-env.ts';

async function stats(schema: string): Promise<{ kept: Record<string, number>; recount: Record<string, number>; docs: unknown; docsRecount: unknown }> {
  const c = await pgClient(schema);
  try {
    const kept = (await c.query<{ term: string; df: string }>('SELECT term, df FROM term_df ORDER BY term')).rows;
    const recount = (await c.query<{ term: string; df: string }>('SELECT t.lexeme AS term, count(*) AS df FROM memories, unnest(tsv) AS t GROUP BY t.lexeme ORDER BY 1')).rows;
    const docs = (await c.query('SELECT documents::int AS n, total_len::int AS len FROM fts_docs')).rows[0];
    const docsRecount = (await c.query('SELECT count(*)::int AS n, coalesce(sum(doc_len), 0)::int AS len FROM memories')).rows[0];
    const asMap = (rs: { term: string; df: string }[]) => Object.fromEntries(rs.map((r) => [r.term, Number(r.df)]));
    return { kept: asMap(kept), recount: asMap(recount), docs, docsRecount };
  } finally {
    await c.end();
  }
}

test('postgres: BM25 statistics equal a recount after bulk inserts, single writes, an edit and a forget', postgresOnly('term_df is PostgreSQL\u2019s'), async () => {
  const { schema, url } = freshSchema('termstats');
  const m = await openMemory({ db: url });
  try {
    // A bulk batch (the one-statement path) with a term repeated within and across memories.
    const bulk = await m.rememberMany([
      { text: 'the otter swims and the otter dives' },
      { text: 'an otter sleeps on kelp' },
      { text: 'kelp forests grow fast' },
    ]);
    let s = await stats(schema);
    assert.deepEqual(s.kept, s.recount);
    assert.ok(s.kept['otter'] === 2 && s.kept['kelp'] === 2, JSON.stringify(s.kept));
    assert.deepEqual(s.docs, s.docsRecount);
    // Single writes and a keyed batch that takes the one-by-one path (a key already held).
    await m.remember({ text: 'a heron waits for the otter', key: 'k1' });
    await m.rememberMany([{ text: 'a heron waits for the otter', key: 'k1' }, { text: 'heron and kelp', key: 'k2' }]);
    await m.update(bulk[1]!.id, { text: 'an otter naps on seagrass' });
    const preview = await m.forget(bulk[2]!.id, 'test');
    await m.confirmForget(preview.token);
    s = await stats(schema);
    assert.deepEqual(s.kept, s.recount);
    assert.deepEqual(s.docs, s.docsRecount);
    assert.equal(s.kept['forest'] ?? s.kept['forests'], undefined, 'a forgotten memory\u2019s terms are gone');
    // Keyword search ranks with these statistics.
    const hits = await m.search({ query: 'otter', mode: 'keyword', limit: 10 });
    assert.ok(hits.hits.length >= 2 && hits.hits.every((h) => h.memory.text.includes("otter")), JSON.stringify(hits.hits.map((h) => h.memory.text)));
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});

test('postgres: a batch larger than one bulk statement (4,500 memories) is written whole, with its chain, statistics and vectors', postgresOnly('the bulk statement is PostgreSQL\u2019s'), async () => {
  const { schema, url } = freshSchema('bulkchunks');
  const m = await openMemory({ db: url });
  try {
    const results = await m.rememberMany(Array.from({ length: 4500 }, (_, i) => ({ text: `bulk chunk memory ${i} about harbour tides and ${i % 7 === 0 ? 'herons' : 'otters'}` })));
    assert.equal(results.length, 4500);
    assert.ok(results.every((r) => r.status === 'created'));
    const s = await stats(schema);
    assert.deepEqual(s.kept, s.recount);
    assert.deepEqual(s.docs, s.docsRecount);
    assert.equal((s.docs as { n: number }).n, 4500);
    const c = await pgClient(schema);
    try {
      assert.equal(Number((await c.query('SELECT count(*) AS n FROM memory_vectors')).rows[0].n), 4500);
      assert.equal(Number((await c.query("SELECT count(*) AS n FROM audit_log WHERE action = 'create'")).rows[0].n), 4500);
      const head = (await c.query('SELECT seq FROM audit_head')).rows[0];
      assert.equal(Number(head.seq), Number((await c.query('SELECT max(seq) AS s FROM audit_log')).rows[0].s));
    } finally {
      await c.end();
    }
    const audit = await m.verifyAudit();
    assert.equal(audit.ok, true, JSON.stringify(audit).slice(0, 500));
    assert.equal((await m.search({ query: 'herons', mode: 'keyword', limit: 5 })).hits.length, 5);
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});

test('postgres: bulk writes past the threshold leave planner statistics behind (a background ANALYZE that close waits for)', postgresOnly('ANALYZE is PostgreSQL\u2019s'), async () => {
  const { schema, url } = freshSchema('analyze');
  const lastAnalyze = async () => {
    const c = await pgClient(schema);
    try {
      const r = await c.query<{ relname: string; last_analyze: Date | null; reltuples: number }>(
        `SELECT s.relname, s.last_analyze, c.reltuples FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.schemaname = $1 AND s.relname IN ('memories', 'term_df') ORDER BY 1`,
        [schema],
      );
      return r.rows;
    } finally {
      await c.end();
    }
  };
  const m = await openMemory({ db: url });
  try {
    await m.rememberMany(Array.from({ length: 600 }, (_, i) => ({ text: `planner note ${i} on tides` })));
    assert.ok((await lastAnalyze()).every((r) => r.last_analyze === null), 'under the threshold: no ANALYZE yet');
    await m.rememberMany(Array.from({ length: 600 }, (_, i) => ({ text: `planner note ${600 + i} on herons` })));
  } finally {
    await m.close(); // waits for the ANALYZE the second batch started
  }
  try {
    // Statistics reach the views asynchronously; give them a moment.
    let rows = await lastAnalyze();
    for (let i = 0; i < 50 && rows.some((r) => r.last_analyze === null); i++) {
      await new Promise((r) => setTimeout(r, 100));
      rows = await lastAnalyze();
    }
    assert.deepEqual(rows.map((r) => r.relname), ['memories', 'term_df']);
    assert.ok(rows.every((r) => r.last_analyze !== null), JSON.stringify(rows));
    assert.equal(Number(rows.find((r) => r.relname === 'memories')!.reltuples), 1200);
  } finally {
    await dropSchema(schema);
  }
});
