/**
 * A salience_desc list with no type filter walks an index of current
 * memories (SQLite migration 16, PostgreSQL 17) instead of sorting every
 * visible memory of the namespace for each page; the read rule and the order
 * are unchanged, for the owner and for a guest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { listSql, memoryWhere } from '../../src/adapters/sqlite/store.ts';
import { pgListQuery } from '../../src/adapters/postgres/store.ts';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { localOwner, type Principal } from '../../src/domain/principal.ts';
import type { Memory } from '../../src/domain/memory.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';
import { pgClient } from '../helpers/pg-env.ts';

const owner = localOwner('default');
const guest: Principal = { role: 'guest', namespace: 'default', id: 'visitor' };

/** The plan of the list query a principal's salience_desc page runs, one line per step. */
async function salienceListPlan(db: string, p: Principal): Promise<string> {
  if (BACKEND === 'sqlite') {
    const raw = new Database(db);
    try {
      const w = memoryWhere(p, {});
      return (raw.prepare(`EXPLAIN QUERY PLAN ${listSql(w.sql, 'salience_desc')}`).all(...w.params, 21, 0) as { detail: string }[]).map((r) => r.detail).join('\n');
    } finally {
      raw.close();
    }
  }
  const client = await pgClient(parsePgUrl(db).schema ?? undefined);
  try {
    const q = pgListQuery(p, {}, { limit: 21, offset: 0 }, 'salience_desc');
    return (await client.query(`EXPLAIN ${q.text}`, q.values)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}

/** The order salience_desc promises, computed from the memories themselves. */
function bySalience(a: Memory, b: Memory): number {
  if (a.salience !== b.salience) return b.salience - a.salience;
  if (a.validFrom !== b.validFrom) return a.validFrom < b.validFrom ? 1 : -1;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

test(named('salience_desc with no type filter walks the current-salience index, and pages keep the order and the read rule'), async () => {
  const t = testStores('mnemos-salience-index-');
  try {
    const m = await openMemory({ db: t.db });
    try {
      const g = m.as(guest);
      await m.rememberMany(Array.from({ length: 2400 }, (_, i) => ({ text: `owner note ${i}`, type: i % 3 === 0 ? ('fact' as const) : ('general' as const) })));
      await m.rememberMany(Array.from({ length: 150 }, (_, i) => ({ text: `public note ${i}`, visibility: 'public' as const })));
      await g.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `guest note ${i}` })));
      // Spread the salience (writes give most memories one value) so the order is about something; ties remain.
      await rawSql(t.db, BACKEND === 'sqlite' ? 'UPDATE memories SET salience = (rowid % 23) / 23.0' : 'UPDATE memories SET salience = (abs(hashtext(id)) % 23) / 23.0');
      // An edited memory: its earlier version is superseded and must not be listed.
      const edited = (await m.list({ limit: 1, filter: { types: ['fact'] } })).items[0]!;
      await m.update(edited.id, { text: `${edited.text}, edited` });
      await rawSql(t.db, BACKEND === 'sqlite' ? 'ANALYZE' : 'ANALYZE memories');

      for (const p of [owner, guest]) {
        const plan = await salienceListPlan(t.db, p);
        assert.match(plan, /memories_salience_current/, `${p.role}: ${plan}`);
        assert.doesNotMatch(plan, BACKEND === 'sqlite' ? /TEMP B-TREE/ : /Sort/, `${p.role}: no sort of the namespace: ${plan}`);
      }

      for (const [who, reader, count] of [['owner', m, 2580], ['guest', g, 180]] as const) {
        const all = (await reader.list({ limit: 1000 })).total;
        assert.equal(all, count, `${who} sees as many as before`);
        const paged: Memory[] = [];
        for (let offset = 0; offset < count; offset += 97) paged.push(...(await reader.list({ order: 'salience_desc', limit: 97, offset })).items);
        assert.equal(paged.length, count);
        assert.equal(new Set(paged.map((x) => x.id)).size, count, `${who}: no memory twice`);
        assert.deepEqual(paged.map((x) => x.id), [...paged].sort(bySalience).map((x) => x.id), `${who}: salience, then valid time, then id, descending`);
        assert.ok(paged.every((x) => x.supersededAt === null && x.id !== edited.id), `${who}: current versions only`);
        if (who === 'guest') assert.ok(paged.every((x) => x.visibility === 'public' || x.ownerId === guest.id), 'a guest never lists owner-only memories');
      }
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});
