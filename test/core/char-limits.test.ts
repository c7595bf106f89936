import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { testStores } from '../helpers/backend.ts';
import { validateFactInput } from '../../src/lifecycle/ledger-rules.ts';
import { checkWrite } from '../../src/cognition/blackboard-rules.ts';

/**
 * Every length limit counts characters the way memory text does: code points,
 * so an emoji (two UTF-16 units) is one character. Forget reasons, ledger
 * values and statements, and blackboard keys and tags counted UTF-16 units:
 * 300 emoji were refused as a ledger value "of 1-500 characters".
 */

const emoji = (n: number) => '😀'.repeat(n);

test('ledger value and statement limits count characters, not UTF-16 units', () => {
  assert.doesNotThrow(() => validateFactInput({ key: 'k1', value: emoji(500), statement: emoji(300) }));
  assert.throws(() => validateFactInput({ key: 'k1', value: emoji(501) }), { code: 'validation_failed', message: /value must be 1-500 characters/ });
  assert.throws(() => validateFactInput({ key: 'k1', value: 'v', statement: emoji(301) }), { code: 'validation_failed', message: /statement must be at most 300 characters/ });
});

test('blackboard key and tag limits count characters, not UTF-16 units', () => {
  assert.doesNotThrow(() => checkWrite(emoji(256), { tags: [emoji(128)] }));
  assert.throws(() => checkWrite(emoji(257), {}), { code: 'validation_failed', message: /at most 256 characters/ });
  assert.throws(() => checkWrite('k', { tags: [emoji(129)] }), { code: 'validation_failed', message: /1 to 128 characters/ });
});

test('a forget reason is limited to 500 characters, counted as memory text counts them', async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const a = await m.remember({ text: 'the reason may be emoji' });
    await assert.rejects(m.forget(a.id, emoji(501)), { code: 'validation_failed', message: /reason must be text of 1-500 characters/ });
    await m.confirmForget((await m.forget(a.id, emoji(500))).token);
    assert.equal((await m.history(a.id)).tombstone?.reason, emoji(500));
  } finally {
    await m.close();
    await t.cleanup();
  }
});
