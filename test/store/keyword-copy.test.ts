/**
 * Keyword search from the in-process copy of the full-text index, through
 * the store port on the selected backend: the ranking is FTS5's bm25() over
 * the analyzed terms (checked against it written out plainly), with scope
 * and filters applied before the cut for an owner, a guest and a type
 * filter; another handle's write and forget are followed, and a forgotten
 * memory's words leave the copy.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/adapters/open-store.ts';
import type { KeywordIndex } from '../../src/adapters/keyword-index.ts';
import { SyntheticText } from '../../src/bench/synthetic.ts';
import type { Memory } from '../../src/domain/memory.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { MemoryFilter, MemoryStore, WriteOp } from '../../src/ports/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { named, testStores } from '../helpers/backend.ts';
import { fts5Bm25 } from '../helpers/bm25-reference.ts';
import { mem } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'kwc', id: 'owner' };
const guest: Principal = { role: 'guest', namespace: 'kwc', id: 'visitor' };

const keywordsOf = (s: MemoryStore) => (s as unknown as { keywords: KeywordIndex }).keywords;

test(named('keyword search ranks from the in-process copy as FTS5 bm25() would, scope and filter before the cut'), async () => {
  const st = testStores('mnemos-kwc-');
  const s = await openStore(st.db, { analyze });
  try {
    const gen = new SyntheticText(8, 200);
    const all: Memory[] = [];
    for (let i = 0; i < 800; i += 400) {
      const batch = Array.from({ length: 400 }, (_, j) =>
        mem(owner, { text: gen.sentence(3, 12), key: `kwc:${i + j}`, visibility: (i + j) % 4 === 0 ? 'shared' : 'owner', type: (i + j) % 9 === 0 ? 'goal' : 'fact' }),
      );
      await s.apply(owner, batch.map((m) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const })));
      all.push(...batch);
    }
    await s.prepareKeywordSearch?.();
    assert.ok(keywordsOf(s).state.ready, 'the copy is built');
    // The reference ranks every stored memory (statistics over the whole index, as FTS5 keeps them), then applies scope and filter.
    const docs = new Map(all.map((m, i) => [i, analyze(m.text)]));
    const cases: { p: Principal; filter: MemoryFilter; admits: (m: Memory) => boolean; limit: number }[] = [
      { p: owner, filter: {}, admits: () => true, limit: 50 },
      { p: guest, filter: {}, admits: (m) => m.visibility === 'shared', limit: 10 },
      { p: owner, filter: { types: ['goal'] }, admits: (m) => m.type === 'goal', limit: 10 },
    ];
    let compared = 0;
    for (let i = 0; i < 30; i++) {
      const terms = analyze(Array.from({ length: 1 + (i % 3) }, () => gen.word()).join(' '));
      if (terms.length === 0) continue;
      for (const c of cases) {
        const want = fts5Bm25(docs, terms, docs.size)
          .filter((r) => c.admits(all[r.rowid]!))
          .slice(0, c.limit);
        const got = await s.keywordCandidates(c.p, { terms, filter: c.filter, limit: c.limit });
        assert.deepEqual(
          got.map((h) => h.score.toPrecision(12)),
          want.map((r) => r.score.toPrecision(12)),
          `${c.p.role} ${JSON.stringify(c.filter)} "${terms.join(' ')}": scores`,
        );
        // Same members in each tie group but the last (which the cut may split anywhere).
        const byScore = (xs: { id: string; score: number }[]) => {
          const m = new Map<string, string[]>();
          for (const x of xs) m.set(x.score.toPrecision(12), [...(m.get(x.score.toPrecision(12)) ?? []), x.id].sort());
          return m;
        };
        const g = byScore(got);
        const last = got.at(-1)?.score.toPrecision(12);
        for (const [k, ids] of byScore(want.map((r) => ({ id: all[r.rowid]!.id, score: r.score })))) if (k !== last) assert.deepEqual(g.get(k), ids, `tie group ${k}`);
        compared++;
      }
    }
    assert.ok(compared > 60);
  } finally {
    await s.close();
    await st.cleanup();
  }
});

/** Two handles on one fresh store, as two processes would open it: `a` writes, `b` follows. */
async function twoHandles(prefix: string, run: (a: MemoryStore, b: MemoryStore) => Promise<void>): Promise<void> {
  const st = testStores(prefix);
  const a = await openStore(st.db, { analyze });
  const b = await openStore(st.db, { analyze });
  try {
    await run(a, b);
  } finally {
    await a.close();
    await b.close();
    await st.cleanup();
  }
}

const insert = (memory: Memory, vector?: { model: string; vector: Float32Array }): WriteOp => ({ kind: 'insert', memory, onExistingSource: 'conflict', ...(vector ? { vector } : {}) });
const forget = (m: Memory): WriteOp => ({ kind: 'forget', lineageId: m.lineageId, reason: 'test' });
/** Ids a handle's keyword search finds for one word. */
const finder = (s: MemoryStore) => async (word: string) => (await s.keywordCandidates(owner, { terms: analyze(word), filter: {}, limit: 10 })).map((h) => h.id);
const term = (word: string) => analyze(word)[0]!;

