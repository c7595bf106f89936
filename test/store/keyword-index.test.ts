/**
 * SQLite's keyword search from its in-process copy of the full-text index
 * (adapters/sqlite/keyword-index.ts), on real files: the same ranking as
 * FTS5's own bm25() query, for an owner, a guest and a filter; writes and
 * forgets of another handle followed through the memory_log table (a
 * forgotten memory's words leave the copy); and a large store built in the
 * background while FTS5 answers.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { KeywordIndex } from '../../src/adapters/keyword-index.ts';
import { sqliteKeywordRows } from '../../src/adapters/sqlite/keyword-rows.ts';
import { StatementCache } from '../../src/adapters/sqlite/statements.ts';
import { SqliteStore } from '../../src/adapters/sqlite/store.ts';
import { SyntheticText } from '../../src/bench/synthetic.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { KeywordHit, MemoryFilter } from '../../src/ports/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { tempDir } from '../helpers/temp.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'kw', id: 'owner' };
const guest: Principal = { role: 'guest', namespace: 'kw', id: 'visitor' };

type Internals = { keywords: KeywordIndex; where(p: Principal, f: MemoryFilter | null): { sql: string; params: unknown[] } };

async function fill(s: SqliteStore, count: number, seed = 3): Promise<void> {
  const gen = new SyntheticText(seed, 300);
  for (let i = 0; i < count; i += 500) {
    const ops = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
      const n = i + j;
      return {
        kind: 'insert' as const,
        memory: mem(owner, { text: gen.sentence(3, 14), key: `kw:${n}`, visibility: n % 5 === 0 ? 'shared' : 'owner', type: n % 7 === 0 ? 'goal' : 'fact' }),
        onExistingSource: 'conflict' as const,
      };
    });
    await s.apply(owner, ops);
  }
}

/** FTS5's own answer: every match scored by bm25(), scope and filter applied, best first. */
function fts5(s: SqliteStore, p: Principal, terms: string[], filter: MemoryFilter, limit: number): KeywordHit[] {
  const w = (s as unknown as Internals).where(p, filter);
  const match = [...new Set(terms)].map((t) => `"${t}"`).join(' OR ');
  const rows = s.db
    .prepare(`SELECT m.id AS id, bm25(memories_fts) AS rank FROM memories_fts CROSS JOIN memories m ON m.rowid = memories_fts.rowid WHERE memories_fts MATCH ? AND ${w.sql} ORDER BY rank, m.rowid LIMIT ?`)
    .all(match, ...w.params, limit) as { id: string; rank: number }[];
  return rows.map((r) => ({ id: r.id, score: -r.rank }));
}

/** Same ids in the same order and scores equal to FTS5's up to its float rounding; ties may come in any order. */
function assertSameRanking(got: KeywordHit[], want: KeywordHit[], what: string): void {
  assert.equal(got.length, want.length, `${what}: length`);
  const key = (h: KeywordHit) => h.score.toPrecision(12);
  for (let i = 0; i < got.length; i++) assert.equal(key(got[i]!), key(want[i]!), `${what}: score at ${i}`);
  const groups = (hs: KeywordHit[]) => {
    const m = new Map<string, string[]>();
    for (const h of hs) m.set(key(h), [...(m.get(key(h)) ?? []), h.id].sort());
    return m;
  };
  // The last tie group may be cut at a different member; every full group has the same members.
  const g = groups(got);
  const wg = groups(want);
  const last = got.length ? key(got[got.length - 1]!) : '';
  for (const [k, ids] of wg) if (k !== last) assert.deepEqual(g.get(k), ids, `${what}: tie group ${k}`);
}

test('SQLite keyword search from the in-process copy ranks as FTS5 does, for owner, guest and filters', async () => {
  const tmp = tempDir('mnemos-kw-');
  const s = SqliteStore.open({ path: join(tmp.dir, 'kw.db'), analyze });
  try {
    await fill(s, 3000);
    const gen = new SyntheticText(5, 300);
    const internals = s as unknown as Internals;
    let fromCopy = 0;
    let calls = 0;
    for (let i = 0; i < 60; i++) {
      const terms = analyze(Array.from({ length: 1 + (i % 4) }, () => gen.word()).join(' '));
      if (terms.length === 0) continue;
      for (const c of [
        { p: owner, filter: {} as MemoryFilter, limit: 100 },
        { p: owner, filter: { types: ['goal'] } as MemoryFilter, limit: 20 },
        { p: guest, filter: {} as MemoryFilter, limit: 10 },
      ]) {
        const got = await s.keywordCandidates(c.p, { terms, filter: c.filter, limit: c.limit });
        calls++;
        if (internals.keywords.state.ready) fromCopy++;
        assertSameRanking(got, fts5(s, c.p, terms, c.filter, c.limit), `${c.p.role} ${JSON.stringify(c.filter)} "${terms.join(' ')}"`);
      }
    }
    assert.ok(calls > 150);
    assert.equal(fromCopy, calls, 'a store this size is indexed inside the first search');
    assert.deepEqual(internals.keywords.state.documents, 3000);
  } finally {
    await s.close();
    tmp.cleanup();
  }
});

