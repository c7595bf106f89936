import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { openSafetyLog, safetyLogName } from '../../src/services/cycle/safety-log.ts';
import { identityDigest } from '../../src/services/state-dir.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { named, postgresOnly, rawSql, testStores, type TestStores } from '../helpers/backend.ts';
import { pgClient, pgTestUrl } from '../helpers/pg-env.ts';
import { REFERENCE_EXAMPLE, record } from './helpers.ts';

/**
 * A PostgreSQL store's journal and safety-event logs are files in ./.mnemos,
 * named by the identity the store keeps in its own schema. Named by the URL
 * (earlier versions), `localhost` and `127.0.0.1` were two stores, and a
 * search_path the server chose (ALTER ROLE ... SET search_path) was not seen.
 */

const NEEDS = postgresOnly('the identity is a row in a PostgreSQL schema');

type Memory = Awaited<ReturnType<typeof openMemory>>;

const edit = (url: string, change: (u: URL) => void): string => {
  const u = new URL(url);
  change(u);
  return u.toString();
};
const schemaOf = (url: string) => new URL(url).searchParams.get('schema')!;
const onHost = (url: string, host: string) => edit(url, (u) => (u.hostname = host));
/** The schema given as the search_path of the start-up options instead of ?schema=. */
const viaOptions = (url: string) => edit(url, (u) => {
  const s = u.searchParams.get('schema')!;
  u.searchParams.delete('schema');
  u.searchParams.set('options', `-c search_path=${s}`);
});
const withoutSchema = (url: string) => edit(url, (u) => u.searchParams.delete('schema'));

/** The identities the two earlier versions gave a URL: what it says of the data, and the whole URL less the credentials. */
function urlDataIdentity(url: string): string {
  const u = new URL(url);
  return `postgres:postgres://${u.hostname}:${u.port || '5432'}${u.pathname}?schema=${u.searchParams.get('schema')}`;
}
function wholeUrlIdentity(url: string): string {
  // Of the store's location, as those versions took it: the URL as parsePgUrl shows it (?schema= last).
  return `postgres:${edit(parsePgUrl(url).location, (u) => ((u.username = ''), (u.password = '')))}`;
}
const oldJournal = (dir: string, identity: string) => join(dir, '.mnemos', `journal.${identityDigest(identity)}.metta`);
const oldLog = (dir: string, identity: string) => join(dir, '.mnemos', safetyLogName(identity, 'default'));

function ev(id: string): EpisodicEvent {
  return { eventId: id, blackboardKey: 'safety.verification_blocked', valueSnapshot: { id }, salience: 1, tick: 1, timestamp: '2025-01-01T00:00:00.000Z', sourceModule: 'safety', tags: [], alwaysConsolidate: true, consolidated: false };
}

async function writeLog(path: string, ids: string[], consolidated: string[] = []): Promise<void> {
  const log = await FileDurableEventLog.open(path);
  for (const id of ids) await log.append(ev(id));
  if (consolidated.length) await log.markConsolidated(consolidated);
  await log.close();
}

/** Opens `url` from `stores.dir` (a server store keeps its files in ./.mnemos), runs `fn`, closes. */
async function using<T>(stores: TestStores, url: string, fn: (m: Memory) => Promise<T> | T): Promise<T> {
  const cwd = process.cwd();
  process.chdir(stores.dir);
  try {
    const m = await openMemory({ db: url });
    try {
      return await fn(m);
    } finally {
      await m.close();
    }
  } finally {
    process.chdir(cwd);
  }
}

const isConflictNaming = (...paths: string[]) => (err: unknown) => {
  assert.ok(MnemosError.is(err, 'conflict'), String(err));
  for (const p of paths) assert.ok(err.message.includes(p), `${err.message} names ${p}`);
  return true;
};

