/**
 * SQLite's FTS5 table read combining marks as spaces (unicode61's default
 * categories), so a Thai word with a vowel sign was indexed as its bare
 * consonant and a Devanagari word as its consonants one by one: an exact
 * query through FTS5 (the answer while the in-process copy builds) matched
 * texts that hold only the consonants, and the term counts termStats reads
 * named terms the analyzer never makes. Migration 15 keeps marks in a term
 * and indexes again only the rows whose terms hold one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { MnemosError, openMemory, type MigrationProgress } from '../../src/index.ts';
import { KEEPS_MARKS, SPLITS_AT_MARKS } from '../../src/adapters/sqlite/fts-marks.ts';
import type { KeywordIndex } from '../../src/adapters/keyword-index.ts';
import { LATEST_SCHEMA_VERSION } from '../../src/adapters/sqlite/migrations.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { sqliteOnly, testStores } from '../helpers/backend.ts';

const WITH_MARKS = ['ไปทำงานที่กรุงเทพ ดีมาก', 'मैं हिन्दी बोलता हूँ', 'किताब पढ़ना अच्छा है'];
/** Texts holding the bare consonants of those words: FTS5 found them for the marked words. */
const DECOYS = ['ดาว ท', 'ह न द', 'कतब'];
const ENGLISH = ['harbour lights at dusk', 'the build ran on host 7', 'café au lait, naïve résumé'];

/** FTS5's answer to an exact query of one analyzed term, as the store's fallback asks it: the texts it matches. */
function ftsMatches(db: Database.Database, term: string): string[] {
  return (db.prepare('SELECT m.text AS text FROM memories_fts f CROSS JOIN memories m ON m.rowid = f.rowid WHERE memories_fts MATCH ? ORDER BY m.text').all(`"${term}"`) as { text: string }[]).map(
    (r) => r.text,
  );
}

/** Each term the analyzer makes of the texts, with the number of texts holding it: what FTS5's vocabulary must say. */
function analyzerCounts(texts: string[]): Map<string, number> {
  const df = new Map<string, number>();
  for (const t of texts) for (const term of new Set(analyze(t))) df.set(term, (df.get(term) ?? 0) + 1);
  return df;
}

function vocabulary(db: Database.Database): Map<string, number> {
  return new Map((db.prepare('SELECT term, doc FROM memories_fts_vocab').all() as { term: string; doc: number }[]).map((r) => [r.term, r.doc]));
}

/** Rewrites memories_fts's declaration behind the store's back, as migration 15 does. */
function declare(raw: Database.Database, sql: string): void {
  raw.unsafeMode(true);
  try {
    raw.transaction(() => {
      const v = raw.pragma('schema_version', { simple: true }) as number;
      raw.pragma('writable_schema = ON');
      raw.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'memories_fts'").run(sql);
      raw.pragma(`schema_version = ${v + 1}`);
      raw.pragma('writable_schema = OFF');
    })();
  } finally {
    raw.unsafeMode(false);
  }
}

const sorted = (m: Map<string, number>) => [...m].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));

async function fill(db: string, texts: string[]): Promise<void> {
  const m = await openMemory({ db });
  try {
    await m.rememberMany(texts.map((text) => ({ text })));
  } finally {
    await m.close();
  }
}

function assertAgreesWithAnalyzer(db: Database.Database, texts: string[]): void {
  assert.deepEqual(sorted(vocabulary(db)), sorted(analyzerCounts(texts)), "FTS5's terms and counts are the analyzer's");
  assert.deepEqual(ftsMatches(db, 'ที่'), ['ไปทำงานที่กรุงเทพ ดีมาก']);
  assert.deepEqual(ftsMatches(db, 'ดี'), ['ไปทำงานที่กรุงเทพ ดีมาก'], 'ดาว holds ด without the vowel sign');
  assert.deepEqual(ftsMatches(db, 'हिन्दी'), ['मैं हिन्दी बोलता हूँ'], 'ह न द is other words');
  assert.deepEqual(ftsMatches(db, 'किताब'), ['किताब पढ़ना अच्छा है']);
  assert.deepEqual(ftsMatches(db, 'harbour'), texts.filter((t) => t.includes('harbour')).sort(), 'English rows keep their terms');
  db.prepare("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')").run();
}

