import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { LATEST_SCHEMA_VERSION } from '../../src/adapters/sqlite/migrations.ts';
import { PG_LATEST_SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';
import { backBeforeReanalysis } from '../helpers/pre-reanalysis.ts';

/**
 * Chinese, Japanese and Thai put no spaces between words, so a whole clause
 * used to be one term and a keyword search for a word inside it found
 * nothing; Turkish İ lower-cased to "i" plus a combining dot, so `istanbul`
 * missed İSTANBUL. These run the keyword list alone: the vector list must
 * not be what finds them.
 */

const keywordHits = async (m: Awaited<ReturnType<typeof openMemory>>, query: string): Promise<string[]> =>
  (await m.search({ query, mode: 'keyword' })).hits.map((h) => h.memory.text);

test(named('a keyword search finds a word inside Chinese, Japanese and Thai text, and istanbul finds İSTANBUL'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    await m.rememberMany([
      { text: '東京タワーに行きました' },
      { text: '我的猫很可爱' },
      { text: 'ไปทำงานที่กรุงเทพ' },
      { text: 'Flight to İSTANBUL' },
      { text: '京都の寺を見た' },
    ]);
    assert.deepEqual(await keywordHits(m, '東京'), ['東京タワーに行きました']);
    assert.deepEqual(await keywordHits(m, 'タワー'), ['東京タワーに行きました']);
    assert.deepEqual(await keywordHits(m, '猫'), ['我的猫很可爱'], 'a one-character query');
    assert.deepEqual((await keywordHits(m, '京')).sort(), ['京都の寺を見た', '東京タワーに行きました'].sort());
    assert.deepEqual(await keywordHits(m, 'กรุงเทพ'), ['ไปทำงานที่กรุงเทพ']);
    assert.deepEqual(await keywordHits(m, 'ทำงาน'), ['ไปทำงานที่กรุงเทพ']);
    assert.deepEqual(await keywordHits(m, 'istanbul'), ['Flight to İSTANBUL']);
    assert.deepEqual(await keywordHits(m, 'İstanbul'), ['Flight to İSTANBUL']);
    // A pair the text does not hold finds nothing: 東タ is no word of it.
    assert.deepEqual(await keywordHits(m, '東タ'), []);
    const hit = (await m.search({ query: '東京', mode: 'keyword' })).hits[0]!;
    assert.deepEqual(hit.why.matchedTerms, ['東京']);
  } finally {
    await m.close();
    await t.cleanup();
  }
});

/** What analyzer @1 stored for these texts: a run of letters was one term, İ kept its dot. */
const OLD_TERMS: Record<string, string[]> = {
  '東京タワーに行きました': ['東京タワーに行きました'],
  'ไปทำงานที่กรุงเทพ': ['ไปทำงานที่กรุงเทพ'.normalize('NFKC')],
  'Flight to İSTANBUL': ['flight', 'i\u0307stanbul'],
};

async function indexHolds(db: string, term: string): Promise<number> {
  const rows =
    BACKEND === 'sqlite'
      ? await rawSql(db, 'SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH ?', `"${term}"`)
      : await rawSql(db, "SELECT count(*) AS n FROM memories WHERE tsv @@ plainto_tsquery('simple', ?)", term);
  return Number(rows[0]!.n);
}

test(named('a store written before texts without spaces were cut into pairs finds them after its migration'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    await m.rememberMany([...Object.keys(OLD_TERMS), 'harbour lights at dusk'].map((text) => ({ text })));
  } finally {
    await m.close();
  }
  // Put the store back as the previous release left it: the old terms in the index, the schema one version back.
  const rows = (await rawSql(t.db, BACKEND === 'sqlite' ? 'SELECT rowid AS r, text FROM memories' : 'SELECT id AS r, text FROM memories')) as { r: unknown; text: string }[];
  for (const row of rows) {
    const old = OLD_TERMS[row.text];
    if (!old) continue;
    if (BACKEND === 'sqlite') {
      await rawSql(t.db, 'DELETE FROM memories_fts WHERE rowid = ?', row.r);
      await rawSql(t.db, 'INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)', row.r, old.join(' '));
      await rawSql(t.db, 'UPDATE memories SET doc_len = ? WHERE rowid = ?', old.length, row.r);
    } else {
      await rawSql(t.db, 'UPDATE memories SET terms = ?, doc_len = ? WHERE id = ?', old.join(' '), old.length, row.r);
    }
  }
  if (BACKEND === 'sqlite') {
    await backBeforeReanalysis(t.db);
  } else {
    await rawSql(t.db, 'DELETE FROM term_df');
    await rawSql(t.db, 'INSERT INTO term_df (term, df) SELECT lexeme, count(*) FROM memories, unnest(tsv) GROUP BY lexeme');
    await rawSql(t.db, 'UPDATE fts_docs SET total_len = (SELECT coalesce(sum(doc_len), 0) FROM memories)');
    await backBeforeReanalysis(t.db);
  }
  assert.equal(await indexHolds(t.db, '東京'), 0, 'the old index has no pair');

  const again = await openMemory({ db: t.db });
  try {
    assert.equal(await again.store.schemaVersion(), BACKEND === 'sqlite' ? LATEST_SCHEMA_VERSION : PG_LATEST_SCHEMA_VERSION);
    assert.equal(await indexHolds(t.db, '東京'), 1, "the store's own index holds the pairs now");
    assert.equal(await indexHolds(t.db, 'istanbul'), 1);
    assert.equal(await indexHolds(t.db, 'harbour'), 1, 'an English row keeps its terms');
    const stats = await again.store.termStats(again.principal, ['東京', 'ไป', 'istanbul', 'i\u0307stanbul']);
    assert.deepEqual(stats.df, { 東京: 1, ไป: 1, istanbul: 1, 'i\u0307stanbul': 0 }, 'document frequencies moved to the new terms');
    assert.deepEqual(await keywordHits(again, '東京'), ['東京タワーに行きました']);
    assert.deepEqual(await keywordHits(again, 'กรุงเทพ'), ['ไปทำงานที่กรุงเทพ']);
    assert.deepEqual(await keywordHits(again, 'istanbul'), ['Flight to İSTANBUL']);
    assert.deepEqual(await keywordHits(again, 'harbour'), ['harbour lights at dusk']);
  } finally {
    await again.close();
    await t.cleanup();
  }
});