test(named('one store, one identity however its URL reaches it; two schemas, two'), NEEDS, async () => {
  const stores = testStores();
  try {
    const [identity, journal] = await using(stores, stores.db, (m) => [m.store.identity, m.journalPath]);
    assert.match(identity!, /^postgres:store:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.deepEqual(await rawSql(stores.db, 'SELECT id::text AS id FROM mnemos_store_identity'), [{ id: identity!.slice('postgres:store:'.length) }], 'kept in the schema');
    assert.ok(journal.includes(identityDigest(identity!)), journal);
    assert.equal(new URL(stores.db).hostname, '127.0.0.1', 'the test server is reached by address');
    for (const [what, url] of [
      ['localhost for 127.0.0.1', onHost(stores.db, 'localhost')],
      ['the schema as a search_path in ?options=', viaOptions(stores.db)],
      ['both', onHost(viaOptions(stores.db), 'localhost')],
    ] as const) {
      assert.deepEqual(await using(stores, url, (m) => [m.store.identity, m.journalPath]), [identity, journal], what);
    }
    // The schema given by the environment (PGOPTIONS), which the URL does not show at all.
    process.env.PGOPTIONS = `-c search_path=${schemaOf(stores.db)}`;
    try {
      assert.deepEqual(await using(stores, withoutSchema(stores.db), (m) => [m.store.identity, m.journalPath]), [identity, journal], 'PGOPTIONS');
    } finally {
      delete process.env.PGOPTIONS;
    }
    const other = stores.store('two');
    const [otherIdentity, otherJournal] = await using(stores, other, (m) => [m.store.identity, m.journalPath]);
    assert.notEqual(otherIdentity, identity);
    assert.notEqual(otherJournal, journal);
  } finally {
    await stores.cleanup();
  }
});

// ALTER ROLE changes the role's default in the whole test database, and the suite's files run at once:
// a concurrent test connecting without ?schema= would land in this schema. Run it on a database of its own.
const ROLE_SETTINGS = process.env.MNEMOS_TEST_PG_ROLE_SETTINGS === '1';
test(
  named('a search_path the server sets for the role (ALTER ROLE ... SET search_path) finds the same identity'),
  ROLE_SETTINGS ? NEEDS : { skip: 'set MNEMOS_TEST_PG_ROLE_SETTINGS=1 on a test database no other run uses: it changes the role default of the database' },
  async () => {
    const stores = testStores();
    const admin = await pgClient();
    const alter = async (what: string) => {
      const r = await admin.query<{ q: string }>(`SELECT format('ALTER ROLE %I IN DATABASE %I ${what}', current_user, current_database()) AS q`);
      await admin.query(r.rows[0]!.q);
    };
    try {
      const [identity, journal] = await using(stores, stores.db, (m) => [m.store.identity, m.journalPath]);
      await alter(`SET search_path = ${pg.escapeIdentifier(schemaOf(stores.db))}`);
      try {
        assert.deepEqual(await using(stores, withoutSchema(pgTestUrl()), (m) => [m.store.identity, m.journalPath]), [identity, journal]);
      } finally {
        await alter('RESET search_path');
      }
    } finally {
      await admin.end();
      await stores.cleanup();
    }
  },
);

test(named('a journal and a safety log named by the URL in earlier versions are taken over under the identity, .head and all'), NEEDS, async () => {
  const stores = testStores();
  try {
    mkdirSync(join(stores.dir, '.mnemos'));
    // The journal under the name the last version gave the plain URL (host, port, database, schema).
    const journal = oldJournal(stores.dir, urlDataIdentity(stores.db));
    writeFileSync(journal, REFERENCE_EXAMPLE);
    // The safety log under the name the first versions gave a URL with a setting in it (the whole URL).
    const variant = edit(stores.db, (u) => u.searchParams.set('sslmode', 'disable'));
    const log = oldLog(stores.dir, wholeUrlIdentity(variant));
    await writeLog(log, ['A', 'B'], ['A']);
    assert.ok(existsSync(`${log}.head`));
    await using(stores, variant, async (m) => {
      // self_state says where the journal is read from now, and renames nothing.
      const why = () => m.selfState().parts.find((p) => p.part === 'journal_prompt_view')!.why;
      assert.ok(why().includes(journal), why());
      assert.ok(existsSync(journal));
      const path = m.journalPath;
      assert.ok(why().includes(path), why());
      assert.ok(path.includes(identityDigest(m.store.identity!)), path);
      assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE);
      assert.equal(existsSync(journal), false, 'renamed, not copied');
      assert.equal((await m.journalQuery({ by: 'about', value: 'parser' })).count, 1);
      const opened = await openSafetyLog(m.store, join(stores.dir, '.mnemos'), 'default');
      try {
        assert.equal(opened.notice, undefined);
        assert.equal((opened.log as FileDurableEventLog).path, oldLog(stores.dir, m.store.identity!));
        assert.deepEqual((await opened.log.pending()).map((e) => e.eventId), ['B'], 'the pending event, not the consolidated one');
      } finally {
        await opened.log.close();
      }
      assert.equal(existsSync(log), false);
      assert.equal(existsSync(`${log}.head`), false);
      assert.ok(existsSync(`${oldLog(stores.dir, m.store.identity!)}.head`), 'the head moved with its log');
    });
    // The plain URL and localhost find them under the same names.
    await using(stores, onHost(stores.db, 'localhost'), async (m) => {
      assert.equal((await m.journalQuery({ by: 'about', value: 'parser' })).count, 1);
      const opened = await openSafetyLog(m.store, join(stores.dir, '.mnemos'), 'default');
      assert.deepEqual((await opened.log.pending()).map((e) => e.eventId), ['B']);
      await opened.log.close();
    });
  } finally {
    await stores.cleanup();
  }
});

