/**
 * The in-process copy of the full-text index (adapters/keyword-cache.ts)
 * against a BM25 written out here the way FTS5's bm25() computes it: the
 * same scores, the same order (ties by row key), after adds, removals,
 * replacements and the compaction that removals trigger; and a removed
 * document's words leave the dictionary.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KeywordCache } from '../../src/adapters/keyword-cache.ts';
import { mulberry32 } from '../../src/embedding/builtin/prng.ts';
import { fts5Bm25 } from '../helpers/bm25-reference.ts';

const reference = fts5Bm25;

function corpus(seed: number, count: number, vocab: number): Map<number, string[]> {
  const r = mulberry32(seed);
  const docs = new Map<number, string[]>();
  for (let i = 0; i < count; i++) {
    const len = 1 + Math.floor(r() * 12);
    // Skewed word choice, so some words are in most documents (IDF floor) and many in one.
    docs.set(10 + i * 3, Array.from({ length: len }, () => `w${Math.floor(vocab * r() * r())}`));
  }
  return docs;
}

function queries(seed: number, vocab: number): string[][] {
  const r = mulberry32(seed);
  return Array.from({ length: 40 }, () => Array.from({ length: 1 + Math.floor(r() * 4) }, () => `w${Math.floor(vocab * r() * r())}`));
}

const cases = [
  { name: 'small vocabulary (frequent words, IDF floor, many ties)', seed: 1, count: 300, vocab: 6 },
  { name: 'larger vocabulary', seed: 2, count: 2000, vocab: 400 },
  { name: 'one document', seed: 3, count: 1, vocab: 3 },
];

for (const c of cases) {
  test(`keyword copy ranks as FTS5's bm25(): ${c.name}`, () => {
    const docs = corpus(c.seed, c.count, c.vocab);
    const cache = new KeywordCache();
    for (const [rowid, terms] of docs) cache.add(rowid, terms);
    for (const q of queries(c.seed + 100, c.vocab)) {
      for (const k of [1, 10, 1000]) {
        const got = cache.top(q, k);
        assert.deepEqual(got.hits, reference(docs, q, k), `query ${q.join(' ')}, k ${k}`);
        assert.equal(got.matching, reference(docs, q, Infinity).length);
      }
    }
  });
}

test('keyword copy after removals, replacements and compaction equals one built from the documents left', () => {
  const docs = corpus(7, 3000, 300);
  const cache = new KeywordCache();
  for (const [rowid, terms] of docs) cache.add(rowid, terms);
  const r = mulberry32(9);
  const rowids = [...docs.keys()];
  // Remove well over a quarter (compaction runs past 1,024 removed and a quarter of the slots), replace some.
  for (const rowid of rowids) {
    const x = r();
    if (x < 0.45) {
      cache.remove(rowid);
      docs.delete(rowid);
    } else if (x < 0.5) {
      const terms = [`fresh${Math.floor(r() * 5)}`, ...docs.get(rowid)!.slice(1)];
      cache.add(rowid, terms);
      docs.set(rowid, terms);
    }
  }
  assert.equal(cache.size, docs.size);
  const fresh = new KeywordCache();
  for (const [rowid, terms] of docs) fresh.add(rowid, terms);
  for (const q of [...queries(11, 300), ['fresh1', 'w3'], ['fresh4']]) {
    assert.deepEqual(cache.top(q, 50), fresh.top(q, 50), `query ${q.join(' ')}`);
    assert.deepEqual(cache.top(q, 50).hits, reference(docs, q, 50));
  }
  assert.equal(cache.vocabulary, fresh.vocabulary);
});

test("a removed document's words leave the copy when no other document has them", () => {
  const cache = new KeywordCache();
  cache.add(1, ['shared', 'secret']);
  cache.add(2, ['shared', 'other']);
  assert.ok(cache.knows('secret'));
  cache.remove(1);
  assert.equal(cache.knows('secret'), false);
  assert.ok(cache.knows('shared'));
  assert.deepEqual(cache.top(['secret'], 10), { hits: [], matching: 0 });
  assert.deepEqual(cache.top(['shared'], 10).hits.map((h) => h.rowid), [2]);
  // Replacing a document drops the words it no longer has.
  cache.add(2, ['shared']);
  assert.equal(cache.knows('other'), false);
  cache.remove(2);
  assert.equal(cache.vocabulary, 0);
  assert.deepEqual(cache.top(['shared'], 10), { hits: [], matching: 0 });
});
