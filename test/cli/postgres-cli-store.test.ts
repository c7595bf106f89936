import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient, pgTestUrl } from '../helpers/pg-env.ts';
import { tempDir } from '../helpers/temp.ts';

const BIN = resolve('bin/mnemos.js');
const PG = 'PostgreSQL store locations and connections';

/** The real CLI with --json; the timeout turns a hang into a failure. */
function cli(args: string[], env: NodeJS.ProcessEnv = process.env) {
  const r = spawnSync(process.execPath, [BIN, ...args, '--json'], { encoding: 'utf8', timeout: 40_000, env: { ...env, MNEMOS_DB: '', MNEMOS_NAMESPACE: '' } });
  const body = r.stdout.trim() ? JSON.parse(r.stdout.trim().split('\n').pop()!) : null;
  return { code: r.status, body, stderr: r.stderr };
}

async function schemaExists(schema: string): Promise<boolean> {
  const c = await pgClient();
  try {
    return (await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 1;
  } finally {
    await c.end();
  }
}

function withUrl(edit: (u: URL) => void): string {
  const u = new URL(pgTestUrl());
  edit(u);
  return u.toString();
}

test('read commands and copy --from refuse a PostgreSQL schema or database with no store, and create nothing', postgresOnly(PG), async () => {
  const { schema, url } = freshSchema('typo');
  const tmp = tempDir('mnemos-pgtypo-');
  try {
    for (const args of [['search', 'foo'], ['list'], ['status'], ['audit', 'verify'], ['copy', '--from', url, '--to', resolve(tmp.dir, 'out.db')]]) {
      const r = cli(args[0] === 'copy' ? args : [...args, '--db', url]);
      assert.equal(r.code, 3, `${args[0]}: ${r.stderr}`);
      assert.equal(r.body.error.code, 'not_found', args[0]);
      assert.match(r.body.error.message, new RegExp(`schema "${schema}" holds no Mnemos store.*Nothing was created`));
      assert.equal(await schemaExists(schema), false, `${args[0]} created the schema`);
    }
    const noDb = cli(['list', '--db', withUrl((u) => (u.pathname = '/mnemos_no_such_db'))]);
    assert.equal(noDb.code, 3, noDb.stderr);
    assert.match(noDb.body.error.message, /does not exist/);
    // Writing commands still start a store, and then reads find it.
    assert.equal(cli(['add', 'the deploy key rotates on Mondays', '--db', url]).code, 0);
    const listed = cli(['list', '--db', url]);
    assert.equal(listed.code, 0, listed.stderr);
    assert.equal(listed.body.total, 1);
  } finally {
    tmp.cleanup();
    await dropSchema(schema);
  }
});

test('connection mistakes answer unavailable or validation_failed, never internal, with the password masked', postgresOnly(PG), async () => {
  const { schema, url } = freshSchema('conn');
  const password = new URL(pgTestUrl()).password;
  const env = { ...process.env };
  delete env.PGPASSWORD;
  try {
    for (const args of [['list'], ['add', 'x']]) {
      const started = Date.now();
      const none = cli([...args, '--db', withUrl((u) => ((u.password = ''), u.searchParams.set('schema', schema)))], env);
      assert.equal(none.code, 7, none.stderr);
      assert.equal(none.body.error.code, 'unavailable');
      assert.match(none.body.error.message, /password.*PGPASSWORD/);
      assert.ok(Date.now() - started < 20_000, 'the process exits, not waiting for the server to give up on the login');
    }
    const ssl = cli(['list', '--db', `${url}&sslmode=require`]);
    assert.equal(ssl.code, 7, ssl.stderr);
    assert.equal(ssl.body.error.code, 'unavailable');
    const badPort = cli(['list', '--db', withUrl((u) => u.searchParams.set('schema', schema)).replace(/:\d+\//, ':99999/')]);
    assert.equal(badPort.code, 2, badPort.stderr);
    assert.equal(badPort.body.error.code, 'validation_failed');
    for (const r of [ssl, badPort]) assert.ok(!JSON.stringify(r.body).includes(`:${password}@`) && !r.stderr.includes(`:${password}@`), 'password masked');
    assert.equal(await schemaExists(schema), false);
  } finally {
    await dropSchema(schema);
  }
});

test('a CLI add behind a stuck writer exits busy (6) after the lock timeout', postgresOnly(PG), async () => {
  const { schema, url } = freshSchema('clibusy');
  try {
    assert.equal(cli(['add', 'first', '--db', url]).code, 0);
    const held = await pgClient(schema);
    try {
      await held.query('BEGIN');
      await held.query('SELECT seq FROM audit_head WHERE one FOR UPDATE');
      const r = cli(['add', 'second', '--db', `${url}&lock_timeout=300`]);
      assert.equal(r.code, 6, `exit ${r.code}: ${r.stderr}`);
      assert.equal(r.body.error.code, 'busy');
      assert.match(r.body.error.message, /stayed locked/);
    } finally {
      await held.query('ROLLBACK');
      await held.end();
    }
  } finally {
    await dropSchema(schema);
  }
});
