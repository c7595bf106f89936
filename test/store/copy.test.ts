import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { tempDir } from '../helpers/temp.ts';
import { named, postgresOnly, sqliteOnly, testStores } from '../helpers/backend.ts';
import { dropSchema, freshSchema } from '../helpers/pg-env.ts';

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY: false });
  return { code, out, err };
}

/** A store with every kind of row: edited (superseded versions), archived, touched, source-keyed, forgotten; and ledger facts active, superseded and retired. */
async function seed(db: string): Promise<void> {
  const m = await openMemory({ db });
  try {
    const a = await m.remember({ text: 'Copy me: the first fact', type: 'fact', tags: ['x', 'y'], key: 'doc:1', metadata: { n: 1 } });
    await m.remember({ text: 'A preference, shared', type: 'preference', visibility: 'shared', validFrom: '2025-01-01T00:00:00Z', validTo: '2025-12-31T00:00:00Z' });
    await m.update(a.id, { text: 'Copy me: the first fact, edited' });
    const b = await m.remember({ text: 'to be archived', expiresAt: '2099-01-01T00:00:00Z' });
    await m.store.apply(m.principal, [{ kind: 'lifecycle', id: b.id, from: 'generated', to: 'archived', reason: 'owner' }, { kind: 'touch', ids: [b.id], at: '2026-01-02T03:04:05.006Z' }]);
    const gone = await m.remember({ text: 'forgotten before the copy' });
    const prev = await m.forget(gone.id);
    await m.confirmForget(prev.token);
    await m.lifecycle.pin({ key: 'user.home_city', value: 'Lisbon' });
    await m.lifecycle.pin({ key: 'user.home_city', value: 'Porto' });
    await m.lifecycle.pin({ key: 'project.db', value: 'SQLite' });
    await m.lifecycle.retire('project.db');
    await m.lifecycle.learn({ key: 'user.tea', value: 'green', confidence: 0.8 });
  } finally {
    await m.close();
  }
}

/** Every ledger fact of a store, history included, in id order. */
async function ledgerOf(db: string): Promise<unknown[]> {
  const m = await openMemory({ db });
  try {
    return (await m.store.ledger!.list(m.principal, { status: ['active', 'superseded', 'retired'], limit: 1000 })).sort((a, b) => (a.id < b.id ? -1 : 1));
  } finally {
    await m.close();
  }
}

async function exportOf(db: string): Promise<string> {
  const r = await cli(['export', '--db', db]);
  assert.equal(r.code, 0, r.err);
  return r.out;
}

// The PostgreSQL answer is checked in the copy test below.
test('migrate prints the schema version of a SQLite store', sqliteOnly('asks a SQLite file'), async () => {
  const tmp = tempDir();
  try {
    const r = await cli(['migrate', '--db', join(tmp.dir, 'm.db'), '--json']);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    assert.equal(out.backend, 'sqlite');
    assert.ok(out.schemaVersion >= 1);
  } finally {
    tmp.cleanup();
  }
});

// Needs both backends at once, so it belongs to the pass that has a server.
test('copy SQLite -> PostgreSQL -> SQLite gives an identical export', postgresOnly('copies between both backends'), async () => {
  const tmp = tempDir();
  const { schema, url } = freshSchema('copy');
  try {
    const src = join(tmp.dir, 'src.db');
    const back = join(tmp.dir, 'back.db');
    await seed(src);
    const mig = await cli(['migrate', '--db', url, '--json']);
    assert.equal(mig.code, 0, mig.err);
    assert.equal(JSON.parse(mig.out).backend, 'postgres');
    const password = new URL(url).password;
    if (password) assert.ok(!JSON.parse(mig.out).location.includes(`:${password}@`), 'the location never shows the password');

    const there = await cli(['copy', '--from', src, '--to', url, '--json']);
    assert.equal(there.code, 0, there.err);
    const r1 = JSON.parse(there.out);
    assert.equal(r1.verified, true);
    assert.equal(r1.copied, 4);
    assert.deepEqual(r1.ledger, { copied: 4, unchanged: 0, verified: true }, 'the ledger came too: the active, superseded and retired facts');
    assert.deepEqual(r1.restored, { ledgerPending: 0, tombstones: 1, unchanged: 0 }, 'the tombstone came too');
    const again = JSON.parse((await cli(['copy', '--from', src, '--to', url, '--json'])).out);
    assert.deepEqual([again.copied, again.unchanged, again.verified], [0, 4, true], 'a second copy is idempotent');
    assert.deepEqual(again.ledger, { copied: 0, unchanged: 4, verified: true });
    assert.deepEqual(again.restored, { ledgerPending: 0, tombstones: 0, unchanged: 1 });

    const home = await cli(['copy', '--from', url, '--to', back, '--json']);
    assert.equal(home.code, 0, home.err);
    const original = await exportOf(src);
    // Four memory versions, then the four ledger facts and the forgotten memory's tombstone.
    assert.equal(original.trim().split('\n').filter((l) => !l.includes('"record":')).length, 4);
    assert.equal(original.trim().split('\n').length, 9);
    assert.equal(await exportOf(url), original);
    assert.equal(await exportOf(back), original);
    const facts = await ledgerOf(src);
    assert.equal(facts.length, 4);
    assert.deepEqual(await ledgerOf(url), facts, 'every fact, field for field');
    assert.deepEqual(await ledgerOf(back), facts);
    const verify = await cli(['audit', 'verify', '--db', url, '--json']);
    assert.equal(verify.code, 0, verify.out);
  } finally {
    tmp.cleanup();
    await dropSchema(schema);
  }
});