test(named('two different files of one store under two names are refused with conflict, naming both, and nothing moves'), NEEDS, async () => {
  const stores = testStores();
  const dir = join(stores.dir, '.mnemos');
  try {
    mkdirSync(dir);
    // Before this version the store was reached as 127.0.0.1 and as localhost: two journals, two logs.
    const byAddress = oldJournal(stores.dir, urlDataIdentity(stores.db));
    const localhost = onHost(stores.db, 'localhost');
    const byName = oldJournal(stores.dir, urlDataIdentity(localhost));
    writeFileSync(byAddress, REFERENCE_EXAMPLE);
    const second = record('mc-second', 'c-second');
    writeFileSync(byName, second);
    const logByAddress = oldLog(stores.dir, urlDataIdentity(stores.db));
    const logByName = oldLog(stores.dir, urlDataIdentity(localhost));
    await writeLog(logByAddress, ['A']);
    await writeLog(logByName, ['B']);
    const snapshot = () => [byAddress, byName, logByAddress, logByName].map((p) => readFileSync(p, 'utf8'));
    const before = snapshot();

    // Each URL knows only its own old names: the first use through 127.0.0.1 takes over its journal and log...
    const { journal, logPath } = await using(stores, stores.db, async (m) => {
      const opened = await openSafetyLog(m.store, dir, 'default');
      await opened.log.close();
      return { journal: m.journalPath, logPath: (opened.log as FileDurableEventLog).path };
    });
    assert.equal(existsSync(byAddress), false);
    // ...and localhost then finds the store's file under the new name and another under its old one.
    await using(stores, localhost, async (m) => {
      assert.throws(() => m.journalPath, isConflictNaming(journal, byName));
      await assert.rejects(m.journalQuery({ by: 'about', value: 'parser' }), isConflictNaming(journal, byName));
      await assert.rejects(openSafetyLog(m.store, dir, 'default'), isConflictNaming(logPath, logByName));
      // self_state still says where the journal is, and changes nothing either.
      const why = m.selfState().parts.find((p) => p.part === 'journal_prompt_view')!.why;
      assert.ok(why.includes(journal), why);
    });
    assert.deepEqual([journal, byName, logPath, logByName].map((p) => readFileSync(p, 'utf8')), before, 'every file as it was');

    // Two old names of one URL (the last version's and the first's), neither taken over yet: refused too.
    const fresh = stores.store('fresh');
    const variant = edit(fresh, (u) => u.searchParams.set('application_name', 'x'));
    const a = oldJournal(stores.dir, urlDataIdentity(fresh));
    const b = oldJournal(stores.dir, wholeUrlIdentity(variant));
    writeFileSync(a, REFERENCE_EXAMPLE);
    writeFileSync(b, second);
    await using(stores, variant, (m) => {
      assert.throws(() => m.journalPath, isConflictNaming(a, b));
      assert.equal(existsSync(oldJournal(stores.dir, m.store.identity!)), false, 'no file under the new name');
    });
    assert.deepEqual([readFileSync(a, 'utf8'), readFileSync(b, 'utf8')], [REFERENCE_EXAMPLE, second]);
  } finally {
    await stores.cleanup();
  }
});

