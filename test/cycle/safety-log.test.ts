import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, linkSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import type { MnemosError } from '../../src/domain/errors.ts';
import { join } from 'node:path';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import { VolatileEventLog } from '../../src/cognition/durable-log.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { legacySafetyLogName, openSafetyLog, safetyLogName } from '../../src/services/cycle/safety-log.ts';
import { pgDataIdentity, pgIdentityText, searchPathSchema } from '../../src/services/pg-data-identity.ts';
import { legacyStoreIdentities, storeIdentity } from '../../src/services/state-dir.ts';
import { adoptLegacyStateFile, stateFileInPlace } from '../../src/services/state-files.ts';
import { tempDir } from '../helpers/temp.ts';

const sqlite = (location: string) => ({ backend: 'sqlite', location });
const pg = (location: string) => ({ backend: 'postgres', location });

test('storeIdentity: each store its own, the same store one however it is spelt', () => {
  const table: Array<[a: { backend: string; location: string }, b: { backend: string; location: string }, same: boolean]> = [
    [sqlite('/d/X.db'), sqlite('/d/Y.db'), false],
    [sqlite('/d/X.db'), sqlite('/d/./X.db'), true],
    [sqlite('/d/X.db'), sqlite('/e/X.db'), true], // another folder has another log file anyway; a moved folder keeps its log
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?schema=b'), false],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://other:***@h:5432/db?schema=a'), true], // same data, another user
    [pg('postgres://u:***@h:5432/db'), pg('postgres://u:***@h:5432/db2'), false],
    [pg('postgres://u:***@h:5432/db'), pg('postgres://u:***@h2:5432/db'), false],
    // Settings that leave the data where it is do not make another store: they moved its journal and logs.
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?sslmode=disable&schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?application_name=x&schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=-c+statement_timeout%3D5000&schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u@h:5432/db?password=***&schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@H:5432/db?schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h/db?schema=a'), true], // 5432 is pg's default
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgresql://u:***@h:5432/db?schema=a'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5433/db?schema=a'), false],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@other:5432/db?host=h&schema=a'), true], // pg lets ?host= win
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?port=5433&schema=a'), false],
    // The schema however it is given: ?schema= or a search_path in ?options= (first schema, last setting wins).
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=-c%20search_path%3Da'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=-csearch_path%3DA,public'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=--search-path%3D%22a%22'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=-c%20search_path%3Db%20-c%20search_path%3Da'), true],
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db?options=-c%20search_path%3D%22A%22'), false], // a quoted name keeps its case
    [pg('postgres://u:***@h:5432/db?schema=a'), pg('postgres://u:***@h:5432/db'), false],
    [pg('postgres://u:***@h:5432/db?schema=u'), pg('postgres://u:***@h:5432/db?options=-c%20search_path%3D%22%24user%22,public'), true],
    [pg('postgres://u:***@h:5432/db?schema=u'), pg('postgres://v:***@h:5432/db?options=-c%20search_path%3D%22%24user%22,public'), false],
  ];
  for (const [a, b, same] of table) {
    const ia = storeIdentity(a)!;
    const ib = storeIdentity(b)!;
    assert.equal(safetyLogName(ia, 'default') === safetyLogName(ib, 'default'), same, `${a.location} vs ${b.location}`);
    assert.notEqual(safetyLogName(ia, 'default'), legacySafetyLogName('default'));
  }
  assert.equal(storeIdentity(sqlite(':memory:')), null);
  assert.doesNotMatch(storeIdentity(pg('postgres://u:secret@h/db'))!, /secret|u@/, 'credentials are not part of the identity');
});