const plainNow = (page: { items: { id: string; text: string }[] }) => page.items.find((x) => x.text.startsWith('the boiler'))!.id;

test(named('copy run again after the source moved on brings the target up to date: one current version, the same export'), async () => {
  const tmp = tempDir();
  const target = testStores();
  try {
    const src = join(tmp.dir, 'moving.db');
    const m = await openMemory({ db: src });
    const plain = await m.remember({ text: 'the boiler was serviced in March' });
    const keyed = await m.remember({ text: 'the spare key is under the mat', key: 'rk' });
    const other = await m.remember({ text: 'the gate code is on the fridge' });
    await m.close();
    const first = JSON.parse((await cli(['copy', '--from', src, '--to', target.db, '--json'])).out);
    assert.deepEqual([first.copied, first.verified], [3, true]);

    // The source moves on: new versions (one under a key), a lifecycle move, a recall.
    const again = await openMemory({ db: src });
    await again.update(plain.id, { text: 'the boiler was serviced in April' });
    await again.update(keyed.id, { text: 'the spare key is with the neighbour' });
    await again.store.apply(again.principal, [{ kind: 'lifecycle', id: other.id, from: 'generated', to: 'archived', reason: 'owner' }, { kind: 'touch', ids: [other.id], at: '2026-05-01T00:00:00.000Z' }]);
    await again.close();

    const second = await cli(['copy', '--from', src, '--to', target.db, '--json']);
    assert.equal(second.code, 0, second.out + second.err);
    const r = JSON.parse(second.out);
    assert.deepEqual([r.copied, r.updated, r.verified], [2, 3, true], 'two new versions; two closed and one archived and recalled in the target');
    assert.equal(await exportOf(target.db), await exportOf(src));
    const t = await openMemory({ db: target.db });
    try {
      const current = (await t.list({ limit: 10 })).items.map((x) => x.text).sort();
      assert.deepEqual(current, ['the boiler was serviced in April', 'the spare key is with the neighbour'], 'one current version of each');
      const v = await t.verifyAudit();
      assert.equal(v.ok, true, JSON.stringify(v.memoryProblems));
    } finally {
      await t.close();
    }
    const third = JSON.parse((await cli(['copy', '--from', src, '--to', target.db, '--json'])).out);
    assert.deepEqual([third.copied, third.updated, third.unchanged, third.verified], [0, 0, 5, true], 'and a third run changes nothing');

    // Both stores go on from one version, each its own way: refused, nothing written.
    const t2 = await openMemory({ db: target.db });
    const ownNext = await t2.update(plainNow(await t2.list({ limit: 10 })), { text: 'the boiler was serviced in May' });
    await t2.close();
    const s2 = await openMemory({ db: src });
    await s2.update(plainNow(await s2.list({ limit: 10 })), { text: 'the boiler was serviced in June' });
    await s2.close();
    const forked = await cli(['copy', '--from', src, '--to', target.db, '--json']);
    assert.equal(forked.code, 5, forked.out);
    assert.equal(JSON.parse(forked.out).error.code, 'conflict');
    const t3 = await openMemory({ db: target.db });
    try {
      assert.deepEqual((await t3.list({ limit: 10 })).items.map((x) => x.text).sort(), ['the boiler was serviced in May', 'the spare key is with the neighbour'], 'nothing of the fork was written');
      assert.equal((await t3.get(ownNext.id)).supersededAt, null);
    } finally {
      await t3.close();
    }
  } finally {
    tmp.cleanup();
    await target.cleanup();
  }
});

test(named('copy refuses two spellings of one store, as it refuses the same one twice'), async () => {
  const stores = testStores('mnemos-copy-self-');
  try {
    await seed(stores.db);
    // Another spelling: a path through its own folder, or the URL with a lock_timeout (removed before connecting).
    const other = stores.db.startsWith('postgres') ? `${stores.db}&lock_timeout=9000` : `${stores.dir}/./sub/../${stores.db.slice(stores.dir.length + 1)}`;
    assert.notEqual(other, stores.db);
    const r = await cli(['copy', '--from', stores.db, '--to', other, '--json']);
    assert.equal(r.code, 2, r.out + r.err);
    assert.equal(JSON.parse(r.out).error.code, 'validation_failed');
    assert.match(r.err, /name the same store/);
  } finally {
    await stores.cleanup();
  }
});
