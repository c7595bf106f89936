import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/**
 * An owner who edits a public memory to owner-only means to hide it from
 * guests. The earlier, public version is a row of its own: it used to answer
 * a guest's get by its id, its history and a list or search "as known at" a
 * time before the edit.
 */

const notFound = (err: unknown) => {
  assert.ok(MnemosError.is(err), String(err));
  assert.equal(err.code, 'not_found', err.message);
  return true;
};

test(named('a guest no longer reads earlier versions of a memory the owner has made owner-only'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const hidden = await m.remember({ text: 'plumtree gate code 4471', visibility: 'public' });
    const kept = await m.remember({ text: 'plumtree lobby opens at nine', visibility: 'public' });
    await new Promise((r) => setTimeout(r, 20));
    const before = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    const hiddenV2 = await m.update(hidden.id, { visibility: 'owner' });
    const keptV2 = await m.update(kept.id, { text: 'plumtree lobby opens at ten' });

    await assert.rejects(guest.get(hidden.id), notFound);
    await assert.rejects(guest.get(hiddenV2.id), notFound);
    await assert.rejects(guest.history(hidden.id), notFound);
    const past = (await guest.list({ filter: { knownAt: before } })).items.map((x) => x.text);
    assert.deepEqual(past, ['plumtree lobby opens at nine'], 'as known before the edit, only the memory still public');
    const found = (await guest.search({ query: 'plumtree gate code', filter: { knownAt: before } })).hits.map((h) => h.memory.text);
    assert.ok(!found.includes('plumtree gate code 4471'), `search as known at: ${JSON.stringify(found)}`);

    // A memory still public keeps its earlier versions readable, and the owner reads everything.
    assert.equal((await guest.get(kept.id)).text, 'plumtree lobby opens at nine');
    assert.deepEqual((await guest.history(kept.id)).versions.map((v) => v.text).sort(), ['plumtree lobby opens at nine', 'plumtree lobby opens at ten']);
    assert.equal((await guest.get(keptV2.id)).text, 'plumtree lobby opens at ten');
    assert.equal((await m.get(hidden.id)).text, 'plumtree gate code 4471');
    assert.equal((await m.history(hidden.id)).versions.length, 2);
  } finally {
    await m.close();
    await t.cleanup();
  }
});
