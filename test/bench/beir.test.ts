import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ndcgAt, recallAt, percentile, mean } from '../../src/bench/beir-metrics.ts';
import { loadBeir, parseQrels } from '../../src/bench/beir.ts';
import { benchBeir } from '../../src/bench/beir-run.ts';
import { MnemosError } from '../../src/domain/errors.ts';

const SCIFACT = resolve(process.cwd(), '../shared/datasets/scifact');
const skip = existsSync(SCIFACT) ? false : `SciFact not found at ${SCIFACT}`;
const close = (a: number, b: number): boolean => Math.abs(a - b) < 1e-12;

test('nDCG@k (trec_eval: linear gains, log2(rank + 1) discount) and recall@k', () => {
  const qrels = new Map([['a', 1], ['b', 2], ['c', 0]]);
  const idcg = 2 + 1 / Math.log2(3);
  const cases: Array<[string[], number, number, number]> = [
    [['b', 'a'], 10, 1, 1],
    [['a', 'b'], 10, (1 + 2 / Math.log2(3)) / idcg, 1],
    [['x', 'b'], 10, 2 / Math.log2(3) / idcg, 0.5],
    [['c', 'x', 'a'], 10, 1 / 2 / idcg, 0.5], // grade 0 is not relevant
    [['x', 'b'], 1, 0, 0],
    [[], 10, 0, 0],
    [['b', 'b', 'a'], 10, 1, 1], // a repeated id counts once
  ];
  for (const [ranked, k, ndcg, recall] of cases) {
    assert.ok(close(ndcgAt(ranked, qrels, k), ndcg), `ndcg ${ranked} @${k}: ${ndcgAt(ranked, qrels, k)}`);
    assert.ok(close(recallAt(ranked, qrels, k), recall), `recall ${ranked} @${k}`);
  }
  assert.equal(ndcgAt(['a'], new Map([['a', 0]]), 10), 0, 'no relevant documents');
  assert.equal(mean([]), 0);
  assert.deepEqual([50, 95, 100, 0].map((p) => percentile([5, 1, 4, 2, 3], p)), [3, 5, 5, 1]);
});

test('qrels parsing skips the header and malformed lines', () => {
  const q = parseQrels('query-id\tcorpus-id\tscore\n1\td1\t1\n1\td2\t2\n2\td3\tx\n\n');
  assert.deepEqual([...q.get('1')!], [['d1', 1], ['d2', 2]]);
  assert.equal(q.has('2'), false);
});

test('a missing BEIR folder is not_found', async () => {
  await assert.rejects(loadBeir('/nonexistent/beir'), (e: unknown) => MnemosError.is(e, 'not_found'));
});

test('SciFact gate: in-memory BM25 (k1 0.9, b 0.4) nDCG@10 and recall@100 floors', { skip }, async () => {
  const report = await benchBeir(SCIFACT);
  // Measured 0.6773 / 0.9287 (Pyserini bm25-flat: 0.6789 / 0.9253).
  assert.equal(report.queries, 300);
  assert.ok(report['ndcg@10'] >= 0.67, `nDCG@10 ${report['ndcg@10']}`);
  assert.ok(report['recall@100'] >= 0.92, `recall@100 ${report['recall@100']}`);
});
