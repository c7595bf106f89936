import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, describe, it } from 'node:test';
import { MnemosError } from '../../src/domain/errors.ts';
import { errorForCaller } from '../../src/surfaces/tools/redact-location.ts';
import { requestError } from '../../src/surfaces/tools/request-error.ts';
import { BACKEND, named, postgresOnly, testStores } from '../helpers/backend.ts';
import { pgClient } from '../helpers/pg-env.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { assertHides, createToken, MNEMOS_BIN, raw, relay, request, spawnServe } from './serve-helpers.ts';

/** A search POSTed with the Host and Origin a browser would send; the status and the parsed error. */
async function asBrowser(url: string, headers: Record<string, string>): Promise<{ status: number; error: any }> {
  const r = await raw(url, 'POST', '/v1/search', { ...headers, 'content-type': 'application/json' }, JSON.stringify({ query: 'x' }));
  return { status: r.status, error: r.body?.error ?? null };
}

/** One MCP tools/call over HTTP; the tool's result text, parsed. */
async function mcpCall(url: string, token: string, name: string, args: Record<string, unknown>): Promise<{ isError?: boolean; body: any }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const reply = JSON.parse(await res.text());
  if (reply.error) return { isError: true, body: reply };
  return { isError: reply.result.isError, body: JSON.parse(reply.result.content[0].text) };
}

