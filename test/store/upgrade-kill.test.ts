/**
 * The first open after an upgrade re-indexes stored texts; a command killed
 * (SIGKILL) while it does must leave a store that is whole, at a schema
 * version it really holds, and that the next open upgrades the rest of the
 * way. SQLite commits each migration with its version (migrations.ts);
 * PostgreSQL runs them all in one transaction.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { openMemory } from '../../src/index.ts';
import { KEEPS_MARKS, SPLITS_AT_MARKS } from '../../src/adapters/sqlite/fts-marks.ts';
import { LATEST_SCHEMA_VERSION } from '../../src/adapters/sqlite/migrations.ts';
import { PG_LATEST_SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';
import { backBeforeReanalysis } from '../helpers/pre-reanalysis.ts';

const BIN = join(import.meta.dirname, '../../bin/mnemos.js');
const KINDS = ['ไปทำงานที่กรุงเทพ ดีมาก', 'मैं हिन्दी बोलता हूँ', '我的猫很可爱', 'harbour lights at dusk', '東京タワーに行きました'];
const TEXTS = Array.from({ length: 3000 }, (_, i) => `${KINDS[i % KINDS.length]} ${i}`);

/** Runs `mnemos status` on the store and SIGKILLs it as soon as it says it is re-indexing; resolves whether it was killed. */
function killDuringUpgrade(db: string): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'status', '--json', '--db', db], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => {
      err += d;
      if (err.includes('upgrading store: re-indexing')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve(true) : code === 0 ? resolve(false) : reject(new Error(`mnemos status exited ${code}: ${err}`))));
  });
}

/** SQLite as the release before migration 14 left it: version 13, the tokenizer that splits at marks. */
function sqliteBefore14(db: string): void {
  const raw = new Database(db);
  try {
    const declared = (raw.prepare("SELECT sql FROM sqlite_schema WHERE name = 'memories_fts'").get() as { sql: string }).sql;
    raw.unsafeMode(true);
    raw.transaction(() => {
      const v = raw.pragma('schema_version', { simple: true }) as number;
      raw.pragma('writable_schema = ON');
      raw.prepare("UPDATE sqlite_schema SET sql = ? WHERE name = 'memories_fts'").run(declared.replace(KEEPS_MARKS, SPLITS_AT_MARKS));
      raw.pragma(`schema_version = ${v + 1}`);
      raw.pragma('writable_schema = OFF');
    })();
    raw.unsafeMode(false);
    raw.pragma('user_version = 13');
  } finally {
    raw.close();
  }
}

/** What must hold between any two kills: the file is whole, and its full-text declaration is the one its version says. */
function assertWholeSqlite(db: string): number {
  const raw = new Database(db);
  try {
    assert.equal(raw.pragma('integrity_check', { simple: true }), 'ok');
    raw.prepare("INSERT INTO memories_fts (memories_fts) VALUES ('integrity-check')").run();
    const version = raw.pragma('user_version', { simple: true }) as number;
    assert.ok(version >= 13 && version <= LATEST_SCHEMA_VERSION, `version ${version}`);
    const declared = (raw.prepare("SELECT sql FROM sqlite_schema WHERE name = 'memories_fts'").get() as { sql: string }).sql;
    assert.equal(declared.includes(KEEPS_MARKS), version >= 15, `version ${version} with ${declared}`);
    assert.equal((raw.prepare('SELECT count(*) AS n FROM memories').get() as { n: number }).n, TEXTS.length);
    return version;
  } finally {
    raw.close();
  }
}

async function assertWholePostgres(db: string): Promise<number> {
  const version = Number((await rawSql(db, 'SELECT max(version) AS v FROM mnemos_schema'))[0]!.v);
  // One transaction: all of the upgrade or none of it.
  assert.ok(version === 14 || version === PG_LATEST_SCHEMA_VERSION, `version ${version}`);
  assert.equal(Number((await rawSql(db, 'SELECT count(*) AS n FROM memories'))[0]!.n), TEXTS.length);
  return version;
}

test(named('a store upgrade killed while it re-indexes leaves a whole store, and the next open finishes it'), async () => {
  const t = testStores('mnemos-upgrade-kill-');
  try {
    const m = await openMemory({ db: t.db });
    await m.rememberMany(TEXTS.map((text) => ({ text })));
    await m.close();
    if (BACKEND === 'sqlite') sqliteBefore14(t.db);
    else await backBeforeReanalysis(t.db);

    const versions: number[] = [];
    // Killed twice: the second run starts from wherever the first left the store.
    for (let i = 0; i < 2; i++) {
      await killDuringUpgrade(t.db);
      versions.push(BACKEND === 'sqlite' ? assertWholeSqlite(t.db) : await assertWholePostgres(t.db));
    }
    assert.ok(versions[1]! >= versions[0]!, `no version goes back: ${versions.join(', ')}`);

    const after = await openMemory({ db: t.db });
    try {
      assert.equal(await after.store.schemaVersion(), BACKEND === 'sqlite' ? LATEST_SCHEMA_VERSION : PG_LATEST_SCHEMA_VERSION);
      const { df } = await after.store.termStats(after.principal, ['हिन्दी', 'ที่', 'harbour']);
      assert.deepEqual(df, { हिन्दी: 600, ที่: 600, harbour: 600 });
      const hits = await after.search({ query: '我的猫很可爱', mode: 'keyword', limit: 200 });
      assert.equal(hits.hits.length, 200);
      assert.ok(hits.hits.every((h) => h.memory.text.startsWith('我的猫很可爱')));
    } finally {
      await after.close();
    }
    if (BACKEND === 'sqlite') {
      assertWholeSqlite(t.db);
      const raw = new Database(t.db, { readonly: true });
      try {
        // FTS5's own term counts are the analyzer's: no row was indexed twice or left out.
        const vocab = new Map((raw.prepare('SELECT term, doc FROM memories_fts_vocab').all() as { term: string; doc: number }[]).map((r) => [r.term, r.doc]));
        const expected = new Map<string, number>();
        for (const text of TEXTS) for (const term of new Set(analyze(text))) expected.set(term, (expected.get(term) ?? 0) + 1);
        assert.deepEqual([...vocab].sort(), [...expected].sort());
      } finally {
        raw.close();
      }
    }
  } finally {
    await t.cleanup();
  }
});
