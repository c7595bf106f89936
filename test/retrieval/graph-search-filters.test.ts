import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

test(named('the graph list honours every search filter: as-of, known-at and lifecycle, not only type and tags'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const { id } = await m.remember({ text: 'Dana Reyes lives in Lisbon with her two cats', validFrom: '2020-01-01', validTo: '2022-01-01' });
    await m.consolidate({ force: true });
    // The entity's memory is in the graph list for this query.
    assert.deepEqual(await m.lifecycle.graphCandidates('where does Dana Reyes live', 10), [id]);
    const hitsFor = async (filter: Record<string, unknown>) => (await m.search({ query: 'where does Dana Reyes live', filter })).hits.map((h) => h.memory.id);
    assert.deepEqual(await hitsFor({ asOf: '2021-06-01' }), [id]);
    for (const filter of [{ asOf: '2019-01-01' }, { asOf: '2025-01-01' }, { knownAt: '2000-01-01' }, { lifecycles: ['archived'] }]) {
      assert.deepEqual(await hitsFor(filter), [], JSON.stringify(filter));
    }
    await m.close();
  } finally {
    await cleanup();
  }
});
