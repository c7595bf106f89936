import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, type Principal } from '../../src/index.ts';
import { BACKEND, named, postgresOnly, testStores } from '../helpers/backend.ts';
import { dropSchema, freshSchema } from '../helpers/pg-env.ts';
import { tempDir } from '../helpers/temp.ts';

type Mem = Awaited<ReturnType<typeof openMemory>>;
const agent: Principal = { role: 'agent', namespace: 'default', id: 'agent-1', agentId: 'bot' };
const guest: Principal = { role: 'guest', namespace: 'default', id: 'guest-1' };

const NOTES = `# Boiler

The boiler was serviced in March.

## Secret

The safe code is 4711.

## Garden

Water the roses on Sundays.
`;

/**
 * A store with pins of every status (active, superseded by a confirmed
 * change, retired, an agent's change still pending and one rejected), a
 * learned fact, and forgotten memories: a remembered one and a chunk of an
 * imported note. Returns the note's path.
 */
async function seed(m: Mem, dir: string): Promise<string> {
  const notes = join(dir, 'notes.md');
  writeFileSync(notes, NOTES);
  await m.import(notes);
  const secret = (await m.search('safe code 4711')).hits[0]!.memory;
  assert.match(secret.text, /4711/);
  await m.confirmForget((await m.forget(secret.id, 'a secret')).token);
  const gone = await m.remember({ text: 'the old wifi password is hunter2', key: 'wifi' });
  await m.confirmForget((await m.forget(gone.id)).token);
  await m.remember({ text: 'Dana moved to Lisbon', tags: ['people'] });

  const owner = m.lifecycle;
  const bot = m.as(agent).lifecycle;
  await owner.pin({ key: 'user.home_city', value: 'Lisbon', statement: 'The owner lives in Lisbon', category: 'identity' });
  const moved = await bot.pin({ key: 'user.home_city', value: 'Porto' });
  assert.equal(moved.status, 'pending_confirmation');
  if (moved.status === 'pending_confirmation') await owner.confirmPin(moved.pending.id);
  await owner.pin({ key: 'project.db', value: 'SQLite' });
  await owner.retire('project.db');
  await owner.pin({ key: 'user.tea', value: 'green' });
  const waiting = await bot.pin({ key: 'user.tea', value: 'black' });
  assert.equal(waiting.status, 'pending_confirmation');
  const refused = await bot.pin({ key: 'user.home_city', value: 'Faro' });
  if (refused.status === 'pending_confirmation') await owner.rejectPin(refused.pending.id);
  await owner.learn({ key: 'project.lang', value: 'TypeScript', confidence: 0.8 });
  return notes;
}

async function exportOf(m: Mem): Promise<string> {
  const lines: string[] = [];
  await m.export((l) => void lines.push(l));
  return lines.join('');
}

const kinds = (file: string) => file.trim().split('\n').map((l) => (JSON.parse(l) as { record?: string }).record ?? 'memory');

async function ledgerOf(m: Mem) {
  const facts = await m.store.ledger!.list(m.principal, { status: ['active', 'superseded', 'retired'], limit: 1000 });
  return facts.sort((a, b) => (a.id < b.id ? -1 : 1));
}