test('pgDataIdentity falls back as pg does for what the URL leaves out', () => {
  const id = (url: string, env: Record<string, string> = {}) => pgDataIdentity(url, env);
  assert.deepEqual(id('postgres://u:***@h/'), { host: 'h', port: '5432', database: 'u', schema: null }, 'no database: the user\'s');
  assert.deepEqual(id('postgres://u:***@h/', { PGDATABASE: 'd', PGPORT: '6000' }), { host: 'h', port: '6000', database: 'd', schema: null });
  assert.deepEqual(id('postgres:///db', { PGHOST: '/var/run/postgresql' }), { host: '/var/run/postgresql', port: '5432', database: 'db', schema: null });
  assert.equal(id('postgres://u@[::1]:5432/db?schema=s')!.host, '::1');
  assert.equal(pgIdentityText(id('postgres://u@[::1]:5432/db?schema=s')!), 'postgres://[::1]:5432/db?schema=s');
  assert.equal(searchPathSchema('-c statement_timeout=5s', 'u'), null, 'options without a search_path name no schema');
  assert.equal(searchPathSchema('-c search_path=my\\ schema', 'u'), 'my schema', 'a backslash keeps a space in the word');
});

function ev(id: string): EpisodicEvent {
  return {
    eventId: id,
    blackboardKey: 'safety.verification_blocked',
    valueSnapshot: { id },
    salience: 1,
    tick: 1,
    timestamp: '2025-01-01T00:00:00.000Z',
    sourceModule: 'safety',
    tags: [],
    alwaysConsolidate: true,
    consolidated: false,
  };
}

async function legacyLog(dir: string, ids: string[]): Promise<string> {
  const path = join(dir, legacySafetyLogName('default'));
  const log = await FileDurableEventLog.open(path);
  for (const id of ids) await log.append(ev(id));
  await log.close();
  return path;
}
const fakeSqlite = (path: string) => writeFileSync(path, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(84)]));

test('a legacy shared log is adopted by the only SQLite store of its folder, and then by no other', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  fakeSqlite(join(tmp.dir, 'X.db'));
  const legacy = await legacyLog(tmp.dir, ['A', 'B']);
  const { log, notice } = await openSafetyLog(sqlite(join(tmp.dir, 'X.db')), tmp.dir, 'default');
  assert.equal(notice, undefined);
  assert.deepEqual((await log.pending()).map((e) => e.eventId), ['A', 'B'], 'pending events are not lost on upgrade');
  await log.close();
  assert.equal(existsSync(legacy), false);
  assert.equal(existsSync(`${legacy}.adopted`), true, 'kept, under a name no store reads');
  // A store created later in the folder starts empty.
  fakeSqlite(join(tmp.dir, 'Y.db'));
  const y = await openSafetyLog(sqlite(join(tmp.dir, 'Y.db')), tmp.dir, 'default');
  assert.deepEqual(await y.log.pending(), []);
  await y.log.close();
  // And X still has them after a reopen.
  const again = await openSafetyLog(sqlite(join(tmp.dir, 'X.db')), tmp.dir, 'default');
  assert.deepEqual((await again.log.pending()).map((e) => e.eventId), ['A', 'B']);
  await again.log.close();
});

test('a legacy log that may be another store\'s is left in place, with a notice saying how to replay it', async (t) => {
  const cases: Array<[what: string, setup: (dir: string) => { backend: string; location: string }]> = [
    ['two SQLite stores in the folder', (dir) => (fakeSqlite(join(dir, 'X.db')), fakeSqlite(join(dir, 'Y.db')), sqlite(join(dir, 'Y.db')))],
    ['a server database (./.mnemos is shared by every server store)', () => pg('postgres://u:***@h:5432/db?schema=a')],
  ];
  for (const [what, setup] of cases) {
    const tmp = tempDir();
    t.after(tmp.cleanup);
    const store = setup(tmp.dir);
    const legacy = await legacyLog(tmp.dir, ['A']);
    const { log, notice } = await openSafetyLog(store, tmp.dir, 'default');
    assert.deepEqual(await log.pending(), [], what);
    assert.match(notice ?? '', /1 unconsolidated safety event.*--log/, what);
    await log.close();
    const kept = await FileDurableEventLog.open(legacy);
    assert.deepEqual((await kept.pending()).map((e) => e.eventId), ['A'], `${what}: untouched`);
    await kept.close();
  }
});

