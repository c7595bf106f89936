/**
 * Consolidation merges near-duplicates: the survivor stays in sight, the
 * other is archived under it (`metadata.mergedInto`). Forgetting the
 * survivor left the duplicate, the same words, readable by id and in the
 * export, and once the survivor was gone the orphan step rescued it into
 * search: the fact the user forgot came back. A forget takes the memories
 * merged into it along, names them in its preview, and leaves a tombstone
 * for each (src/services/forget.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lifecycleStore, DAY } from '../lifecycle/helpers.ts';
import { named } from '../helpers/backend.ts';

test(named('forgetting a merge survivor forgets the duplicates merged into it, so none comes back'), async () => {
  const s = await lifecycleStore();
  try {
    const a = await s.m.remember({ text: 'Yorvantis Klumberg is the CEO of Blarnocorp', key: 'note-1', importance: 0.9 });
    const b = await s.m.remember({ text: 'yorvantis klumberg is the ceo of blarnocorp!', key: 'note-2', importance: 0.6 });
    const other = await s.m.remember({ text: 'Alice Smith met Bob Jones in Paris' });
    const merged = await s.m.consolidate({ force: true });
    assert.equal(merged.counts.merged, 1, 'the two near-duplicates merge');
    const survivor = (await s.m.search('Yorvantis Blarnocorp')).hits.map((h) => h.memory);
    assert.equal(survivor.length, 1, 'search shows the one survivor');
    const kept = survivor[0]!;
    const loser = kept.lineageId === a.id ? b.id : a.id;

    const preview = await s.m.forget(kept.id);
    assert.deepEqual(
      preview.mergedDuplicates?.map((d) => d.lineageId),
      [loser],
      'the preview names the duplicate that goes with it',
    );
    const done = await s.m.confirmForget(preview.token);
    assert.deepEqual(done.mergedDuplicates?.map((d) => d.lineageId), [loser]);

    await assert.rejects(s.m.get(loser), (err: { code?: string }) => err.code === 'forgotten', 'the duplicate is forgotten too');
    const lines: string[] = [];
    await s.m.export((l) => {
      lines.push(l);
    });
    assert.ok(!lines.join('').toLowerCase().includes('yorvantis'), 'the export holds neither text');
    // The export's other lines are the two forgets' tombstones (hashes and ids, no text).
    assert.equal(lines.filter((l) => !l.includes('"record":"tombstone"')).length, 1, 'the unrelated memory stays');
    assert.equal(lines.length, 3);
    assert.equal((await s.m.get(other.id)).id, other.id);

    // Weeks later, the orphan step finds no duplicate to rescue, and re-sending either source key stays forgotten.
    s.advance(30 * DAY);
    await s.m.consolidate({ force: true });
    assert.deepEqual((await s.m.search('Yorvantis Blarnocorp')).hits, []);
    const again = await s.m.rememberMany([
      { text: 'Yorvantis Klumberg is the CEO of Blarnocorp', key: 'note-1' },
      { text: 'yorvantis klumberg is the ceo of blarnocorp!', key: 'note-2' },
    ]);
    assert.deepEqual(again.map((r) => r.status), ['forgotten', 'forgotten']);
    assert.equal((await s.m.verifyAudit()).ok, true);
    const history = await s.m.history(loser);
    assert.ok(history.tombstone, 'the duplicate has its own tombstone');
  } finally {
    await s.close();
  }
});

test(named('a merge reversed before the forget leaves the other memory alone'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Dana prefers green tea in the morning', importance: 0.9 });
    await s.m.remember({ text: 'dana prefers green tea in the morning.', importance: 0.6 });
    assert.equal((await s.m.consolidate({ force: true })).counts.merged, 1);
    const kept = (await s.m.search('Dana green tea')).hits[0]!.memory;
    await s.m.lifecycle.reverseMerge((kept.metadata.mergedFrom as { id: string }[])[0]!.id);
    const current = (await s.m.search('Dana green tea')).hits.map((h) => h.memory);
    assert.equal(current.length, 2, 'both are their own memories again');
    const preview = await s.m.forget(current[0]!.id);
    assert.equal(preview.mergedDuplicates, undefined);
    await s.m.confirmForget(preview.token);
    assert.equal((await s.m.search('Dana green tea')).hits.length, 1, 'the other one stays');
  } finally {
    await s.close();
  }
});
