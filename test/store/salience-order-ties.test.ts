import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/**
 * The salience order ends in id. It ended in valid_from, and an import gives
 * a whole file one salience and one valid_from: with nothing ordering the
 * tie, PostgreSQL's top-N sort put it in a different order for each offset,
 * so paging 20,000 imported memories 50 at a time showed 13,777 of them,
 * some twice. Pages now walk one total order: salience, then valid time,
 * then id, all descending.
 */

test(named('salience_desc pages over a tie of salience and valid time show every memory once, in id order within the tie'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const validFrom = '2026-01-01T00:00:00.000Z';
    const inputs = Array.from({ length: 240 }, (_, i) => ({ text: `tied memory ${i}`, salience: i % 8 === 0 ? 0.9 : 0.3, validFrom }));
    const written = await m.rememberMany(inputs);
    const want = written
      .map((w, i) => ({ id: w.id, salience: inputs[i]!.salience }))
      .sort((a, b) => b.salience - a.salience || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((x) => x.id);
    const seen: string[] = [];
    for (let offset = 0; ; offset += 7) {
      const page = await m.list({ order: 'salience_desc', limit: 7, offset });
      seen.push(...page.items.map((x) => x.id));
      if (!page.hasMore) break;
    }
    assert.equal(new Set(seen).size, want.length, 'no memory skipped or repeated');
    assert.deepEqual(seen, want);
  } finally {
    await m.close();
    await t.cleanup();
  }
});