describe('errors name the store location to owners only', () => {
  const tmp = testStores('mnemos-errloc-');
  after(() => tmp.cleanup());

  it(named("redacts the location and the driver's host, role and database for everyone but the owner"), () => {
    const pgLocation = 'postgres://mnemos_ci:***@db.internal:6543/prod_mem?schema=tenant_a';
    const pgErr = new MnemosError('unavailable', `cannot reach PostgreSQL at ${pgLocation}: connect ECONNREFUSED db.internal:6543; password authentication failed for user "mnemos_ci" on database "prod_mem"`, { location: pgLocation, code: '28P01' });
    const fileLocation = `${tmp.dir}/m.db`;
    const fileErr = new MnemosError('unavailable', `cannot create the folder of ${tmp.dir}/sub/m.db: EACCES`, { path: `${tmp.dir}/sub/m.db` });
    for (const [err, location] of [[pgErr, pgLocation], [fileErr, fileLocation]] as const) {
      assert.equal(errorForCaller(err, location, 'owner'), err, 'the owner keeps the whole message');
      for (const role of ['guest', 'agent', undefined] as const) {
        const seen = errorForCaller(err, location, role);
        assert.equal(seen.code, err.code);
        assertHides(JSON.stringify(seen.toJSON()), location);
        assert.ok(!JSON.stringify(seen.toJSON()).includes(tmp.dir), 'nor the store folder');
        assert.equal(seen.details?.location, undefined);
      }
    }
    const seen = errorForCaller(pgErr, pgLocation, 'guest');
    assert.match(seen.message, /^cannot reach PostgreSQL at \[hidden\]: connect ECONNREFUSED \[hidden\]; password authentication failed for user \[hidden\]/);
    assert.deepEqual(seen.details, { code: '28P01' }, 'the rest of the details stay');
    // Words that merely contain a host's or a name's text are left alone.
    const other = new MnemosError('validation_failed', 'field prod_mem_x of db.internal.example is wrong');
    assert.equal(errorForCaller(other, pgLocation, 'guest').message, other.message);
  });

  it(named("an error the surface wrote about the request keeps the caller's own words, even where they repeat the store's host"), () => {
    const pgLocation = 'postgres://mnemos_ci:***@db.example:5432/prod_mem';
    const hint = 'requests from web pages at origin "http://db.example:7420" are refused: start the server with --allow-host db.example';
    const own = requestError('forbidden', hint, { header: 'Origin', setting: '--allow-host or MNEMOS_ALLOWED_HOSTS' });
    for (const role of ['guest', 'agent', undefined] as const) assert.equal(errorForCaller(own, pgLocation, role), own, `${role}: passed on whole`);
    // The same words coming from below the surface (a store or driver error) are still hidden: only the origin differs.
    const fromStore = new MnemosError('forbidden', hint);
    assert.equal(errorForCaller(fromStore, pgLocation, undefined).message, 'requests from web pages at origin "http://[hidden]:7420" are refused: start the server with --allow-host [hidden]');
  });

  it(named("the browser guard's refusals name the Host the caller sent, also when the database has that host name"), async () => {
    // On PostgreSQL the test database's host (127.0.0.1) is the name the server is reached by: the clash itself.
    // On SQLite nothing clashes, and the answer must be the same.
    const db = tmp.store('guard-clash');
    const name = BACKEND === 'postgres' ? new URL(db).hostname : '127.0.0.1';
    const owner = (await createToken(db, 'owner')).token;
    // Bound beyond loopback without --allow-host: the page's own origin is refused with the --allow-host hint.
    const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--host', '0.0.0.0', '--db', db, '--consolidate-every-ms', '0', '--search-threads', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const loopback = await spawnServe(db, ['--consolidate-every-ms', '0', '--search-threads', '0']);
    try {
      const port = (await waitForStart(child, /mnemos serve: http:\/\/0\.0\.0\.0:(\d+)/, { what: 'mnemos serve --host 0.0.0.0' }))[1]!;
      const host = `${name}:${port}`;
      // No token at all, and a token: a caller not yet authenticated and the owner read the same hint.
      for (const auth of [{}, { authorization: `Bearer ${owner}` }] as Record<string, string>[]) {
        const r = await asBrowser(`http://127.0.0.1:${port}`, { ...auth, host, origin: `http://${host}` });
        assert.equal(r.status, 403, JSON.stringify(r.error));
        assert.match(r.error.message, new RegExp(`^requests from web pages at origin "http://${name.replace(/\./g, '\\.')}:${port}" are refused`));
        assert.match(r.error.message, new RegExp(`start the server with --allow-host ${name.replace(/\./g, '\\.')}$`));
        assert.ok(!r.error.message.includes('[hidden]'), r.error.message);
      }
      // A loopback server refusing a rebound name lists the names it answers to, 127.0.0.1 among them, whole.
      const lp = new URL(loopback.url).port;
      const rebound = await asBrowser(loopback.url, { host: `evil.example:${lp}` });
      assert.equal(rebound.status, 403);
      assert.equal(rebound.error.details.header, 'Host');
      assert.match(rebound.error.message, /it answers to localhost, 127\.0\.0\.1, \[::1\]\./);
    } finally {
      child.kill('SIGTERM');
      await exited;
      await loopback.stop();
    }
  });

  it(named('a guest whose request cannot reach PostgreSQL learns no host, role or database, over HTTP and MCP'), postgresOnly('needs a PostgreSQL server to lose'), async () => {
    if (BACKEND !== 'postgres') return;
    const direct = new URL(tmp.store('down'));
    const guest = (await createToken(direct.toString(), 'guest')).token;
    const link = await relay(direct);
    const via = new URL(direct);
    via.port = String(link.port);
    const server = await spawnServe(via.toString());
    try {
      assert.equal((await request(server.url, 'POST', '/v1/tools/memory_search', guest, { query: 'x' })).status, 200);
      await link.close();
      const r = await request(server.url, 'POST', '/v1/tools/memory_search', guest, { query: 'x' });
      assert.equal(r.status, 503, JSON.stringify(r.body));
      assert.equal(r.body.error.code, 'unavailable');
      assertHides(JSON.stringify(r.body), via.toString());
      const m = await mcpCall(server.url, guest, 'memory_search', { query: 'x' });
      assertHides(JSON.stringify(m.body), via.toString());
    } finally {
      await server.stop();
      await link.close();
    }
  });

  it(named("a guest's store error names no location; the owner's names it, password masked"), postgresOnly('a lock wait past ?lock_timeout= is the store error that names the location'), async () => {
    if (BACKEND !== 'postgres') return;
    const u = new URL(tmp.store('locked'));
    const schema = u.searchParams.get('schema')!;
    u.searchParams.set('lock_timeout', '300');
    const db = u.toString();
    const owner = (await createToken(db, 'owner')).token;
    const guest = (await createToken(db, 'guest')).token;
    const server = await spawnServe(db);
    const locker = await pgClient(schema);
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE memories IN ACCESS EXCLUSIVE MODE');
      const g = await request(server.url, 'POST', '/v1/memories', guest, { text: 'a guest note while locked' });
      assert.equal(g.body.error?.code, 'busy', JSON.stringify(g.body));
      assertHides(JSON.stringify(g.body), db);
      const m = await mcpCall(server.url, guest, 'working_memory_note', { note: 'a guest mcp note while locked' });
      assert.equal(m.isError, true);
      assert.equal(m.body.error.code, 'busy');
      assertHides(JSON.stringify(m.body), db);
      const o = await request(server.url, 'POST', '/v1/memories', owner, { text: 'an owner note while locked' });
      assert.equal(o.body.error?.code, 'busy');
      assert.ok(o.body.error.message.includes(`${u.host}/`), `the owner sees where: ${o.body.error.message}`);
      assert.ok(!o.body.error.message.includes(`:${u.password}@`), 'never the password');
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      await server.stop();
    }
  });
});
