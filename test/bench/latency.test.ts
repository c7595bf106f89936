/**
 * `bench latency` end to end on a small store: the figures it reports come
 * from real searches, and the fresh handle's first search is the streamed
 * one (no vector copy), its second the loaded copy's.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchLatency } from '../../src/bench/latency.ts';

test('bench latency reports ordered percentiles, the index that answered and a fresh handle\'s first two searches', async () => {
  const r = await benchLatency({ n: 400, queries: 20 });
  assert.equal(r.memories, 400);
  for (const s of [r.hybridSearchMs, r.keywordSearchMs, r.afterWriteSearchMs]) {
    assert.ok(s.p50 > 0 && s.p50 <= s.p95 && s.p95 <= s.p99, JSON.stringify(s));
  }
  assert.equal(r.vectorIndex.kind, 'exact');
  assert.ok(r.freshHandle.firstSearchMs > 0 && r.freshHandle.secondSearchMs > 0);
  assert.match(r.freshHandle.firstIndexReason ?? '', /first search of this model/);
  assert.ok(r.ingestPerSecond > 0 && r.peakRssMiB > 0);
});
