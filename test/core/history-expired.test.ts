import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/**
 * A memory whose expiresAt has passed is no longer served by `get` (search and
 * list hide it too), but its history stays readable to the owner, who
 * updates or forgets it by that id and needs to see what it said. Guests and
 * agents, to whom an expired memory is served nowhere, get not_found.
 */

const notFound = (err: unknown) => {
  assert.ok(MnemosError.is(err), String(err));
  assert.equal(err.code, 'not_found', err.message);
  return true;
};

test(named('history of a memory past its expiresAt stays readable to the owner, not to guests; get answers not_found'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const soon = () => new Date(Date.now() + 80).toISOString();
    const pub = await m.remember({ text: 'lobby code 1234', visibility: 'public', expiresAt: soon() });
    const mine = await m.remember({ text: 'safe code 9876', expiresAt: soon() });
    await new Promise((r) => setTimeout(r, 150));

    for (const [who, id, text] of [[m, pub.id, 'lobby code 1234'], [m, mine.id, 'safe code 9876']] as const) {
      const h = await who.history(id);
      assert.deepEqual(h.versions.map((v) => v.text), [text]);
      assert.deepEqual(h.audit.map((e) => e.memoryId), [id]);
      await assert.rejects(who.get(id), notFound, 'get keeps hiding an expired memory (README)');
    }
    // A guest may read the public one's text until it expires, its history no longer; the owner-only one never.
    await assert.rejects(guest.history(pub.id), notFound);
    await assert.rejects(guest.get(pub.id), notFound);
    await assert.rejects(guest.history(mine.id), notFound);

    // Consolidation marks it expired; its history reads the same, and still not for the guest.
    await m.consolidate({ force: true });
    assert.deepEqual((await m.history(mine.id)).versions.map((v) => [v.id, v.lifecycle]), [[mine.id, 'expired']]);
    await assert.rejects(guest.history(mine.id), notFound);
    await assert.rejects(m.get(mine.id), notFound);
  } finally {
    await m.close();
    await t.cleanup();
  }
});
