import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchCycle, percentiles } from '../../src/cognition/bench.ts';
import { MemoryEpisodeStore } from './helpers.ts';

test('percentiles: nearest-rank p50 and p95', () => {
  const samples = Array.from({ length: 20 }, (_, i) => i + 1);
  assert.deepEqual(percentiles(samples), { runs: 20, p50Ms: 10, p95Ms: 19, maxMs: 20, cpuP95Ms: 19 });
  assert.deepEqual(percentiles([]), { runs: 0, p50Ms: 0, p95Ms: 0, maxMs: 0, cpuP95Ms: 0 });
  assert.equal(percentiles([{ wallMs: 3, cpuMs: 1 }]).cpuP95Ms, 1);
});

test('benchCycle reports integration and flush figures (small run)', async () => {
  const store = new MemoryEpisodeStore();
  const r = await benchCycle({ sink: store, sinkName: 'memory', entries: 1000, scanRuns: 3, flushEvents: 100, flushRuns: 2, warmupRuns: 1 });
  assert.equal(r.integration.entries, 1000);
  assert.equal(r.integration.runs, 3);
  assert.ok(r.integration.buffered > 0);
  assert.ok(r.integration.p95Ms >= 0);
  assert.ok(r.integration.cpuP95Ms >= 0);
  assert.ok(r.host.cpus >= 1);
  assert.equal(r.flush.events, 100);
  assert.equal(r.flush.sink, 'memory');
  assert.equal(store.batches, 3, 'one transaction per flush, the warm-up flush included');
  assert.equal(store.memories.length, 300);
});
