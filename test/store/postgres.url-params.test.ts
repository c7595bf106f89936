import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient } from '../helpers/pg-env.ts';
import { tempDir } from '../helpers/temp.ts';

const BASE = 'postgres://u:secret@127.0.0.1:1/db?schema=s';

function refused(url: string, field: string, says: RegExp): void {
  assert.throws(
    () => parsePgUrl(url),
    (e) => MnemosError.is(e, 'validation_failed') && e.details?.field === field && says.test(e.message) && !e.message.includes('secret'),
    url,
  );
}

// pg took any value and acted on it its own way: sslmode=bogus asked for verified TLS ("the server does
// not support SSL"), ssl=false turned TLS on, port=abc ended the process with no message, 5s was 5 ms.
test('a URL parameter pg reads with a value it would misread is refused by name, with what it takes, before connecting', () => {
  refused(`${BASE}&sslmode=bogus`, 'sslmode', /invalid sslmode "bogus".*one of disable, prefer, require, verify-ca, verify-full, no-verify/);
  refused(`${BASE}&sslmode=disable&sslmode=bogus`, 'sslmode', /"bogus"/);
  refused(`${BASE}&uselibpqcompat=true&sslmode=no-verify`, 'sslmode', /libpq/);
  refused(`${BASE}&uselibpqcompat=yes`, 'uselibpqcompat', /one of true, false/);
  refused(`${BASE}&ssl=yes`, 'ssl', /one of true, false, 1, 0, no-verify/);
  refused(`${BASE}&sslnegotiation=fast`, 'sslnegotiation', /one of postgres, direct/);
  refused(`${BASE}&sslnegotiation=direct&sslmode=disable`, 'sslnegotiation', /needs TLS/);
  refused(`${BASE}&uselibpqcompat=true&sslmode=verify-ca`, 'sslrootcert', /sslrootcert/);
  refused(`${BASE}&sslrootcert=/nonexistent/ca.pem`, 'sslrootcert', /readable file/);
  for (const port of ['abc', '0', '99999', '']) refused(`${BASE}&port=${port}`, 'port', /1 to 65535/);
  for (const name of ['statement_timeout', 'idle_in_transaction_session_timeout', 'query_timeout']) {
    for (const v of ['5s', 'abc', '-1', '1.5']) refused(`${BASE}&${name}=${v}`, name, /whole milliseconds/);
  }
  // The accepted values pass, as written in the location.
  for (const ok of ['sslmode=disable', 'sslmode=verify-full', 'sslmode=no-verify', 'ssl=true', 'ssl=0', 'sslnegotiation=postgres', 'port=5433', 'statement_timeout=5000', 'query_timeout=0', 'uselibpqcompat=true&sslmode=require', 'application_name=anything']) {
    const p = parsePgUrl(`${BASE}&${ok}`);
    assert.ok(p.location.includes(ok.split('&')[0]!), ok);
  }
  const tmp = tempDir('mnemos-pgparams-');
  try {
    const ca = join(tmp.dir, 'ca.pem');
    writeFileSync(ca, 'not checked here');
    parsePgUrl(`${BASE}&sslrootcert=${encodeURIComponent(ca)}`);
  } finally {
    tmp.cleanup();
  }
});

test('?ssl=false means no TLS: pg read the word as true', () => {
  const p = parsePgUrl(`${BASE}&ssl=false`);
  assert.equal(new URL(p.connectionString).searchParams.get('ssl'), '0');
  assert.match(p.location, /ssl=false/, 'shown as written');
});

test('the CLI answers a bad sslmode with validation_failed (exit 2) naming it, and creates nothing', { ...postgresOnly('the schema a connection would have created'), timeout: 60_000 }, async () => {
  const { schema, url } = freshSchema('sslmode');
  try {
    const r = spawnSync(process.execPath, [resolve('bin/mnemos.js'), 'add', 'x', '--db', `${url}&sslmode=bogus`, '--json'], { encoding: 'utf8', timeout: 40_000, env: { ...process.env, MNEMOS_DB: '', MNEMOS_NAMESPACE: '' } });
    assert.equal(r.status, 2, r.stderr);
    const body = JSON.parse(r.stdout.trim());
    assert.equal(body.error.code, 'validation_failed');
    assert.equal(body.error.details.field, 'sslmode');
    assert.deepEqual(body.error.details.allowed, ['disable', 'prefer', 'require', 'verify-ca', 'verify-full', 'no-verify']);
    const c = await pgClient();
    try {
      assert.equal((await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount, 0);
    } finally {
      await c.end();
    }
    // The test server has no TLS: ssl=false connects, as meant.
    const m = await openMemory({ db: `${url}&ssl=false` });
    await m.close();
  } finally {
    await dropSchema(schema);
  }
});

// pg 8's Client reads `binary` from its config object, not from the URL: ?binary=true leaves results as
// text, which the adapter reads. Should a pg upgrade honour it, every bigint, float and JSON column would
// come back as raw bytes; this says so before anyone's reads do (then refuse the parameter in url-params.ts).
test('?binary=true in the URL leaves reads as they are: add, search, get and list give the values written', { ...postgresOnly('a store behind the URL'), timeout: 60_000 }, async () => {
  const { schema, url } = freshSchema('binary');
  try {
    const m = await openMemory({ db: `${url}&binary=true` });
    try {
      const a = await m.remember({ text: 'binary results are read as text', salience: 0.25, importance: 0.75, tags: ['t1'], metadata: { n: 1 }, validFrom: '2026-01-02T03:04:05.000Z' });
      const hit = (await m.search('binary results')).hits[0]?.memory;
      const got = await m.get(a.id);
      const listed = (await m.list({ limit: 5 })).items[0];
      for (const x of [hit, got, listed]) {
        assert.ok(x);
        assert.deepEqual([x.id, x.text, x.salience, x.importance, x.tags, x.metadata, x.validFrom, x.version], [a.id, 'binary results are read as text', 0.25, 0.75, ['t1'], { n: 1 }, '2026-01-02T03:04:05.000Z', 1]);
      }
    } finally {
      await m.close();
    }
  } finally {
    await dropSchema(schema);
  }
});
