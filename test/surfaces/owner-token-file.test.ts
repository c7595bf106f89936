import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/**
 * `npm start` saves a fresh store's owner token to ./.mnemos/owner-token. A
 * first start of another store (--db) or namespace in the same folder used
 * to overwrite that file, losing the earlier store's secret, which is shown
 * once and kept nowhere else.
 */
test(named('a first start of another store or namespace keeps the owner token file it finds'), async () => {
  const stores = testStores('mnemos-owner-token-');
  const file = join(stores.dir, 'state', 'owner-token');
  const a = await openMemory({ db: stores.db });
  const b = await openMemory({ db: stores.store('second.db') });
  try {
    const first = await a.ensureOwnerToken(file);
    assert.equal(first.created, true);
    assert.equal(first.movedAside, null, 'a new file replaces nothing');

    const second = await b.ensureOwnerToken(file);
    assert.equal(second.created, true);
    assert.ok(second.movedAside, 'the earlier token was moved aside');
    assert.equal(readFileSync(second.movedAside, 'utf8').trim(), first.token, 'the first store\'s secret is kept');
    assert.equal(statSync(second.movedAside).mode & 0o777, 0o600);
    assert.equal(readFileSync(file, 'utf8').trim(), second.token);
    assert.equal((await a.authenticate(first.token)).role, 'owner', 'the kept secret still opens the first store');

    const team = a.as({ role: 'owner', namespace: 'team', id: 'owner' });
    const third = await team.ensureOwnerToken(file);
    assert.ok(third.movedAside && third.movedAside !== second.movedAside, 'a second move never replaces the first one');
    assert.equal(readFileSync(third.movedAside, 'utf8').trim(), second.token);
    assert.equal(readdirSync(join(stores.dir, 'state')).length, 3, 'every secret is still on disk');

    const again = await a.ensureOwnerToken(file);
    assert.deepEqual([again.created, again.movedAside], [false, null], 'a later start of a store with tokens touches nothing');
    assert.equal(readFileSync(file, 'utf8').trim(), third.token);
  } finally {
    await a.close();
    await b.close();
    await stores.cleanup();
  }
});

test(named('a start whose saved owner token was revoked says so, and one with every token revoked makes a new one'), async () => {
  const stores = testStores('mnemos-owner-token-revoked-');
  const file = join(stores.dir, 'state', 'owner-token');
  const m = await openMemory({ db: stores.db });
  try {
    const first = await m.ensureOwnerToken(file);
    const spare = await m.createToken({ role: 'owner', label: 'spare' });
    const saved = (await m.listTokens()).find((t) => t.label === 'created by the first start')!;
    await assert.rejects(m.revokeToken(undefined as unknown as string), { code: 'validation_failed' }, 'an id from plain JavaScript that is no string');
    await m.revokeToken(saved.id);
    // Another owner token is live: nothing is made, and the file is not offered as if it worked.
    const stale = await m.ensureOwnerToken(file);
    assert.deepEqual([stale.created, stale.token], [false, null]);
    assert.match(stale.fileProblem ?? '', /revoked/);
    assert.equal(readFileSync(file, 'utf8').trim(), first.token, 'the file is left as it is');
    // Every token revoked: the start makes a new one, as a first start does, keeping the old file aside.
    await m.revokeToken(spare.record.id);
    const fresh = await m.ensureOwnerToken(file);
    assert.deepEqual([fresh.created, fresh.replacedRevoked], [true, true]);
    assert.equal(readFileSync(file, 'utf8').trim(), fresh.token);
    assert.equal((await m.authenticate(fresh.token!)).role, 'owner');
    assert.equal(readFileSync(fresh.movedAside!, 'utf8').trim(), first.token);
    // A working saved token is given back as before.
    const again = await m.ensureOwnerToken(file);
    assert.deepEqual([again.created, again.token, again.fileProblem], [false, fresh.token, null]);
  } finally {
    await m.close();
    await stores.cleanup();
  }
});
