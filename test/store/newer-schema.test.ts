import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError, openMemory } from '../../src/index.ts';
import { LATEST_SCHEMA_VERSION } from '../../src/adapters/sqlite/migrations.ts';
import { PG_LATEST_SCHEMA_VERSION } from '../../src/adapters/postgres/migrations.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';

// A store a newer build had written was opened and written to as if current: the older build skipped what
// the newer schema keeps (which sources stay forgotten), and the forgotten text came back.
test(named('a store whose schema is newer than this build knows is refused before anything is read or written'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    await m.remember({ text: 'written by this build' });
    await m.close();
    const next = (BACKEND === 'sqlite' ? LATEST_SCHEMA_VERSION : PG_LATEST_SCHEMA_VERSION) + 1;
    if (BACKEND === 'sqlite') await rawSql(db, `PRAGMA user_version = ${next}`);
    else await rawSql(db, "INSERT INTO mnemos_schema (version, name) VALUES (?, 'from a newer build')", next);
    await assert.rejects(openMemory({ db }), (e) => MnemosError.is(e, 'unavailable') && /newer than this build of mnemos knows/.test(e.message) && e.details?.schemaVersion === next);
    let err = '';
    const code = await runCli(['add', 'one more', '--db', db], { stdout: () => true, stderr: (x) => ((err += x), true), env: {}, isTTY: false });
    assert.equal(code, 7);
    assert.match(err, /upgrade mnemos/);
  } finally {
    await cleanup();
  }
});