test('an in-memory store gets a volatile log: its events die with it, never recovered into another store', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const { log } = await openSafetyLog(sqlite(':memory:'), tmp.dir, 'default');
  assert.ok(log instanceof VolatileEventLog);
});

// Named by the whole URL, a server store's log moved with every ?sslmode= or ?application_name=, and
// the pending safety events under the old name were never consolidated.
test('a server store\'s log named by its whole URL in an earlier version is taken over whole; two logs of one store are refused', async (t) => {
  const oldName = (location: string) => {
    const u = new URL(location);
    u.username = '';
    u.password = '';
    return safetyLogName(`postgres:${u.toString()}`, 'default');
  };
  const variant = pg('postgres://u:***@h:5432/db?sslmode=disable&schema=a');
  const plain = pg('postgres://u:***@h:5432/db?schema=a');
  assert.notEqual(oldName(variant.location), safetyLogName(storeIdentity(variant)!, 'default'));
  assert.equal(oldName(plain.location), safetyLogName(storeIdentity(plain)!, 'default'), 'the plain URL keeps its name: nothing to move');

  // Only the old name: renamed, history and all.
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const old = join(tmp.dir, oldName(variant.location));
  const seed = await FileDurableEventLog.open(old);
  for (const id of ['A', 'B']) await seed.append(ev(id));
  await seed.markConsolidated(['A']);
  await seed.close();
  const { log, notice } = await openSafetyLog(variant, tmp.dir, 'default');
  assert.equal(notice, undefined);
  assert.deepEqual((await log.pending()).map((e) => e.eventId), ['B']);
  await log.close();
  assert.equal(existsSync(old), false);
  const byPlain = await openSafetyLog(plain, tmp.dir, 'default');
  assert.deepEqual((await byPlain.log.pending()).map((e) => e.eventId), ['B'], 'the same store spelt without ?sslmode= finds them');
  await byPlain.log.close();

  // Both names hold a log: which one is the store's cannot be chosen without losing the other's
  // events, so opening refuses with conflict, names both, and leaves both as they were.
  const other = pg('postgres://u:***@h:5432/db?application_name=x&schema=a');
  const old2 = join(tmp.dir, oldName(other.location));
  const seed2 = await FileDurableEventLog.open(old2);
  await seed2.append(ev('C'));
  await seed2.close();
  const current = join(tmp.dir, safetyLogName(storeIdentity(other)!, 'default'));
  const before = [readFileSync(current, 'utf8'), readFileSync(old2, 'utf8')];
  await assert.rejects(openSafetyLog(other, tmp.dir, 'default'), (err: MnemosError) => {
    assert.equal(err.code, 'conflict');
    assert.ok(err.message.includes(current) && err.message.includes(old2), err.message);
    return true;
  });
  assert.deepEqual([readFileSync(current, 'utf8'), readFileSync(old2, 'utf8')], before, 'nothing changed');
  assert.equal(existsSync(`${old2}.adopted`), false);
});

// A PostgreSQL store keeps its identity in its schema (MemoryStore.identity); the URL only says where its old files may be.
test('a stored identity names the store; the names its URL gave in earlier versions are the old ones, newest first', () => {
  const url = 'postgres://u:***@localhost/db?sslmode=disable&schema=a';
  const store = { backend: 'postgres', location: url, identity: 'postgres:store:0b6f6c1e-8a58-4c1b-9d2c-3f9e2f7b1a11' };
  assert.equal(storeIdentity(store), store.identity);
  assert.deepEqual(legacyStoreIdentities(store), ['postgres:postgres://localhost:5432/db?schema=a', 'postgres:postgres://localhost/db?sslmode=disable&schema=a']);
  assert.deepEqual(legacyStoreIdentities(sqlite('/d/X.db')), [], 'a SQLite file never had another name');
  assert.deepEqual(legacyStoreIdentities({ ...store, location: 'postgres://u@localhost:5432/db?schema=a' }), ['postgres:postgres://localhost:5432/db?schema=a'], 'one old name when both versions gave the same');
});