test('a new SQLite store indexes Thai and Devanagari words whole: exact queries and term counts agree with the analyzer', sqliteOnly('FTS5 is the SQLite full-text index'), async () => {
  const t = testStores();
  try {
    const all = [...WITH_MARKS, ...DECOYS, ...ENGLISH];
    await fill(t.db, all);
    const db = new Database(t.db);
    try {
      assertAgreesWithAnalyzer(db, all);
    } finally {
      db.close();
    }
    const m = await openMemory({ db: t.db });
    try {
      const { df } = await m.store.termStats(m.principal, ['ที่', 'हिन्दी', 'ह']);
      assert.deepEqual(df, { ที่: 1, हिन्दी: 1, ह: 1 });
      // Without its in-process copy (as while the copy builds on a large store) the store's keyword search is FTS5's exact query.
      (m.store as unknown as { keywords: KeywordIndex }).keywords.close();
      const keyword = async (query: string) => (await m.search({ query, mode: 'keyword' })).hits.map((h) => h.memory.text);
      assert.deepEqual(await keyword('ดี'), ['ไปทำงานที่กรุงเทพ ดีมาก']);
      assert.deepEqual(await keyword('हिन्दी'), ['मैं हिन्दी बोलता हूँ']);
      assert.deepEqual(await keyword('पढ़ना'), ['किताब पढ़ना अच्छा है']);
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('a SQLite store from before migration 15 indexes again only its texts with marks, reporting progress', sqliteOnly('FTS5 is the SQLite full-text index'), async () => {
  const t = testStores();
  try {
    const english = Array.from({ length: 300 }, (_, i) => `${ENGLISH[i % ENGLISH.length]} ${i}`);
    const all = [...WITH_MARKS, ...DECOYS, ...english];
    await fill(t.db, all);
    // As the previous release left it: the splitting tokenizer declared, every row's terms indexed by it, version 14.
    const raw = new Database(t.db);
    try {
      const declared = (raw.prepare("SELECT sql FROM sqlite_schema WHERE name = 'memories_fts'").get() as { sql: string }).sql;
      assert.ok(declared.includes(KEEPS_MARKS));
      declare(raw, declared.replace(KEEPS_MARKS, SPLITS_AT_MARKS));
      const rows = raw.prepare('SELECT rowid, text FROM memories').all() as { rowid: number; text: string }[];
      for (const r of rows) {
        raw.prepare('DELETE FROM memories_fts WHERE rowid = ?').run(r.rowid);
        raw.prepare('INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)').run(r.rowid, analyze(r.text).join(' '));
      }
      raw.pragma('user_version = 14');
      assert.equal(vocabulary(raw).get('हिन्दी'), undefined, 'the old index has no word with a mark');
      assert.deepEqual(ftsMatches(raw, 'ดี'), ['ดาว ท', 'ไปทำงานที่กรุงเทพ ดีมาก'], 'and finds the bare consonant');
    } finally {
      raw.close();
    }

    const heard: MigrationProgress[] = [];
    const m = await openMemory({ db: t.db, onProgress: (p) => heard.push(p) });
    try {
      assert.equal(await m.store.schemaVersion(), LATEST_SCHEMA_VERSION);
      const ours = heard.filter((p) => p.migration === 15);
      // The Thai and Devanagari texts (decoys with a mark among them); not one of the 300 English ones.
      const marked = all.filter((text) => analyze(text).some((term) => /\p{M}/u.test(term))).length;
      assert.ok(marked >= WITH_MARKS.length && marked < all.length - english.length + 1);
      assert.deepEqual(
        ours.map((p) => [p.done, p.total]),
        [
          [0, marked],
          [marked, marked],
        ],
      );
      const { df } = await m.store.termStats(m.principal, ['ที่', 'हिन्दी']);
      assert.deepEqual(df, { ที่: 1, हिन्दी: 1 });
    } finally {
      await m.close();
    }
    const db = new Database(t.db);
    try {
      assertAgreesWithAnalyzer(db, all);
    } finally {
      db.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('a SQLite store whose full-text table is declared otherwise than its migrations left it is refused, unchanged', sqliteOnly('FTS5 is the SQLite full-text index'), async () => {
  const t = testStores();
  try {
    await fill(t.db, WITH_MARKS);
    const foreign = "CREATE VIRTUAL TABLE memories_fts USING fts5(terms, content='', contentless_delete=1, tokenize='porter unicode61')";
    const raw = new Database(t.db);
    try {
      declare(raw, foreign);
      raw.pragma('user_version = 14');
    } finally {
      raw.close();
    }
    await assert.rejects(openMemory({ db: t.db }), (err: MnemosError) => err.code === 'internal' && /memories_fts is not declared as this store's migrations left it/.test(err.message));
    const after = new Database(t.db, { readonly: true });
    try {
      assert.equal(after.pragma('user_version', { simple: true }), 14, 'no migration was recorded');
      assert.equal((after.prepare("SELECT sql FROM sqlite_schema WHERE name = 'memories_fts'").get() as { sql: string }).sql, foreign);
    } finally {
      after.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('a SQLite store from before migration 14 upgrades in one open: both re-indexings of its full-text index are kept', sqliteOnly('FTS5 is the SQLite full-text index'), async () => {
  // Migrations 14 (texts of scripts without spaces) and 15 (the tokenizer) both write memories_fts. Run in one
  // transaction, 15's rewrite of the declaration met 14's uncommitted index writes as a corrupt index, and a
  // store of that release that held such texts could no longer be opened at all.
  const t = testStores();
  try {
    const spaceless = Array.from({ length: 120 }, (_, i) => `${['我的猫很可爱', '東京タワーに行きました'][i % 2]} ${i}`);
    const english = Array.from({ length: 120 }, (_, i) => `${ENGLISH[i % ENGLISH.length]} ${i}`);
    const all = [...WITH_MARKS, ...DECOYS, ...spaceless, ...english];
    await fill(t.db, all);
    const raw = new Database(t.db);
    try {
      const declared = (raw.prepare("SELECT sql FROM sqlite_schema WHERE name = 'memories_fts'").get() as { sql: string }).sql;
      declare(raw, declared.replace(KEEPS_MARKS, SPLITS_AT_MARKS));
      raw.transaction(() => {
        for (const r of raw.prepare('SELECT rowid, text FROM memories').all() as { rowid: number; text: string }[]) {
          raw.prepare('DELETE FROM memories_fts WHERE rowid = ?').run(r.rowid);
          raw.prepare('INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)').run(r.rowid, analyze(r.text).join(' '));
        }
      })();
      raw.pragma('user_version = 13');
    } finally {
      raw.close();
    }

    const heard: MigrationProgress[] = [];
    const m = await openMemory({ db: t.db, onProgress: (p) => heard.push(p) });
    try {
      assert.equal(await m.store.schemaVersion(), LATEST_SCHEMA_VERSION);
      assert.deepEqual([...new Set(heard.map((p) => p.migration))], [14, 15], 'both re-indexings ran');
      const found = await m.search({ query: '我的猫很可爱', mode: 'keyword', limit: 200 });
      const cats = spaceless.filter((s) => s.startsWith('我的猫很可爱')).sort();
      assert.deepEqual(found.hits.slice(0, cats.length).map((h) => h.memory.text).sort(), cats, 'every text holding the words ranks first');
    } finally {
      await m.close();
    }
    const db = new Database(t.db);
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
      assertAgreesWithAnalyzer(db, all);
    } finally {
      db.close();
    }
  } finally {
    await t.cleanup();
  }
});
