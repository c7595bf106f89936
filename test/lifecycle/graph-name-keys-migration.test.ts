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
import { normalizeName } from '../../src/graph/names.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';

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