test('taking over an old state file: two names of one file are one file; a locked old file is used where it is', (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const current = join(tmp.dir, 'new.jsonl');
  const a = join(tmp.dir, 'a.jsonl');
  const b = join(tmp.dir, 'b.jsonl');
  writeFileSync(a, 'one\n');
  linkSync(a, b); // an earlier take-over that could not unlink leaves a second name of the same file
  writeFileSync(`${a}.lock`, '{}');
  assert.equal(adoptLegacyStateFile(current, [a, b]), a, 'locked by a writer of an earlier version: not moved');
  assert.equal(existsSync(current), false);
  unlinkSync(`${a}.lock`);
  writeFileSync(`${a}.head`, 'h');
  assert.equal(adoptLegacyStateFile(current, [a, b], ['.head']), current);
  assert.equal(readFileSync(current, 'utf8'), 'one\n');
  assert.equal(readFileSync(`${current}.head`, 'utf8'), 'h');
  assert.equal(existsSync(a), false);
  assert.equal(adoptLegacyStateFile(current, [a, b]), current, 'b is the same file as the current one: no conflict');
  writeFileSync(a, 'two\n');
  assert.throws(() => adoptLegacyStateFile(current, [a, b]), (err: MnemosError) => err.code === 'conflict' && err.message.includes(current) && err.message.includes(a));
  assert.equal(readFileSync(a, 'utf8'), 'two\n');
  assert.equal(stateFileInPlace(current, [a, b]), current, 'a report shows the current file and refuses nothing');
});

test('a take-over killed after its link is finished at the next use: the companions move and the old name goes', (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const current = join(tmp.dir, 'new.metta');
  const old = join(tmp.dir, 'old.metta');
  writeFileSync(old, 'one\n');
  // What a process killed between linkSync and moving the companions leaves: two names of one file, the
  // batch intent and the head still beside the old one. Read by the current name, the intent was never seen.
  linkSync(old, current);
  writeFileSync(`${old}.batch`, '{"from":4,"bytes":10,"records":2}');
  writeFileSync(`${old}.head`, 'h');
  assert.equal(adoptLegacyStateFile(current, [old], ['.batch', '.head']), current);
  assert.equal(readFileSync(`${current}.batch`, 'utf8'), '{"from":4,"bytes":10,"records":2}');
  assert.equal(readFileSync(`${current}.head`, 'utf8'), 'h');
  assert.equal(existsSync(old), false, 'the old name is gone');
  assert.equal(existsSync(`${old}.batch`), false);
  assert.equal(readFileSync(current, 'utf8'), 'one\n');

  // A companion already under the current name is the newer one: the old one is left, not moved over it.
  linkSync(current, old);
  writeFileSync(`${old}.head`, 'stale');
  assert.equal(adoptLegacyStateFile(current, [old], ['.head']), current);
  assert.equal(readFileSync(`${current}.head`, 'utf8'), 'h');
  assert.equal(existsSync(old), false);
  unlinkSync(`${old}.head`);

  // Not ours to finish: an old name locked by a writer of an earlier version, or a symbolic link someone made.
  linkSync(current, old);
  writeFileSync(`${old}.lock`, '{}');
  assert.equal(adoptLegacyStateFile(current, [old]), current);
  assert.ok(existsSync(old), 'a locked old name stays');
  unlinkSync(`${old}.lock`);
  unlinkSync(old);
  symlinkSync(current, old);
  assert.equal(adoptLegacyStateFile(current, [old]), current);
  assert.ok(existsSync(old), 'a symbolic link stays');
});

