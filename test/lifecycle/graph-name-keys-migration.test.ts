/**
 * Graph name keys written before marks outside Latin and Greek were kept
 * (SQLite migration 17, PostgreSQL 18) are computed again when the store is
 * opened: a Thai name stored under its stripped key was found by another name.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.ts';
import { PG_MIGRATIONS } from '../../src/adapters/postgres/migrations.ts';
import { strippedKey } from '../../src/adapters/sql/graph-norms.ts';
import { normalizeName } from '../../src/domain/name-keys.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';
import Database from 'better-sqlite3';
import type pg from 'pg';
import { rekeyGraphNames } from '../../src/adapters/sqlite/graph-rekey.ts';
import { rekeyGraphNamesPg } from '../../src/adapters/postgres/graph-rekey.ts';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { pgClient } from '../helpers/pg-env.ts';

test(named('opening a store rewrites the graph keys the old folding wrote: กรุงเทพ is found as itself, not as กรงเทพ'), async () => {
  const t = testStores('mnemos-graph-keys-');
  try {
    const m = await openMemory({ db: t.db });
    const { id } = await m.remember({ text: 'กรุงเทพ และ เชียงใหม่ และ José' });
    const lineage = (await m.get(id)).lineageId;
    await m.close();

    // The graph as the previous release wrote it: keys with every mark stripped. [entity id, name, mentions seen]
    const entities: [string, string, string[]][] = [
      ['e-bangkok', 'กรุงเทพ', ['กรุงเทพ']],
      ['e-chiangmai', 'เชียงใหม่', ['เชียงใหม่']],
      ['e-jose', 'José Álvarez', ['José', 'José Álvarez']], // its key came from its first mention, not its fuller name
    ];
    for (const [eid, name, mentions] of entities) {
      await rawSql(t.db, 'INSERT INTO graph_entities (id, namespace, owner_id, agent_id, visibility, name, norm, type, first_seen, last_seen, mentions) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)', eid, 'default', 'owner', 'owner', name, strippedKey(mentions[0]!), 'name', 1, 1, mentions.length);
      for (const mention of mentions) await rawSql(t.db, 'INSERT INTO graph_evidence (entity_id, relation_id, lineage_id, memory_id, mention, norm) VALUES (?, NULL, ?, ?, ?, ?)', eid, lineage, id, mention, strippedKey(mention));
    }
    assert.equal(strippedKey('กรุงเทพ'), 'กรงเทพ', 'the old key of Bangkok is another name');
    const rekey = (all: { version: number; name: string }[]) => all.find((x) => x.name.startsWith('graph name keys again'))!.version;
    if (BACKEND === 'sqlite') await rawSql(t.db, `PRAGMA user_version = ${rekey(MIGRATIONS) - 1}`);
    else await rawSql(t.db, 'DELETE FROM mnemos_schema WHERE version >= ?', rekey(PG_MIGRATIONS));

    const again = await openMemory({ db: t.db });
    try {
      const keys = Object.fromEntries((await rawSql(t.db, 'SELECT id, norm FROM graph_entities')).map((r) => [r.id, r.norm]));
      assert.deepEqual(keys, { 'e-bangkok': 'กรุงเทพ'.normalize('NFC'), 'e-chiangmai': normalizeName('เชียงใหม่'), 'e-jose': 'jose' });
      const evidence = (await rawSql(t.db, 'SELECT mention, norm FROM graph_evidence')) as { mention: string; norm: string }[];
      for (const e of evidence) assert.equal(e.norm, normalizeName(e.mention), e.mention);
      const find = async (name: string) => (await again.store.graph!.findEntities(again.principal, [normalizeName(name)])).map((e) => e.id).sort();
      assert.deepEqual(await find('กรุงเทพ'), ['e-bangkok']);
      assert.deepEqual(await find('กรงเทพ'), [], 'another name finds nothing');
      assert.deepEqual(await find('เชียงใหม'), []);
      assert.deepEqual(await find('Jose'), ['e-jose'], 'a Latin name still folds');
    } finally {
      await again.close();
    }
  } finally {
    await t.cleanup();
  }
});

// The re-key asked for each entity's mentions and updated evidence per mention (graph_evidence has no index on
// mention: a full scan each time), so its work grew with the square of the names: 20,000 Cyrillic names held a
// PostgreSQL store's first open for three and a half minutes, with nothing said. The count of full passes over
// the evidence (SQLite: statements whose plan scans it; PostgreSQL: statements sent) must not grow with the names.
test(named('the graph re-key reads the evidence a fixed number of times, however many names move'), async () => {
  const t = testStores('mnemos-graph-keys-scale-');
  try {
    const m = await openMemory({ db: t.db });
    const { id } = await m.remember({ text: 'Пётр и Йоко' });
    const lineage = (await m.get(id)).lineageId;
    await m.close();
    const names = Array.from({ length: 150 }, (_, i) => `Йогуртов Пётр ${i}`);
    for (const [i, name] of names.entries()) {
      await rawSql(t.db, 'INSERT INTO graph_entities (id, namespace, owner_id, agent_id, visibility, name, norm, type, first_seen, last_seen, mentions) VALUES (?, ?, ?, NULL, ?, ?, ?, ?, ?, ?, ?)', `e${i}`, 'default', 'owner', 'owner', name, strippedKey(name), 'name', 1, 1, 1);
      await rawSql(t.db, 'INSERT INTO graph_evidence (entity_id, relation_id, lineage_id, memory_id, mention, norm) VALUES (?, NULL, ?, ?, ?, ?)', `e${i}`, lineage, id, name, strippedKey(name));
    }

    let passes: number;
    if (BACKEND === 'sqlite') {
      const db = new Database(t.db);
      try {
        const prepare = db.prepare.bind(db);
        const scans = new Map<string, boolean>();
        const scansEvidence = (sql: string, params: unknown[]): boolean => {
          if (!scans.has(sql)) scans.set(sql, (prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).some((r) => /^SCAN graph_evidence\b/.test(r.detail)));
          return scans.get(sql)!;
        };
        let counted = 0;
        // The real database; only the count of evidence scans is recorded as statements run.
        db.prepare = ((sql: string) => {
          const stmt = prepare(sql);
          const wrap = <K extends 'run' | 'all' | 'get' | 'iterate'>(k: K) => {
            const f = (stmt[k] as (...a: unknown[]) => unknown).bind(stmt);
            (stmt as unknown as Record<string, unknown>)[k] = (...a: unknown[]) => {
              if (scansEvidence(sql, a)) counted++;
              return f(...a);
            };
          };
          for (const k of ['run', 'all', 'get', 'iterate'] as const) wrap(k);
          return stmt;
        }) as typeof db.prepare;
        db.transaction(() => rekeyGraphNames(db))();
        passes = counted;
      } finally {
        db.close();
      }
    } else {
      const client = await pgClient(parsePgUrl(t.db).schema ?? undefined);
      try {
        let sent = 0;
        const query = client.query.bind(client) as (...a: unknown[]) => Promise<unknown>;
        (client as unknown as { query: unknown }).query = (...a: unknown[]) => {
          sent++;
          return query(...a);
        };
        await rekeyGraphNamesPg(client as unknown as pg.PoolClient);
        passes = sent;
      } finally {
        await client.end();
      }
    }
    assert.ok(passes <= 6, `${passes} passes over the evidence for ${names.length} names`);

    const keys = (await rawSql(t.db, "SELECT id, norm FROM graph_entities WHERE id LIKE 'e%'")) as { id: string; norm: string }[];
    assert.equal(keys.length, names.length);
    for (const k of keys) assert.equal(k.norm, normalizeName(names[Number(k.id.slice(1))]!), k.id);
    const evidence = (await rawSql(t.db, 'SELECT mention, norm FROM graph_evidence')) as { mention: string; norm: string }[];
    for (const e of evidence) assert.equal(e.norm, normalizeName(e.mention), e.mention);
  } finally {
    await t.cleanup();
  }
});
