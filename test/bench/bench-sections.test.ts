import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { beirSection, locomoSection } from '../../src/surfaces/cli/commands/bench-retrieval-commands.ts';
import type { LocomoReport } from '../../src/bench/locomo-harness.ts';
import type { BeirReport } from '../../src/bench/beir.ts';

/** What the retrieval benches write to BENCHMARKS.md: comparisons only of like with like. */

const report = (ks: number[]) =>
  ({ questions: 10, recall: Object.fromEntries(ks.map((k) => [String(k), k / 100])), byCategory: {}, msPerQuery: { p50: 1, p95: 2 } }) as unknown as LocomoReport;

test('LoCoMo: each published figure sits under its own k, another k set gets its own section, and the command says --k', () => {
  const rows: [number[], boolean, string, string][] = [
    [[5, 10, 25, 50], false, 'locomo-hybrid', '| published: DRAGON over turns (paper) | 56.7 | 66.2 | 76.7 | 82.7 |'],
    // Under --k 10,50 the paper's R@5 and R@10 sat under R@10 and R@50.
    [[10, 50], true, 'locomo-hybrid-k10-50', '| published: DRAGON over turns (paper) | 66.2 | 82.7 |'],
    [[1, 10], true, 'locomo-hybrid-k1-10', '| published: plain BM25 over turns | - | 59.8 |'],
    // The default set given explicitly is the default run.
    [[5, 10, 25, 50], true, 'locomo-hybrid', '| published: plain BM25 over turns | 51.7 | 59.8 | 69.5 | 75.4 |'],
  ];
  for (const [ks, kGiven, name, line] of rows) {
    const s = locomoSection(report(ks), { mode: 'hybrid', graph: false, ks, kGiven, machine: 'm' });
    assert.equal(s.name, name);
    assert.ok(s.body.split('\n').includes(line), `${ks}: ${s.body}`);
    assert.equal(s.body.includes(` --k ${ks.join(',')}\``), name !== 'locomo-hybrid');
  }
  // Keyword mode trains no model, and says so by not claiming it.
  const kw = locomoSection(report([5]), { mode: 'keyword', graph: false, ks: [5], kGiven: false, machine: 'm' });
  assert.doesNotMatch(kw.body, /embedder is trained/);
  assert.match(locomoSection(report([5]), { mode: 'vector', graph: false, ks: [5], kGiven: false, machine: 'm' }).body, /embedder is trained/);
  assert.match(kw.body, /session date/);
});

test("BEIR: SciFact keeps its section, target and published row; another folder writes its own section without them", () => {
  const r = { queries: 28, 'ndcg@10': 0.7, 'recall@100': 0.9 } as unknown as BeirReport;
  const sci = beirSection(r, { dir: '../shared/datasets/beir/scifact', mode: 'keyword', machine: 'm' });
  assert.equal(sci.name, 'beir-keyword');
  assert.match(sci.body, /published: Pyserini bm25-flat \(SciFact\)/);
  assert.match(sci.body, /nDCG@10 >= 0\.67/);
  const other = beirSection(r, { dir: '/tmp/nf sub/', mode: 'keyword', machine: 'm' });
  assert.equal(other.name, 'beir-nf-sub-keyword');
  assert.doesNotMatch(other.body, /SciFact|0\.67/);
  // `.` names the folder it stands for.
  assert.equal(beirSection(r, { dir: '.', mode: 'keyword', machine: 'm' }).name, `beir-${basename(process.cwd()).toLowerCase().replace(/[^a-z0-9]+/g, '-')}-keyword`);
});
