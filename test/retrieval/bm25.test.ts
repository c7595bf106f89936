import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bm25Idf, bm25Score, bm25TermWeight, scoreCandidates, termFrequencies, assertBm25Params } from '../../src/retrieval/bm25.ts';
import { InMemoryKeywordIndex } from '../../src/retrieval/in-memory-keyword-index.ts';
import { analyze, analyzeQuery } from '../../src/retrieval/text/analyze.ts';
import { MnemosError } from '../../src/domain/errors.ts';

const close = (actual: number, expected: number, what: string): void => assert.ok(Math.abs(actual - expected) < 1e-12, `${what}: ${actual} != ${expected}`);

test('bm25Idf: Lucene form ln(1 + (N - df + 0.5)/(df + 0.5))', () => {
  const cases: Array<[df: number, n: number, idf: number]> = [
    [1, 10, 1.992430164690206],
    [5, 10, 0.6931471805599453],
    [10, 10, 0.04652001563489291],
    [100, 5183, 3.9431745105329803],
    [0, 10, 0], // a term no document has cannot match
    [3, 0, 0],
  ];
  for (const [df, n, idf] of cases) close(bm25Idf(df, n), idf, `idf(${df}, ${n})`);
  assert.ok(bm25Idf(12, 10) > 0, 'df > N (stale stats) stays positive');
});

test('bm25TermWeight: saturating tf normalised by length', () => {
  const cases: Array<[tf: number, dl: number, avgdl: number, k1: number, b: number, w: number]> = [
    [2, 10, 10, 0.9, 0.4, 1.3103448275862069],
    [2, 20, 10, 0.9, 0.4, 1.165644171779141],
    [1, 5, 10, 0.9, 0.4, 1.1046511627906974],
    [3, 20, 10, 1.2, 0.75, 1.2941176470588238],
    [2, 20, 10, 0.9, 0, 1.3103448275862069], // b = 0: length ignored
    [4, 20, 10, 0, 0.4, 1], // k1 = 0: binary
    [0, 10, 10, 0.9, 0.4, 0],
  ];
  for (const [tf, dl, avg, k1, b, w] of cases) close(bm25TermWeight(tf, dl, avg, { k1, b }), w, `w(${tf}, ${dl}, ${avg}, ${k1}, ${b})`);
  close(bm25TermWeight(2, 7, 0), 1.3103448275862069, 'empty corpus average length counts as ratio 1');
});

test('bm25Score sums idf x weight over query terms, repeated query terms weigh more', () => {
  const doc = { a: 2, b: 1, z: 9 };
  const df = { a: 2, b: 5, c: 1 };
  const query = termFrequencies(['a', 'a', 'b', 'c']);
  close(bm25Score(doc, 8, df, 10, 10, { k1: 0.9, b: 0.4 }, query), 4.7021296097977405, 'record inputs');
  close(bm25Score(new Map(Object.entries(doc)), 8, new Map(Object.entries(df)), 10, 10, undefined, query), 4.7021296097977405, 'map inputs');
  // Without query weights the keys of termFreqs are the query terms, each once.
  close(bm25Score({ a: 2 }, 8, df, 10, 10), bm25Idf(2, 10) * bm25TermWeight(2, 8, 10), 'single term');
  assert.equal(bm25Score({}, 8, df, 10, 10), 0);
  assert.equal(bm25Score({ toString: 3 } as unknown as Record<string, number>, 8, {}, 10, 10), 0, 'prototype keys are not terms');
});

test('bm25 parameters are validated', () => {
  for (const bad of [{ k1: -1, b: 0.4 }, { k1: Number.NaN, b: 0.4 }, { k1: 0.9, b: 1.5 }, { k1: 0.9, b: -0.1 }]) {
    assert.throws(() => assertBm25Params(bad), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  }
  assert.throws(() => new InMemoryKeywordIndex({ k1: 0.9, b: 2 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

const CORPUS: Array<[string, string]> = [
  ['d1', 'The cat sat on the mat with another cat'],
  ['d2', 'Dogs and cats are pets'],
  ['d3', 'A treatise on the economics of cat food, cat toys and cat furniture in modern households'],
  ['d4', 'Nothing relevant here at all'],
];

test('scoreCandidates (the store re-scoring path) equals the in-memory index exactly', () => {
  const index = new InMemoryKeywordIndex();
  for (const [id, text] of CORPUS) index.add(id, text);
  const query = analyzeQuery('cat furniture');
  const df: Record<string, number> = {};
  for (const t of new Set(query)) df[t] = index.documentFrequency(t);
  const rescored = scoreCandidates(query, CORPUS.map(([id, text]) => ({ id, terms: analyze(text) })), index.stats(), df);
  const direct = index.search(query, 10);
  assert.deepEqual(rescored.map((h) => h.id), direct.map((h) => h.id));
  rescored.forEach((h, i) => close(h.score, direct[i]!.score, h.id));
  assert.deepEqual(direct.map((h) => h.id), ['d3', 'd1', 'd2'], 'd4 matches nothing and is dropped');
});

test('in-memory index: limit, allow filter before ranking, equal scores in insertion order, duplicate ids refused', () => {
  const index = new InMemoryKeywordIndex();
  index.add('x', 'alpha beta');
  index.add('y', 'alpha beta');
  index.add('z', 'alpha gamma delta epsilon');
  assert.deepEqual(index.search(['alpha'], 2).map((h) => h.id), ['x', 'y']);
  assert.deepEqual(index.search(['alpha'], 10, (id) => id !== 'x').map((h) => h.id), ['y', 'z']);
  assert.deepEqual(index.search(['nothing'], 10), []);
  assert.throws(() => index.add('x', 'again'), (e: unknown) => MnemosError.is(e, 'conflict'));
  assert.deepEqual(index.stats(), { documents: 3, averageLength: 8 / 3 });
});
