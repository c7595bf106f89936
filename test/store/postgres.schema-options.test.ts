import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient } from '../helpers/pg-env.ts';

test('?schema= survives an ?options= of the user, and a second search_path there is refused', () => {
  const base = 'postgres://u:p@h:5432/db';
  const both = parsePgUrl(`${base}?schema=team_a&options=-c%20statement_timeout%3D5000`);
  assert.equal(new URL(both.connectionString).searchParams.get('options'), '-c statement_timeout=5000 -c search_path="team_a"');
  // The location (shown in messages and status) stays as written.
  assert.equal(both.location, 'postgres://u:***@h:5432/db?options=-c+statement_timeout%3D5000&schema=team_a');
  assert.throws(() => parsePgUrl(`${base}?schema=team_a&options=-csearch_path%3Dteam_b`), (e) => MnemosError.is(e, 'validation_failed') && /schema twice/.test(e.message));
});

test('a store opened with ?schema= and ?options= lives in that schema, not in public', { ...postgresOnly('PostgreSQL search_path'), timeout: 30_000 }, async () => {
  const { schema, url } = freshSchema('schemaopts');
  const m = await openMemory({ db: `${url}&options=${encodeURIComponent('-c statement_timeout=60000')}` });
  try {
    await m.remember({ text: 'tenant a only' });
    const admin = await pgClient();
    try {
      const [r] = (await admin.query(`SELECT count(*)::int AS n FROM ${schema}.memories`)).rows as [{ n: number }];
      assert.equal(r.n, 1);
    } finally {
      await admin.end();
    }
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});


test('a schema named like an SQL keyword is a store like any other; pg_ names are refused up front', { ...postgresOnly('PostgreSQL identifiers'), timeout: 30_000 }, async () => {
  assert.throws(() => parsePgUrl('postgres://u:p@h/db?schema=pg_mine'), (e) => MnemosError.is(e, 'validation_failed') && /reserved by PostgreSQL/.test(e.message));
  // ANALYSE is a reserved word: unquoted, CREATE SCHEMA and the search path were syntax errors (internal).
  const schema = 'analyse';
  const u = new URL(freshSchema('unused').url);
  u.searchParams.set('schema', schema);
  await dropSchema(`"${schema}"`);
  try {
    const m = await openMemory({ db: u.toString() });
    try {
      await m.remember({ text: 'kept under a keyword' });
      assert.equal((await m.list({})).total, 1);
    } finally {
      await m.close();
    }
    const admin = await pgClient();
    try {
      const [r] = (await admin.query('SELECT count(*)::int AS n FROM "analyse".memories')).rows as [{ n: number }];
      assert.equal(r.n, 1);
    } finally {
      await admin.end();
    }
  } finally {
    await dropSchema(`"${schema}"`);
  }
});