test(named('processes opening one fresh store at once agree on its identity; a deleted one is made again, once'), NEEDS, async () => {
  const stores = testStores();
  try {
    // Separate pools, so separate server sessions, as two processes would have.
    const both = async () => {
      const ms = await Promise.all([openMemory({ db: stores.db }), openMemory({ db: onHost(stores.db, 'localhost') }), openMemory({ db: stores.db })]);
      try {
        return ms.map((m) => m.store.identity);
      } finally {
        await Promise.all(ms.map((m) => m.close()));
      }
    };
    const first = await both();
    assert.equal(new Set(first).size, 1, first.join(' '));
    assert.ok(first[0]);
    assert.deepEqual(await both(), first, 'kept across opens');
    // A copy of the tables carries the id; deleting the row is how a copy gets its own (docs/POSTGRES.md).
    await rawSql(stores.db, 'DELETE FROM mnemos_store_identity');
    const again = await both();
    assert.equal(new Set(again).size, 1, again.join(' '));
    assert.notEqual(again[0], first[0]);
    assert.equal((await rawSql(stores.db, 'SELECT count(*) AS n FROM mnemos_store_identity'))[0]!.n, '1');
  } finally {
    await stores.cleanup();
  }
});

test(named('a take-over of an old-named journal killed after its link is finished by the next open: half a batch is still removed whole'), NEEDS, async () => {
  const stores = testStores();
  try {
    mkdirSync(join(stores.dir, '.mnemos'));
    const journal = oldJournal(stores.dir, urlDataIdentity(stores.db));
    writeFileSync(journal, REFERENCE_EXAMPLE);
    // An earlier version's appendMany killed part-way: its intent, then the first record and half the second.
    const batch = record('mc-b1', 'c-b1') + record('mc-b2', 'c-b2');
    const from = statSync(journal).size;
    writeFileSync(`${journal}.batch`, JSON.stringify({ from, bytes: Buffer.byteLength(batch), records: 2 }));
    appendFileSync(journal, batch.slice(0, batch.length - 40));
    const current = await using(stores, stores.db, (m) => join(stores.dir, '.mnemos', `journal.${identityDigest(m.store.identity!)}.metta`));
    // Then this version's take-over, killed between its link and moving the intent.
    linkSync(journal, current);
    await using(stores, stores.db, async (m) => {
      assert.equal(m.journalPath, current);
      assert.equal((await m.journalQuery({ by: 'cluster', value: 'mc-b1' })).count, 0, 'no record of the unfinished batch is read');
      assert.equal((await m.journalQuery({ by: 'about', value: 'parser' })).count, 1);
    });
    assert.equal(existsSync(journal), false, 'the old name is gone');
    assert.equal(existsSync(`${journal}.batch`), false);
    assert.ok(existsSync(`${current}.batch`), 'the intent moved with the journal, for its next writer to settle');
  } finally {
    await stores.cleanup();
  }
});