test(named('an export carries the ledger (every status, pending changes) and the tombstones; restored into an empty store it exports the same bytes'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    const notes = await seed(a, dir);
    const file = join(dir, 'backup.jsonl');
    writeFileSync(file, await exportOf(a));
    const original = readFileSync(file, 'utf8');
    const facts = await ledgerOf(a);
    assert.deepEqual(facts.map((f) => f.status).sort(), ['active', 'active', 'active', 'retired', 'superseded']);
    const k = kinds(original);
    assert.deepEqual(k.filter((x) => x !== 'memory'), ['ledger_fact', 'ledger_fact', 'ledger_fact', 'ledger_fact', 'ledger_fact', 'ledger_pending', 'ledger_pending', 'ledger_pending', 'tombstone', 'tombstone']);
    assert.ok(k.indexOf('ledger_fact') === k.lastIndexOf('memory') + 1, 'the records follow the memory lines');
    assert.ok(!original.includes('4711') && !original.includes('hunter2'), 'a tombstone holds no text');
    await a.close();

    const b = await openMemory({ db: store('b.db') });
    const r = await b.import(file);
    assert.deepEqual(r.restored, { ledgerFacts: 5, ledgerPending: 3, tombstones: 2, unchanged: 0 });
    assert.equal(await exportOf(b), original, 'export -> import -> export gives the same bytes');
    assert.deepEqual(await ledgerOf(b), facts, 'every fact, field for field');
    assert.equal((await b.lifecycle.fact('user.home_city')).value, 'Porto');
    const pending = (await b.lifecycle.facts()).pending;
    assert.deepEqual(pending.map((q) => [q.key, q.proposed.value, q.status]), [['user.tea', 'black', 'pending']], "the agent's change still waits for the owner");

    const tombstones = original.split('\n').filter((l) => l.includes('"record":"tombstone"')).map((l) => JSON.parse(l) as { lineageId: string; forgottenIds: string[] });
    for (const t of tombstones) await assert.rejects(b.get(t.forgottenIds[0]!), { code: 'forgotten' }, 'a restored tombstone answers for its versions');
    assert.equal((await b.verifyAudit()).ok, true, 'the restore is audited in an intact chain');

    const again = await b.import(file);
    assert.equal(again.created, 0);
    assert.deepEqual(again.restored, { ledgerFacts: 0, ledgerPending: 0, tombstones: 0, unchanged: 10 }, 're-importing the same file adds nothing');
    assert.equal(await exportOf(b), original);

    // The forgotten chunk stays forgotten when the note is imported into the restored store, as it did in the original.
    const notesAgain = await b.import(notes);
    assert.equal(notesAgain.forgotten, 1);
    assert.equal(notesAgain.created, 0);
    assert.equal((await b.search('safe code 4711')).hits.filter((h) => h.memory.text.includes('4711')).length, 0);
    assert.equal((await b.remember({ text: 'the old wifi password is hunter2', key: 'wifi' })).status, 'forgotten');
    const pendingAfter = await b.lifecycle.confirmPin(pending[0]!.id);
    assert.equal(pendingAfter.status, 'confirmed', 'a restored pending change can be confirmed');
    await b.close();
  } finally {
    await cleanup();
  }
});

test(named('a bad record line stops the import with its line number and writes nothing of the file'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    await seed(a, dir);
    const lines = (await exportOf(a)).trim().split('\n');
    await a.close();
    const at = lines.findIndex((l) => l.includes('"record":"tombstone"'));
    const bad = JSON.parse(lines[at]!);
    bad.contentHash = 'not a hash';
    lines[at] = JSON.stringify(bad);
    const file = join(dir, 'bad.jsonl');
    writeFileSync(file, `${lines.join('\n')}\n`);

    const b = await openMemory({ db: store('b.db') });
    await assert.rejects(b.import(file), (err: Error & { code?: string; details?: { line?: number } }) => {
      assert.equal(err.code, 'validation_failed');
      assert.equal(err.details?.line, at + 1);
      assert.match(err.message, /contentHash/);
      return true;
    });
    assert.equal((await b.status()).memories.total, 0);
    assert.deepEqual(await ledgerOf(b), []);

    // A record of a later layout is named as such.
    const later = JSON.parse(lines.find((l) => l.includes('"record":"ledger_fact"'))!);
    later.format = 2;
    writeFileSync(file, `${JSON.stringify(later)}\n`);
    await assert.rejects(b.import(file), /later version of Mnemos/);
    assert.deepEqual(await ledgerOf(b), []);
    await b.close();
  } finally {
    await cleanup();
  }
});

