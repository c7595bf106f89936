import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import { VolatileEventLog } from '../../src/cognition/durable-log.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { legacySafetyLogName, openSafetyLog, safetyLogName } from '../../src/services/cycle/safety-log.ts';
import { storeIdentity } from '../../src/services/state-dir.ts';
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
