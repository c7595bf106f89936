import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { benchCluster, benchJournal } from '../../src/journal/bench.ts';
import { Journal } from '../../src/journal/journal.ts';
import { clusterProblems } from '../../src/journal/validate.ts';
import { tempDir } from './fixtures/example.ts';

test('bench clusters are valid records', () => {
  for (const i of [0, 1, 57, 9999]) assert.deepEqual(clusterProblems(benchCluster(i)), []);
});

test('benchJournal returns figures for a small run and leaves a valid journal', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await benchJournal({ clusters: 40, dir, queries: 60, batchSize: 8 });
    assert.equal(r.clusters, 40);
    assert.equal(r.queries, 60);
    assert.ok(r.appendTotalS > 0 && r.appendClustersPerS > 0);
    assert.ok(r.queryP50Ms >= 0 && r.queryP95Ms >= r.queryP50Ms && r.queryMaxMs >= r.queryP95Ms);
    const journal = await Journal.open(join(dir, 'bench-40.metta'), { readOnly: true });
    assert.equal(journal.clusters().length, 40);
    assert.equal(r.journalBytes > 0, true);
    await assert.rejects(benchJournal({ clusters: 40, dir }), (e: unknown) => MnemosError.is(e, 'conflict'));
    await assert.rejects(benchJournal({ clusters: 0, dir }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  } finally {
    cleanup();
  }
});