test(named("a guest's export holds no ledger facts or tombstones, and a guest cannot restore them"), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    await a.remember({ text: 'a shared note', visibility: 'shared' });
    await seed(a, dir);
    const own = await exportOf(a);
    const theirs = await exportOf(a.as(guest));
    assert.ok(kinds(theirs).every((x) => x === 'memory'));
    assert.ok(kinds(theirs).length >= 1);
    const file = join(dir, 'owner.jsonl');
    writeFileSync(file, own.split('\n').filter((l) => l.includes('"record"')).join('\n'));
    const b = await openMemory({ db: store('b.db') });
    await assert.rejects(b.as(guest).import(file), (err: Error & { code?: string; details?: { line?: number } }) => {
      assert.equal(err.code, 'forbidden');
      assert.equal(err.details?.line, 1);
      return true;
    });
    assert.deepEqual(await ledgerOf(b), []);
    await a.close();
    await b.close();
  } finally {
    await cleanup();
  }
});

test(named('a restored tombstone listing a version the store holds is refused, and nothing of the file is written'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    const kept = await a.remember({ text: 'kept in the other store' });
    const full = await exportOf(a);
    await a.confirmForget((await a.forget(kept.id)).token);
    const tombstone = (await exportOf(a)).split('\n').find((l) => l.includes('"record":"tombstone"'))!;
    await a.close();
    const b = await openMemory({ db: store('b.db') });
    const before = join(dir, 'before.jsonl');
    writeFileSync(before, full);
    await b.import(before);
    const file = join(dir, 'tomb.jsonl');
    writeFileSync(file, `${tombstone}\n`);
    await assert.rejects(b.import(file), { code: 'conflict' });
    assert.equal((await b.get(kept.id))?.text, 'kept in the other store');
    await b.close();
  } finally {
    await cleanup();
  }
});

// Both backends at once: the PostgreSQL pass has the server.
test('an export moves between SQLite and PostgreSQL with its ledger and tombstones, byte for byte', postgresOnly('needs both backends'), async () => {
  assert.equal(BACKEND, 'postgres');
  const tmp = tempDir('qa-e-cross-');
  const { schema, url } = freshSchema('cross');
  try {
    const a = await openMemory({ db: join(tmp.dir, 'a.db') });
    await seed(a, tmp.dir);
    const original = await exportOf(a);
    await a.close();
    const file = join(tmp.dir, 'a.jsonl');
    writeFileSync(file, original);
    const pg = await openMemory({ db: url });
    await pg.import(file);
    const there = await exportOf(pg);
    await pg.close();
    assert.equal(there, original, 'SQLite -> PostgreSQL');
    writeFileSync(file, there);
    const back = await openMemory({ db: join(tmp.dir, 'back.db') });
    await back.import(file);
    assert.equal(await exportOf(back), original, 'PostgreSQL -> SQLite');
    await back.close();
  } finally {
    tmp.cleanup();
    await dropSchema(schema);
  }
});

test(named('a chunk forgotten and then brought back on purpose restores as it was: back, and its tombstone kept'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    const notes = join(dir, 'notes.md');
    writeFileSync(notes, NOTES);
    await a.import(notes);
    const secret = (await a.search('safe code 4711')).hits[0]!.memory;
    await a.confirmForget((await a.forget(secret.id)).token);
    assert.equal((await a.import(notes, { includeForgotten: true })).created, 1);
    const file = join(dir, 'backup.jsonl');
    const original = await exportOf(a);
    assert.equal(kinds(original).filter((x) => x === 'tombstone').length, 1);
    writeFileSync(file, original);
    await a.close();

    const b = await openMemory({ db: store('b.db') });
    assert.deepEqual((await b.import(file)).restored, { ledgerFacts: 0, ledgerPending: 0, tombstones: 1, unchanged: 0 });
    assert.equal(await exportOf(b), original);
    const again = await b.import(notes);
    assert.deepEqual([again.created, again.forgotten], [0, 0], 'the chunk brought back stays back');
    await assert.rejects(b.get(secret.id), { code: 'forgotten' }, 'the version forgotten stays forgotten');
    await b.close();
  } finally {
    await cleanup();
  }
});