test(named("the keyword copy follows another handle's write and forget; the forgotten word leaves it"), () =>
  twoHandles('mnemos-kwc-sync-', async (a, b) => {
    const find = finder(b);
    await a.apply(owner, [insert(mem(owner, { text: 'an ordinary note about lunch', key: 'kwc:plain' }))]);
    assert.deepEqual(await find('quixotriangle'), []);
    assert.ok(keywordsOf(b).state.ready);
    const m = mem(owner, { text: 'the quixotriangle ledger', key: 'kwc:secret' });
    await a.apply(owner, [insert(m)]);
    assert.deepEqual(await find('quixotriangle'), [m.id], "the other handle's write is found");
    assert.ok(keywordsOf(b).knows(term('quixotriangle')));
    await a.apply(owner, [forget(m)]);
    assert.equal(keywordsOf(a).knows(term('quixotriangle')), false, 'the forgetting handle dropped the word at once');
    assert.deepEqual(await find('quixotriangle'), [], "the other handle's forget is followed");
    assert.equal(keywordsOf(b).knows(term('quixotriangle')), false, "the forgotten memory's word left the copy");
  }),
);

test(named('a keyword copy behind a pruned memory row log rebuilds and still finds every write and forget'), () =>
  twoHandles('mnemos-kwc-prune-', async (a, b) => {
    const find = finder(b);
    const early = mem(owner, { text: 'the marmalade inventory', key: 'kwc:early' });
    await a.apply(owner, [insert(early)]);
    assert.deepEqual(await find('marmalade'), [early.id]);
    assert.ok(keywordsOf(b).state.ready);
    // Behind b's position: a write and a forget, then a prune that leaves only the newest entry.
    const later = mem(owner, { text: 'the quinceberry inventory', key: 'kwc:later' });
    await a.apply(owner, [insert(later)]);
    await a.apply(owner, [forget(early)]);
    await a.apply(owner, [insert(mem(owner, { text: 'an unrelated closing note', key: 'kwc:last' }))]);
    await assert.rejects(a.pruneMemoryLog!(guest, 0), (e: Error & { code?: string }) => e.code === 'forbidden');
    await assert.rejects(a.pruneMemoryLog!(owner, -1), (e: Error & { code?: string }) => e.code === 'validation_failed');
    assert.equal(await a.pruneMemoryLog!(owner, 0), 3, 'four entries (three writes, one forget), the newest kept');
    assert.equal(await a.pruneMemoryLog!(owner, 0), 0);
    assert.deepEqual(await find('quinceberry'), [later.id], 'the write whose entry was pruned is found');
    assert.deepEqual(await find('marmalade'), [], 'the forget whose entry was pruned is followed');
    assert.equal(keywordsOf(b).knows(term('marmalade')), false, 'the copy was rebuilt without the forgotten word');
    // The log goes on from where it was: a new write is followed without another rebuild.
    const next = mem(owner, { text: 'the persimmon inventory', key: 'kwc:next' });
    await a.apply(owner, [insert(next)]);
    assert.deepEqual(await find('persimmon'), [next.id]);
  }),
);

test(named("refreshSearchCaches brings a handle's keyword and vector copies up to date with another handle's writes, without a search"), () =>
  twoHandles('mnemos-kwc-follow-', async (a, b) => {
    const M = 'follow-test-model';
    const vec = (x: number) => ({ model: M, vector: Float32Array.from([x, Math.sqrt(1 - x * x), 0, 0]) });
    const first = mem(owner, { text: 'the marmalade inventory', key: 'kwc:f1' });
    await a.apply(owner, [insert(first, vec(0.1))]);
    // b builds the keyword copy with a search and the vector copy with a prepare (a first vector search keeps no copy).
    await finder(b)('marmalade');
    await b.vectors!.prepare(owner, { model: M, dimensions: 4 });
    const vectorRows = () => (b.vectors as unknown as { scan: { models: Map<string, { cache: { size: number } }> } }).scan.models.get(M)!.cache.size;
    assert.equal(vectorRows(), 1);
    const second = mem(owner, { text: 'the quinceberry inventory', key: 'kwc:f2' });
    const third = mem(owner, { text: 'the persimmon inventory', key: 'kwc:f3' });
    await a.apply(owner, [insert(second, vec(0.5)), insert(third, vec(0.9))]);
    await a.apply(owner, [forget(first)]);
    assert.equal(keywordsOf(b).knows(term('quinceberry')), false, 'nothing moved before the refresh');
    await b.refreshSearchCaches!();
    assert.ok(keywordsOf(b).knows(term('quinceberry')) && keywordsOf(b).knows(term('persimmon')), "the other handle's writes reached the keyword copy");
    assert.equal(keywordsOf(b).knows(term('marmalade')), false, 'and its forget');
    assert.equal(vectorRows(), 2, 'two vectors written, one forgotten');
  }),
);