// An earlier version made a log file whenever a cycle opened through a URL, events or not. A store reached as
// 127.0.0.1 (its pending events) and once as localhost (no events: an empty file) upgraded into a conflict that
// no replay could settle: whichever URL opened first, the other was refused for good.
test('an empty log an earlier version left under another URL\'s name is nothing to keep: it neither blocks nor is blocked', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const identity = 'postgres:store:0b6f6c1e-8a58-4c1b-9d2c-3f9e2f7b1a11';
  const byAddress = { ...pg('postgres://u:***@127.0.0.1:5432/db?schema=a'), identity };
  const byName = { ...pg('postgres://u:***@localhost:5432/db?schema=a'), identity };
  const oldLog = (s: { backend: string; location: string }) => join(tmp.dir, safetyLogName(legacyStoreIdentities(s)[0]!, 'default'));
  const seed = await FileDurableEventLog.open(oldLog(byAddress));
  await seed.append(ev('B'));
  await seed.close();
  const empty = await FileDurableEventLog.open(oldLog(byName));
  await empty.close();
  assert.equal(readFileSync(oldLog(byName), 'utf8'), '', 'the earlier version left an empty file');

  // localhost first: its empty old file is not taken over, and the new log it makes is empty too...
  const first = await openSafetyLog(byName, tmp.dir, 'default');
  assert.deepEqual(await first.log.pending(), []);
  await first.log.close();
  // ...so 127.0.0.1 then takes its old log over in place of the empty one, pending event and all.
  const second = await openSafetyLog(byAddress, tmp.dir, 'default');
  assert.deepEqual((await second.log.pending()).map((e) => e.eventId), ['B']);
  await second.log.close();
  assert.equal(existsSync(oldLog(byAddress)), false);
  // And localhost again finds the store's log, not a conflict with its own empty old file.
  const third = await openSafetyLog(byName, tmp.dir, 'default');
  assert.deepEqual((await third.log.pending()).map((e) => e.eventId), ['B']);
  await third.log.close();
});

test('an old state file holds nothing only when empty, unlocked and alone: one being written or cut to nothing still conflicts', (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const current = join(tmp.dir, 'new.jsonl');
  const full = join(tmp.dir, 'full.jsonl');
  const empty = join(tmp.dir, 'empty.jsonl');
  writeFileSync(full, 'one\n');
  writeFileSync(`${full}.head`, 'h');
  writeFileSync(empty, '');
  assert.equal(stateFileInPlace(current, [empty, full], ['.head']), full, 'a report names the file that holds something');
  assert.equal(adoptLegacyStateFile(current, [empty, full], ['.head']), current);
  assert.equal(readFileSync(current, 'utf8'), 'one\n');
  assert.equal(readFileSync(`${current}.head`, 'utf8'), 'h');
  assert.equal(readFileSync(empty, 'utf8'), '', 'the empty file is left where it was');
  assert.equal(adoptLegacyStateFile(current, [empty, full], ['.head']), current, 'and makes no conflict later either');

  // Empty but locked: a writer of an earlier version may be about to append. Empty beside a head: a log cut to nothing.
  writeFileSync(`${empty}.lock`, '{}');
  assert.throws(() => adoptLegacyStateFile(current, [empty], ['.head']), (err: MnemosError) => err.code === 'conflict' && err.message.includes(empty));
  unlinkSync(`${empty}.lock`);
  writeFileSync(`${empty}.head`, 'h');
  assert.throws(() => adoptLegacyStateFile(current, [empty], ['.head']), (err: MnemosError) => err.code === 'conflict' && err.message.includes(empty));
  unlinkSync(`${empty}.head`);

  // An empty current file that someone holds (its lock) is not replaced: the old file that holds something conflicts with it.
  const other = join(tmp.dir, 'other.jsonl');
  const fresh = join(tmp.dir, 'fresh.jsonl');
  writeFileSync(other, 'two\n');
  writeFileSync(fresh, '');
  writeFileSync(`${fresh}.lock`, '{}');
  assert.throws(() => adoptLegacyStateFile(fresh, [other]), (err: MnemosError) => err.code === 'conflict' && err.message.includes(fresh) && err.message.includes(other));
  unlinkSync(`${fresh}.lock`);
  assert.equal(adoptLegacyStateFile(fresh, [other]), fresh, 'unheld, it gives way');
  assert.equal(readFileSync(fresh, 'utf8'), 'two\n');
  assert.equal(existsSync(other), false);
});
