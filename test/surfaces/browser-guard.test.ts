import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { named, testStores, type TestStores } from '../helpers/backend.ts';
import { waitForExit } from '../helpers/child-wait.ts';
import { createToken, MNEMOS_BIN, raw, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/**
 * A web page on another site, or one that renamed 127.0.0.1 by DNS rebinding,
 * makes the user's browser send requests to the server. The MCP streamable
 * HTTP transport requires servers to check Origin; Mnemos checked neither
 * Origin nor Host, so `Origin: http://evil.example` and `Host: evil.example`
 * were answered 200 with a valid token, and JSON went out without nosniff.
 */

const MCP_LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

describe(named('HTTP: web pages and rebound host names'), () => {
  let t: TestStores;
  let server: SpawnedServer;
  let owner: string;
  let port: string;

  before(async () => {
    t = testStores('mnemos-browser-guard-');
    owner = (await createToken(t.db, 'owner')).token;
    server = await spawnServe(t.db, ['--consolidate-every-ms', '0', '--search-threads', '0']);
    port = new URL(server.url).port;
  });
  after(async () => {
    await server.stop();
    await t.cleanup();
  });

  it(named('a page from another origin is refused (403) on /v1 and /mcp, even with a valid token, and gets no CORS header'), async () => {
    const auth = { authorization: `Bearer ${owner}`, origin: 'http://evil.example' };
    const v1 = await raw(server.url, 'GET', '/v1/status', auth);
    assert.equal(v1.status, 403);
    assert.equal(v1.body.error.code, 'forbidden');
    assert.equal(v1.body.error.details.header, 'Origin');
    assert.match(v1.body.error.message, /--allow-origin/);
    assert.equal(v1.headers['access-control-allow-origin'], undefined);
    const mcp = await raw(server.url, 'POST', '/mcp', { ...auth, ...MCP_HEADERS }, MCP_LIST);
    assert.equal(mcp.status, 403);
    assert.equal(mcp.body.error.code, 'forbidden');
    // `null` is what sandboxed frames and file:// pages send.
    assert.equal((await raw(server.url, 'GET', '/v1/status', { ...auth, origin: 'null' })).status, 403);
  });

  it(named('a preflight from another origin is refused, not answered permissively'), async () => {
    const pre = await raw(server.url, 'OPTIONS', '/mcp', { origin: 'http://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
    assert.equal(pre.status, 403);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    assert.equal(pre.headers['access-control-allow-headers'], undefined);
  });

  it(named("a request naming another host (DNS rebinding) is refused on a loopback server, with or without a token"), async () => {
    for (const path of ['/v1/self', '/openapi.json']) {
      const r = await raw(server.url, 'GET', path, { host: `evil.example:${port}`, authorization: `Bearer ${owner}` });
      assert.equal(r.status, 403, path);
      assert.equal(r.body.error.details.header, 'Host');
      assert.match(r.body.error.message, /--allow-host/);
    }
    const mcp = await raw(server.url, 'POST', '/mcp', { host: `evil.example:${port}`, ...MCP_HEADERS }, MCP_LIST);
    assert.equal(mcp.status, 403);
    // Probes name the server as they please; the answers carry nothing.
    assert.equal((await raw(server.url, 'GET', '/healthz', { host: `evil.example:${port}` })).status, 200);
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, 'LOCALHOST']) {
      assert.equal((await raw(server.url, 'GET', '/v1/self', { host, authorization: `Bearer ${owner}` })).status, 200, host);
    }
  });

  it(named('clients that are not browsers (no Origin) work as before; every answer says nosniff'), async () => {
    const ok = await raw(server.url, 'GET', '/v1/status', { authorization: `Bearer ${owner}` });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['x-content-type-options'], 'nosniff');
    const mcp = await raw(server.url, 'POST', '/mcp', { authorization: `Bearer ${owner}`, ...MCP_HEADERS }, MCP_LIST);
    assert.equal(mcp.status, 200);
    assert.ok(mcp.body.result.tools.length > 0);
    assert.equal(mcp.headers['x-content-type-options'], 'nosniff', 'the MCP transport answers with a Response of its own');
    for (const path of ['/v1/nope', '/healthz']) assert.equal((await raw(server.url, 'GET', path, {})).headers['x-content-type-options'], 'nosniff', path);
  });

  it(named('a token is taken only from the Authorization header: not from the query string or a cookie, and never logged'), async () => {
    for (const headers of [{}, { cookie: `token=${owner}; authorization=Bearer%20${owner}` }] as Record<string, string>[]) {
      const r = await raw(server.url, 'GET', `/v1/status?token=${owner}&access_token=${owner}`, headers);
      assert.equal(r.status, 401);
      assert.ok(!JSON.stringify(r.body).includes(owner));
    }
    const wrong = await raw(server.url, 'GET', '/v1/status', { authorization: 'Basic c2VjcmV0LXZhbHVlOng=' });
    assert.equal(wrong.status, 401);
    assert.ok(!JSON.stringify(wrong.body).includes('c2VjcmV0LXZhbHVlOng'), 'the header is not echoed');
    assert.ok(!server.stderr().includes(owner), 'no token in the server log');
  });
});

