import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Hono } from 'hono';
import { MnemosError } from '../../src/domain/errors.ts';
import { browserGuard, browserPolicy } from '../../src/surfaces/http/browser-guard.ts';
import { named, testStores, type TestStores } from '../helpers/backend.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { createToken, MNEMOS_BIN, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/**
 * The web inspector promised beside the library, CLI, MCP server and HTTP API
 * did not exist. It is a page, a script and a style sheet served by `mnemos
 * serve`; its reads go through the /v1 routes with the typed token. These
 * tests hold its files, headers and the one change to the browser guard (a
 * page's own origin is allowed) to what was promised.
 */

const ASSETS = join(import.meta.dirname, '../../src/surfaces/inspector/assets');

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** node:http, not fetch: fetch normalizes `..` out of a path and does not let a caller choose Host. */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + path, { method, headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function assertPageHeaders(r: Raw, what: string): void {
  const csp = String(r.headers['content-security-policy'] ?? '');
  assert.match(csp, /default-src 'self'/, what);
  assert.match(csp, /script-src 'self'(;|$)/, what);
  assert.match(csp, /style-src 'self'(;|$)/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*/, what);
  assert.equal(r.headers['x-content-type-options'], 'nosniff', what);
  assert.equal(r.headers['referrer-policy'], 'no-referrer', what);
}

describe(named('web inspector over HTTP'), () => {
  let t: TestStores;
  let server: SpawnedServer;
  let owner: string;
  let guest: string;
  let port: string;
  let privateId: string;
  let publicId: string;
  const PRIVATE = 'The owner keeps the quillfeather ledger in the blue drawer';
  const PUBLIC = 'The quillfeather meetup is on Thursdays';

  const json = async (path: string, token: string, headers: Record<string, string> = {}, method = 'GET', body?: unknown) => {
    const r = await raw(server.url, method, path, { authorization: `Bearer ${token}`, ...headers }, body === undefined ? undefined : JSON.stringify(body));
    return { status: r.status, headers: r.headers, body: r.text ? JSON.parse(r.text) : null };
  };

  before(async () => {
    t = testStores('mnemos-inspector-http-');
    owner = (await createToken(t.db, 'owner')).token;
    guest = (await createToken(t.db, 'guest')).token;
    server = await spawnServe(t.db, ['--consolidate-every-ms', '0', '--search-threads', '0']);
    port = new URL(server.url).port;
    privateId = (await json('/v1/memories', owner, {}, 'POST', { text: PRIVATE, type: 'fact' })).body.id;
    publicId = (await json('/v1/memories', owner, {}, 'POST', { text: PUBLIC, type: 'fact', visibility: 'public' })).body.id;
  });
  after(async () => {
    await server?.stop();
    await t.cleanup();
  });

  it(named('serve prints the inspector URL, and self_state says the inspector is on'), async () => {
    assert.match(server.stderr(), new RegExp(`inspector ${server.url}/inspector`));
    const self = await json('/v1/self', guest);
    const part = self.body.parts.find((p: { part: string }) => p.part === 'web_inspector');
    assert.equal(part.state, 'on');
    assert.match(part.why, /\/inspector/);
  });

  it(named('GET /inspector is the page, without a token, with a strict CSP, nosniff and no referrer; it has no inline script or style'), async () => {
    const r = await raw(server.url, 'GET', '/inspector', {});
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /^text\/html; charset=utf-8/);
    assertPageHeaders(r, '/inspector');
    assert.equal(r.text, readFileSync(join(ASSETS, 'index.html'), 'utf8'));
    assert.match(r.text, /<script src="\/inspector\/assets\/inspector\.js" defer><\/script>/);
    assert.match(r.text, /<link rel="stylesheet" href="\/inspector\/assets\/inspector\.css">/);
    // Every script element has a src and is empty; no style element, no style or on* attribute.
    for (const m of r.text.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)) {
      assert.match(m[1]!, /src=/);
      assert.equal(m[2], '');
    }
    assert.doesNotMatch(r.text, /<style|\sstyle=|\son[a-z]+=/i);
  });

  it(named('the script, the style sheet and the icon are served with their types and the same headers'), async () => {
    for (const [name, type] of [['inspector.js', /^text\/javascript; charset=utf-8/], ['inspector.css', /^text\/css; charset=utf-8/], ['favicon.svg', /^image\/svg\+xml$/]] as const) {
      const r = await raw(server.url, 'GET', `/inspector/assets/${name}`, {});
      assert.equal(r.status, 200, name);
      assert.match(String(r.headers['content-type']), type, name);
      assertPageHeaders(r, name);
      assert.equal(r.text, readFileSync(join(ASSETS, name), 'utf8'), name);
    }
    // The script puts memory text in as text: no HTML sink anywhere in it.
    const js = readFileSync(join(ASSETS, 'inspector.js'), 'utf8');
    assert.doesNotMatch(js, /innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
    assert.doesNotMatch(js, /localStorage/);
  });

  it(named('an unknown asset is 404, and no path outside the four files is ever read (traversal)'), async () => {
    const unknown = await raw(server.url, 'GET', '/inspector/assets/nope.js', {});
    assert.equal(unknown.status, 404);
    assert.equal(JSON.parse(unknown.text).error.code, 'not_found');
    assert.match(JSON.parse(unknown.text).error.message, /inspector\.js, inspector\.css/);
    const packageJson = readFileSync(join(import.meta.dirname, '../../package.json'), 'utf8');
    const routes = readFileSync(join(import.meta.dirname, '../../src/surfaces/inspector/inspector-routes.ts'), 'utf8');
    for (const path of [
      '/inspector/assets/..%2finspector-routes.ts',
      '/inspector/assets/%2e%2e%2f%2e%2e%2f%2e%2e%2f%2e%2e%2fpackage.json',
      '/inspector/assets/..%5c..%5cpackage.json',
      '/inspector/assets/../inspector-routes.ts',
      '/inspector/../../../package.json',
      '/inspector/assets/index.html/..%2f..%2finspector-routes.ts',
      '/inspector/assets/%2fetc%2fpasswd',
      '/inspector/assets/constructor',
      '/inspector/assets/__proto__',
    ]) {
      const r = await raw(server.url, 'GET', path, {});
      assert.equal(r.status, 404, `${path}: ${r.status} ${r.text.slice(0, 200)}`);
      assert.ok(!r.text.includes('"devDependencies"') && !r.text.includes(routes.slice(0, 80)) && !r.text.includes('root:'), path);
      assert.ok(!packageJson.includes(r.text), path);
    }
  });

  it(named("the page's own fetches (Origin = the server's origin) are allowed; a foreign origin stays refused"), async () => {
    const search = { query: 'quillfeather' };
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`]) {
      const own = await json('/v1/search', owner, { host, origin: `http://${host}` }, 'POST', search);
      assert.equal(own.status, 200, `${host}: ${JSON.stringify(own.body)}`);
      assert.equal(own.body.results.length, 2);
      const list = await json('/v1/memories?limit=1', owner, { host, origin: `http://${host}` });
      assert.equal(list.status, 200);
    }
    for (const origin of ['http://evil.example', `http://evil.example:${port}`, 'http://127.0.0.1:1', `http://localhost:${port}.evil.example`, 'null']) {
      const r = await json('/v1/search', owner, { origin }, 'POST', search);
      assert.equal(r.status, 403, origin);
      assert.equal(r.body.error.details.header, 'Origin', origin);
      assert.equal(r.headers['access-control-allow-origin'], undefined, origin);
    }
    // An origin naming the host this request names is trusted only once that host was checked: a rebound name is refused.
    const rebound = await json('/v1/search', owner, { host: `evil.example:${port}`, origin: `http://evil.example:${port}` }, 'POST', search);
    assert.equal(rebound.status, 403);
    assert.equal(rebound.body.error.details.header, 'Host');
  });

  it(named('bound beyond loopback with no Host names, the start lines and the refusal of its own page both point to --allow-host'), async () => {
    assert.doesNotMatch(server.stderr(), /web inspector:/, 'a loopback server checks Host: its inspector just works');
    const child = spawn(process.execPath, [MNEMOS_BIN, 'serve', '--port', '0', '--host', '0.0.0.0', '--db', t.db, '--consolidate-every-ms', '0', '--search-threads', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      const open = (await waitForStart(child, /mnemos serve: http:\/\/0\.0\.0\.0:(\d+)[^]*web inspector: its searches need --allow-host/, { what: 'mnemos serve --host 0.0.0.0' }))[1]!;
      // The page's own POST, as the browser sends it: its Origin repeats the Host, which this server cannot vouch for.
      // By name; 127.0.0.1, on PostgreSQL also the database's host, is error-location.test.ts's case.
      const host = `localhost:${open}`;
      const r = await raw(`http://127.0.0.1:${open}`, 'POST', '/v1/search', { authorization: `Bearer ${owner}`, host, origin: `http://${host}` }, JSON.stringify({ query: 'quillfeather' }));
      assert.equal(r.status, 403);
      const error = JSON.parse(r.text).error;
      assert.equal(error.code, 'forbidden');
      assert.deepEqual(error.details, { header: 'Origin', setting: '--allow-host or MNEMOS_ALLOWED_HOSTS' });
      assert.match(error.message, /it names this server, but the server checks no Host names.*start the server with --allow-host localhost$/);
      // A foreign page is still told about --allow-origin.
      const foreign = await raw(`http://127.0.0.1:${open}`, 'POST', '/v1/search', { authorization: `Bearer ${owner}`, host, origin: 'http://evil.example' }, JSON.stringify({ query: 'quillfeather' }));
      assert.equal(foreign.status, 403);
      assert.equal(JSON.parse(foreign.text).error.details.setting, '--allow-origin or MNEMOS_ALLOWED_ORIGINS');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });

  it(named('a guest token sees only what a guest may: the public memory, never the owner-only one'), async () => {
    const headers = { origin: server.url };
    const list = await json('/v1/memories?limit=100', guest, headers);
    assert.equal(list.status, 200);
    assert.deepEqual(list.body.items.map((m: { id: string }) => m.id), [publicId]);
    const found = await json('/v1/search', guest, headers, 'POST', { query: 'quillfeather ledger drawer' });
    assert.deepEqual(found.body.results.map((r: { id: string }) => r.id), [publicId]);
    const hidden = await json(`/v1/memories/${privateId}/history`, guest, headers);
    assert.equal(hidden.status, 404);
    assert.ok(!JSON.stringify(hidden.body).includes('blue drawer'));
    const status = await json('/v1/status', guest, headers);
    assert.equal(status.status, 200);
    const noToken = await json('/v1/status', 'not-a-token', headers);
    assert.equal(noToken.status, 401);
  });

  it(named("the detail view's route (history) recalls nothing: looking does not change what is looked at"), async () => {
    const before = (await json(`/v1/memories/${publicId}/history`, owner)).body.versions[0];
    for (let i = 0; i < 3; i++) assert.equal((await json(`/v1/memories/${publicId}/history`, owner)).status, 200);
    const afterLooks = (await json(`/v1/memories/${publicId}/history`, owner)).body.versions[0];
    assert.equal(afterLooks.accessCount, before.accessCount);
    assert.equal(afterLooks.lastAccessedAt, before.lastAccessedAt);
    // GET /v1/memories/:id is a recall: why the inspector does not use it for its detail view.
    await json(`/v1/memories/${publicId}`, owner);
    const recalled = (await json(`/v1/memories/${publicId}/history`, owner)).body.versions[0];
    assert.ok(recalled.accessCount > before.accessCount);
  });
});

describe('browser guard: the own origin is trusted only where Host is checked', () => {
  const app = (bindHost: string, hosts: string[] = []) => {
    const a = new Hono();
    a.onError((err, c) => c.json({ code: (err as MnemosError).code, header: (err as MnemosError).details?.header }, 403));
    a.use('*', browserGuard(browserPolicy(bindHost, [], hosts)));
    a.post('/v1/x', (c) => c.text('ok'));
    return a;
  };
  const post = (a: Hono, host: string, origin: string) => a.request('http://x/v1/x', { method: 'POST', headers: { host, origin } });

  it('a loopback server allows its own origin, http or https (a TLS proxy), with the port the Host names', async () => {
    const a = app('127.0.0.1');
    assert.equal((await post(a, '127.0.0.1:7420', 'http://127.0.0.1:7420')).status, 200);
    assert.equal((await post(a, 'localhost:7420', 'https://localhost:7420')).status, 200);
    assert.equal((await post(a, 'localhost', 'http://localhost')).status, 200);
    assert.equal((await post(a, 'localhost:7420', 'http://localhost:7421')).status, 403);
    assert.equal((await post(a, 'localhost:7420', 'http://127.0.0.1:7420')).status, 403, 'another name is another origin');
  });

  it('a server checking no Host names (bound to 0.0.0.0, no --allow-host) does not trust an Origin that merely repeats the Host', async () => {
    const open = app('0.0.0.0');
    const r = await post(open, `evil.example:7420`, 'http://evil.example:7420');
    assert.equal(r.status, 403);
    assert.equal(((await r.json()) as { header: string }).header, 'Origin');
    const listed = app('0.0.0.0', ['mnemos.internal']);
    assert.equal((await post(listed, 'mnemos.internal:7420', 'http://mnemos.internal:7420')).status, 200);
    assert.equal((await post(listed, 'evil.example:7420', 'http://evil.example:7420')).status, 403);
  });
});
