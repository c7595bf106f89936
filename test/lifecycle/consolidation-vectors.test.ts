/**
 * Memories can be written without a vector (embeddings off at the time, an
 * embedder outage, the cognitive cycle's sleep flush). Consolidation's
 * vectors phase gives them one, so the vector list stops missing them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

// Each change log every process follows (vectors; memory rows for the keyword copy) is cut to what the run is told to keep.
const LOGS = [
  { log: 'vector change log', keep: 'vectorLogKeep', count: 'vectorLogPruned', mode: 'vector' },
  { log: 'memory row log', keep: 'memoryLogKeep', count: 'memoryLogPruned', mode: 'keyword' },
] as const;

for (const c of LOGS) {
  test(named(`consolidation prunes the ${c.log} to the newest entries it is told to keep`), async () => {
    const stores = testStores('mnemos-log-prune-');
    const m = await openMemory({ db: stores.db, lifecycle: { [c.keep]: 2 } });
    try {
      await m.rememberMany(Array.from({ length: 6 }, (_, i) => ({ text: `tide table entry number ${i} for the harbour` })));
      const r = await m.consolidate();
      assert.equal(r.counts[c.count], 4, 'six entries, two kept');
      const again = await m.consolidate({ force: true });
      assert.equal(again.counts[c.count] ?? 0, 0);
      // Search still answers from what was kept after the prune.
      assert.equal((await m.search({ query: 'tide table harbour', mode: c.mode, limit: 10 })).hits.length, 6);
    } finally {
      await m.close();
      await stores.cleanup();
    }
  });
}

test(named('consolidation embeds memories that were written without a vector'), async () => {
  const stores = testStores('mnemos-vectors-phase-');
  const db = stores.db;
  const off = await openMemory({ db, config: { embeddings: { provider: 'off' } } });
  const lantern = await off.remember({ text: 'The lighthouse keeper polished the brass lantern every evening' });
  await off.remember({ text: 'Trains to the coast leave every hour from platform four' });
  await off.close();
  const m = await openMemory({ db });
  try {
    assert.equal((await m.search({ query: 'brass lantern polished', mode: 'vector' })).hits.length, 0, 'no vectors yet');
    const r = await m.consolidate();
    assert.equal(r.counts.embedded, 2);
    const hits = (await m.search({ query: 'brass lantern polished', mode: 'vector' })).hits;
    assert.equal(hits[0]?.memory.id, lantern.id);
    const again = await m.consolidate({ force: true });
    assert.equal(again.status, 'done');
    assert.ok(!again.counts.embedded, 'a second run finds nothing left to embed');
  } finally {
    await m.close();
    await stores.cleanup();
  }
});