describe(named('HTTP: origins and host names allowed by setting'), () => {
  let t: TestStores;
  let server: SpawnedServer;
  let owner: string;
  let port: string;

  before(async () => {
    t = testStores('mnemos-browser-allow-');
    owner = (await createToken(t.db, 'owner')).token;
    process.env.MNEMOS_ALLOWED_HOSTS = 'mnemos.test';
    try {
      server = await spawnServe(t.db, ['--consolidate-every-ms', '0', '--search-threads', '0', '--allow-origin', 'http://localhost:5173/', '--allow-origin', 'https://app.example']);
    } finally {
      delete process.env.MNEMOS_ALLOWED_HOSTS;
    }
    port = new URL(server.url).port;
  });
  after(async () => {
    await server.stop();
    await t.cleanup();
  });

  it(named('an allowed origin gets its preflight and CORS headers, on /v1 and /mcp, errors included'), async () => {
    const origin = 'http://localhost:5173';
    const pre = await raw(server.url, 'OPTIONS', '/mcp', { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], origin);
    assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/);
    const mcp = await raw(server.url, 'POST', '/mcp', { origin, authorization: `Bearer ${owner}`, ...MCP_HEADERS }, MCP_LIST);
    assert.equal(mcp.status, 200);
    assert.equal(mcp.headers['access-control-allow-origin'], origin);
    assert.equal(mcp.headers.vary, 'Origin');
    const bad = await raw(server.url, 'GET', '/v1/status', { origin: 'https://app.example', authorization: 'Bearer nope' });
    assert.equal(bad.status, 401);
    assert.equal(bad.headers['access-control-allow-origin'], 'https://app.example', 'the page can read why it was refused');
    assert.equal((await raw(server.url, 'GET', '/v1/status', { origin: 'http://localhost:5174', authorization: `Bearer ${owner}` })).status, 403, 'another port is another origin');
  });

  it(named('MNEMOS_ALLOWED_HOSTS adds a host name, any port; others stay refused'), async () => {
    assert.equal((await raw(server.url, 'GET', '/v1/self', { host: 'mnemos.test:443', authorization: `Bearer ${owner}` })).status, 200);
    assert.equal((await raw(server.url, 'GET', '/v1/self', { host: `evil.example:${port}`, authorization: `Bearer ${owner}` })).status, 403);
  });
});

describe(named('serve: a bad origin setting'), () => {
  it(named('is refused naming the option before the store is created'), async () => {
    const t = testStores('mnemos-browser-bad-');
    const db = t.store('fresh.db');
    const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--db', db, '--allow-origin', 'http://localhost:5173/app'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr!.on('data', (d) => (err += d));
    try {
      const { code } = await waitForExit(child, { what: 'mnemos serve with a bad origin', stderr: () => err });
      assert.notEqual(code, 0);
      assert.match(err, /--allow-origin.*not an origin/);
      if (!db.startsWith('postgres')) assert.ok(!existsSync(join(t.dir, 'fresh.db')), 'no store was created');
    } finally {
      await t.cleanup();
    }
  });
});