test("the keyword copy follows another handle's writes and forgets; forgotten words leave it", async () => {
  const tmp = tempDir('mnemos-kw-sync-');
  const path = join(tmp.dir, 'kw.db');
  const a = SqliteStore.open({ path, analyze });
  const b = SqliteStore.open({ path, analyze });
  try {
    await fill(a, 200);
    const find = async (word: string) => (await b.keywordCandidates(owner, { terms: analyze(word), filter: {}, limit: 10 })).map((h) => h.id);
    assert.deepEqual(await find('zanzibarquux'), []);
    const m = mem(owner, { text: 'the zanzibarquux ledger', key: 'kw:secret' });
    await a.apply(owner, [{ kind: 'insert', memory: m, onExistingSource: 'conflict' }]);
    assert.deepEqual(await find('zanzibarquux'), [m.id], 'a write of the other handle is found');
    const keywords = (b as unknown as Internals).keywords;
    assert.ok(keywords.knows(analyze('zanzibarquux')[0]!));
    await a.apply(owner, [{ kind: 'forget', lineageId: m.lineageId, reason: 'test' }]);
    assert.deepEqual(await find('zanzibarquux'), [], 'a forget of the other handle is followed');
    assert.equal(keywords.knows(analyze('zanzibarquux')[0]!), false, "the forgotten memory's word left the copy");
    assert.equal(keywords.state.documents, 200);
  } finally {
    await a.close();
    await b.close();
    tmp.cleanup();
  }
});

/** Limits scaled down so 1,200 memories count as a large store, built 100 rows per slice. */
const SMALL_LIMITS = { buildNowRows: 100, sliceRows: 100, catchUpMax: 1000, checkMax: 1000 };

/** A store of 1,200 memories, the owner's scope SQL and a two-word query, for tests of the build itself. */
async function withLargeStore(prefix: string, body: (s: SqliteStore, newIndex: () => KeywordIndex, w: { sql: string; params: unknown[] }, terms: string[]) => Promise<void>): Promise<void> {
  const tmp = tempDir(prefix);
  const s = SqliteStore.open({ path: join(tmp.dir, 'kw.db'), analyze });
  try {
    await fill(s, 1200);
    const words = new SyntheticText(5, 300);
    await body(s, () => new KeywordIndex(sqliteKeywordRows(new StatementCache(s.db)), analyze, SMALL_LIMITS), (s as unknown as Internals).where(owner, {}), analyze(`${words.word()} ${words.word()}`));
  } finally {
    await s.close();
    tmp.cleanup();
  }
}

test('a large store builds its keyword copy in the background while FTS5 answers, then the copy answers the same', () =>
  withLargeStore('mnemos-kw-build-', async (s, newIndex, w, terms) => {
    const index = newIndex();
    assert.equal(await index.search(terms, w, 50), null, 'FTS5 answers while the copy builds');
    assert.ok(index.state.building);
    // A write landing mid-build is in the log after the build's start: the first catch-up applies it.
    const late = mem(owner, { text: `${terms.join(' ')} ${terms.join(' ')} late`, key: 'kw:late' });
    await s.apply(owner, [{ kind: 'insert', memory: late, onExistingSource: 'conflict' }]);
    for (let i = 0; i < 200 && !index.state.ready; i++) await new Promise((r) => setTimeout(r, 10));
    assert.ok(index.state.ready, 'built');
    const got = await index.search(terms, w, 50);
    assert.ok(got);
    assertSameRanking(got, fts5(s, owner, terms, {}, 50), 'after the build');
    assert.ok(got.some((h) => h.id === late.id), 'the write made during the build is in');
    index.close();
  }));

test('searches in a tight loop finish a background build themselves; prepare builds at once, letting the event loop turn', () =>
  withLargeStore('mnemos-kw-loop-', async (_s, newIndex, w, terms) => {
    // Searches back to back: the build's timers never get a turn, each search reads one slice of 100 rows.
    const loop = newIndex();
    let answered = -1;
    for (let i = 0; i < 20 && answered < 0; i++) if (await loop.search(terms, w, 50)) answered = i;
    assert.ok(answered >= 10 && answered <= 14, `answered from the copy at search ${answered} (1,200 rows, 100 per slice)`);
    const prepared = newIndex();
    // Timers and messages (a search request to a warming search thread) get turns while prepare builds.
    let done = false;
    let turnDuringBuild = false;
    setTimeout(() => (turnDuringBuild = !done), 0);
    await prepared.prepare();
    done = true;
    assert.ok(prepared.state.ready);
    assert.ok(turnDuringBuild, 'the event loop turned during the build');
    assert.deepEqual(await prepared.search(terms, w, 50), await loop.search(terms, w, 50));
    loop.close();
    prepared.close();
  }));
