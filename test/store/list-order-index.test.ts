/**
 * Lists order by time, then id. An import writes a whole file with one
 * recorded_at, so the order's tie-break must come from the index, not from a
 * sort of the whole tie (migration 10 on SQLite, 11 on PostgreSQL).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { listSql, memoryWhere } from '../../src/adapters/sqlite/store.ts';
import { localOwner } from '../../src/domain/principal.ts';
import type { ListOrder } from '../../src/ports/store.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { named, sqliteOnly, testStores } from '../helpers/backend.ts';
import { tempDir } from '../helpers/temp.ts';

test(named('memories written together list in id order within their shared time, every order, page after page'), async () => {
  const t = testStores();
  try {
    const m = await openMemory({ db: t.store('ties.db') });
    try {
      // One batch: one recorded_at and, with no dates given, one valid_from, for all of them.
      await m.rememberMany(Array.from({ length: 60 }, (_, i) => ({ text: `imported line ${i}` })));
      const all = (await m.list({ limit: 100 })).items;
      assert.equal(new Set(all.map((x) => x.recordedAt)).size, 1, 'the batch shares one recorded_at');
      const byId = all.map((x) => x.id).sort();
      const cases: [Exclude<ListOrder, 'source_key_asc'>, string[]][] = [
        ['recorded_desc', [...byId].reverse()],
        ['recorded_asc', byId],
        ['valid_desc', [...byId].reverse()],
        ['valid_asc', byId],
      ];
      for (const [order, want] of cases) {
        const paged: string[] = [];
        for (let offset = 0; offset < 60; offset += 7) paged.push(...(await m.list({ order, limit: 7, offset })).items.map((x) => x.id));
        assert.deepEqual(paged, want, order);
      }
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('SQLite walks an index for every time order: no sort of the tie', sqliteOnly('SQLite query plans'), async () => {
  const tmp = tempDir('mnemos-list-plan-');
  const db = join(tmp.dir, 'plan.db');
  try {
    const m = await openMemory({ db });
    await m.rememberMany(Array.from({ length: 20 }, (_, i) => ({ text: `imported line ${i}` })));
    await m.close();
    const raw = new Database(db);
    try {
      raw.exec('ANALYZE');
      const w = memoryWhere(localOwner('default'), {});
      for (const order of ['recorded_desc', 'recorded_asc', 'valid_desc', 'valid_asc'] as ListOrder[]) {
        const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${listSql(w.sql, order)}`).all(...w.params, 5, 0) as { detail: string }[]).map((r) => r.detail);
        assert.ok(!plan.some((d) => d.includes('TEMP B-TREE')), `${order}: ${plan.join('; ')}`);
      }
    } finally {
      raw.close();
    }
  } finally {
    tmp.cleanup();
  }
});

test("SQLite finds one file's memories through the source-key index, page after page, not by reading the namespace", sqliteOnly('SQLite query plans'), async () => {
  const tmp = tempDir('mnemos-file-plan-');
  const db = join(tmp.dir, 'plan.db');
  try {
    const m = await openMemory({ db });
    await m.rememberMany(Array.from({ length: 50 }, (_, i) => ({ text: `line ${i}`, key: `file:/notes/${i % 5}.md#L${i}` })));
    await m.rememberMany(Array.from({ length: 50 }, (_, i) => ({ text: `plain ${i}` })));
    await m.close();
    const raw = new Database(db);
    try {
      raw.exec('ANALYZE');
      for (const filter of [{ sourceKeyPrefix: 'file:/notes/3.md#' }, { sourceKeyPrefix: 'file:/notes/3.md#', sourceKeyAfter: { sourceKey: 'file:/notes/3.md#L13', id: '0' } }]) {
        const w = memoryWhere(localOwner('default'), filter);
        const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${listSql(w.sql, 'source_key_asc')}`).all(...w.params, 5, 0) as { detail: string }[]).map((r) => r.detail).join('; ');
        // A seek into the file's key range (by the key alone, or by key and id from the last row seen).
        assert.match(plan, /SEARCH m USING INDEX memories_source_key \(namespace=\? AND (source_key>\?|\(source_key,id\)>\(\?,\?\)) AND source_key<\?\)/, plan);
      }
    } finally {
      raw.close();
    }
  } finally {
    tmp.cleanup();
  }
});
