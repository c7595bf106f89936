/**
 * One graph indexer per namespace (src/lifecycle/graph-lease.ts). Two runs at
 * once each resolved names against the entities they had loaded, so each made
 * its own entity for every new name and the graph held every person twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { lifecycleStore } from './helpers.ts';
import { named, rawSql } from '../helpers/backend.ts';

const PEOPLE = ['Alice Smith', 'Bob Stone', 'Carol Diaz', 'Dana Reyes', 'Omar Haddad', 'Priya Nair'];

test(named('two graph runs at once: one indexes, the other is told the graph is busy, and no name gets two entities'), async () => {
  const s = await lifecycleStore();
  const other = await openMemory({ db: s.db });
  try {
    for (let i = 0; i < 60; i++) await s.m.remember({ text: `${PEOPLE[i % PEOPLE.length]} works at Acme Corp (note ${i})` });
    const runs = await Promise.allSettled([s.m.lifecycle.indexGraph({ limit: 1000 }), other.lifecycle.indexGraph({ limit: 1000 }), other.lifecycle.reindexGraph({ all: true })]);
    const refused = runs.filter((r) => r.status === 'rejected');
    for (const r of refused) assert.equal((r.reason as { code?: string }).code, 'busy', String(r.reason));
    assert.ok(runs[0]!.status === 'fulfilled' || runs[1]!.status === 'fulfilled', 'one of the two index runs ran');
    const dup = await rawSql(s.db, 'SELECT norm, count(*) AS n FROM graph_entities GROUP BY norm, type HAVING count(*) > 1');
    assert.deepEqual(dup, [], 'no name has two entities');
    for (const p of PEOPLE) assert.equal((await s.m.lifecycle.entity(p)).entities.length, 1, p);

    // Once the run is over, the lease is free again, for the next run or a consolidation.
    await s.m.remember({ text: 'Erik Berg works at Globex' });
    assert.equal((await other.lifecycle.indexGraph()).memories, 1);
    const report = await s.m.consolidate({ force: true });
    assert.equal(report.status, 'done');
    assert.equal(report.counts.graphBusy, undefined);
  } finally {
    await other.close();
    await s.close();
  }
});

test(named('a consolidation leaves the graph to a run that holds it, and says so'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Alice Smith works at Acme Corp' });
    let report: Awaited<ReturnType<typeof s.m.consolidate>> | undefined;
    // Consolidate while a re-index holds the lease: its progress callback runs inside the lease.
    await s.m.lifecycle.indexGraph();
    await s.m.lifecycle.reindexGraph({
      all: true,
      onProgress: async () => {
        report ??= await s.m.consolidate({ force: true });
      },
    });
    assert.equal(report?.status, 'done');
    assert.equal(report?.counts.graphBusy, 1);
    assert.equal(report?.counts.graphMemories, undefined);
  } finally {
    await s.close();
  }
});
