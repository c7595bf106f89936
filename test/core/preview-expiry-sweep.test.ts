/**
 * Previews never confirmed must not pile up: each one is a pending_changes row
 * holding the proposed change (an edit's new text), and before the sweep a
 * server whose agents previewed without confirming kept every one for good.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

const pendingRows = async (db: string) => Number((await rawSql(db, 'SELECT count(*) AS n FROM pending_changes'))[0]!.n);
const MINUTE = 60_000;

test(named('a new preview deletes the expired, unconfirmed ones of every caller and keeps the live ones'), async () => {
  const { db, cleanup } = testStores('mnemos-preview-sweep-');
  const clock = { t: Date.parse('2026-03-01T10:00:00Z') };
  try {
    const owner = await openMemory({ db, now: () => clock.t });
    const guest = owner.as({ role: 'guest', id: 'g-1', namespace: 'default' });
    try {
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push((await owner.remember({ text: `note number ${i} about the harbour` })).id);
      const own = (await guest.remember({ text: 'the guest note about the harbour' })).id;
      const stale: string[] = [];
      for (const id of ids) stale.push((await owner.previewUpdate(id, { text: `a proposed text for ${id}` })).token);
      stale.push((await owner.forget(ids[0]!)).token);
      stale.push((await guest.forget(own)).token);
      assert.equal(await pendingRows(db), 7);

      // Ten minutes on: nothing has expired (15 minutes), so nothing goes.
      clock.t += 10 * MINUTE;
      const live = (await owner.previewUpdate(ids[1]!, { text: 'still pending' })).token;
      assert.equal(await pendingRows(db), 8);

      // Twenty minutes after the first previews: those seven have expired, the one from minute ten has not.
      clock.t += 10 * MINUTE;
      await guest.previewUpdate(own, { text: 'the guest changes its note' });
      assert.equal(await pendingRows(db), 2, 'the expired previews are deleted, the live one and the new one stay');

      // Confirming an expired token is refused as before; the live one still works.
      await assert.rejects(owner.confirmUpdate(stale[0]!), (e: { code?: string }) => e.code === 'invalid_token');
      await owner.confirmUpdate(live);
      assert.equal(await pendingRows(db), 1);
    } finally {
      await owner.close();
    }
  } finally {
    await cleanup();
  }
});
