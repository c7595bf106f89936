import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { MnemosError, openMemory, type MigrationProgress } from '../../src/index.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';
import { REANALYSIS_MIGRATION, backBeforeReanalysis, spacelessTexts } from '../helpers/pre-reanalysis.ts';

/**
 * The first open after an upgrade re-analyses every text of a script
 * without spaces, minutes on a large store, and said nothing meanwhile.
 * 2,500 texts: more than one progress step (1,000 texts) on both backends.
 */
const TEXTS = 2500;

test(named('a store upgraded on open reports the re-indexing as rising counts that end at the total'), async () => {
  const t = testStores();
  try {
    const m = await openMemory({ db: t.db });
    try {
      await m.rememberMany([...spacelessTexts(TEXTS), 'harbour lights at dusk', 'a second English note'].map((text) => ({ text })));
    } finally {
      await m.close();
    }
    await backBeforeReanalysis(t.db);

    const heard: MigrationProgress[] = [];
    const again = await openMemory({ db: t.db, onProgress: (p) => heard.push(p) });
    try {
      const ours = heard.filter((p) => p.migration === REANALYSIS_MIGRATION);
      assert.ok(ours.length >= 3, `a start, an end and counts between them: ${JSON.stringify(ours.map((p) => p.done))}`);
      assert.equal(ours[0]!.done, 0, 'the first event comes before any text is done');
      const last = ours[ours.length - 1]!;
      assert.equal(last.total, TEXTS, 'the English texts are not counted: they are not re-indexed');
      assert.equal(last.done, last.total);
      for (let i = 1; i < ours.length; i++) {
        assert.ok(ours[i]!.done > ours[i - 1]!.done, `done rises: ${ours[i - 1]!.done} then ${ours[i]!.done}`);
        assert.ok(ours[i]!.total >= ours[i - 1]!.total, 'total never falls');
      }
      for (const p of ours) assert.ok(p.done <= p.total);
      assert.match(ours[0]!.name, /full-text terms again/);
      // The work the events describe was done: the texts are found by a word inside them.
      const hits = (await again.search({ query: 'กรุงเทพ', mode: 'keyword', limit: 5 })).hits;
      assert.equal(hits.length, 5);
    } finally {
      await again.close();
    }

    // Up to date: the next open hears nothing.
    const quiet: MigrationProgress[] = [];
    const third = await openMemory({ db: t.db, onProgress: (p) => quiet.push(p) });
    await third.close();
    assert.deepEqual(quiet, []);
  } finally {
    await t.cleanup();
  }
});

test(named('an English store upgrades without a progress event'), async () => {
  const t = testStores();
  try {
    const m = await openMemory({ db: t.db });
    try {
      await m.rememberMany([{ text: 'harbour lights at dusk' }, { text: 'the build ran on host 7' }]);
    } finally {
      await m.close();
    }
    await backBeforeReanalysis(t.db);
    const heard: MigrationProgress[] = [];
    const again = await openMemory({ db: t.db, onProgress: (p) => heard.push(p) });
    await again.close();
    assert.deepEqual(heard, []);
  } finally {
    await t.cleanup();
  }
});

test(named('an onProgress that is not a function is refused before the store opens'), async () => {
  const t = testStores();
  try {
    await assert.rejects(openMemory({ db: t.db, onProgress: 'verbose' as never }), (err: MnemosError) => err.code === 'validation_failed' && err.details?.field === 'onProgress');
    if (BACKEND === 'sqlite') assert.equal(existsSync(t.db), false, 'no store file was made');
  } finally {
    await t.cleanup();
  }
});
