import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

interface RawReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** One request with exact bytes and headers (fetch would set its own content type and encoding). */
function raw(url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<RawReply> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: u.hostname, port: u.port, path, method, headers: { ...headers, ...(body ? { 'content-length': String(body.length) } : {}) }, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** How a client developer meets the HTTP protocol of `mnemos serve`: methods, query strings, body bytes, shutdown. */
describe('HTTP protocol details (mnemos serve)', () => {
  const tmp = testStores('mnemos-http-proto-');
  let server: SpawnedServer;
  let owner: string;
  const auth = () => ({ authorization: `Bearer ${owner}` });

  before(async () => {
    owner = (await createToken(tmp.db, 'owner')).token;
    server = await spawnServe(tmp.db, ['--consolidate-every-ms', '0']);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it(named('a known path under another method is 405 with Allow, OPTIONS is 204 with Allow'), async () => {
    const search = await raw(server.url, 'GET', '/v1/search', auth());
    assert.equal(search.status, 405, search.text);
    assert.equal(search.headers.allow, 'OPTIONS, POST');
    const body = JSON.parse(search.text);
    assert.equal(body.error.code, 'unsupported');
    assert.match(body.error.message, /\/v1\/search does not take GET; it takes POST/);
    const del = await raw(server.url, 'DELETE', '/v1/memories/01ABC', auth());
    assert.equal(del.status, 405);
    assert.equal(del.headers.allow, 'GET, HEAD, OPTIONS');
    const options = await raw(server.url, 'OPTIONS', '/v1/memories', auth());
    assert.equal(options.status, 204);
    // GET lists memories (http-list.test.ts), POST stores them.
    assert.equal(options.headers.allow, 'GET, HEAD, OPTIONS, POST');
    // A path that is no route at all is still 404; a trailing slash is pointed out.
    assert.equal((await raw(server.url, 'GET', '/v1/nothing', auth())).status, 404);
    const slash = await raw(server.url, 'GET', '/v1/status/', auth());
    assert.equal(slash.status, 404);
    assert.match(JSON.parse(slash.text).error.message, /did you mean \/v1\/status \(without the trailing slash\)/);
  });

  it(named('query strings: a repeated parameter, the path id repeated, an unknown parameter are 400 naming it'), async () => {
    const id = (await request(server.url, 'POST', '/v1/memories', owner, { text: 'query string probe' })).body.id;
    const twice = await request(server.url, 'GET', '/v1/status?action=status&action=sync', owner);
    assert.equal(twice.status, 400);
    assert.equal(twice.body.error.details.field, 'action');
    assert.match(twice.body.error.message, /action is given 2 times/);
    const other = await request(server.url, 'GET', `/v1/memories/${id}?id=someone-else`, owner);
    assert.equal(other.status, 400);
    assert.equal(other.body.error.details.field, 'id');
    const unknown = await request(server.url, 'GET', `/v1/memories/${id}/history?limt=5`, owner);
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.details.field, 'limt', 'details.field names the unknown parameter');
    const bodyKey = await request(server.url, 'POST', '/v1/search', owner, { query: 'probe', maxResult: 3 });
    assert.equal(bodyKey.body.error.details.field, 'maxResult', 'and an unknown body field too');
    const bare = await request(server.url, 'POST', '/v1/memories', owner, [{ text: 'one of a bare array' }]);
    assert.equal(bare.status, 400);
    assert.match(bare.body.error.message, /\{"memories": \[\.\.\.\]\}/, 'a bare array is told how a batch is sent');
    assert.equal((await request(server.url, 'GET', `/v1/memories/${id}`, owner)).status, 200);
  });

  it(named('a body that is not UTF-8 is refused and nothing is stored; a BOM and text/plain are fine'), async () => {
    const latin1 = Buffer.concat([Buffer.from('{"text":"caf'), Buffer.from([0xe9]), Buffer.from(' latin1 probe","key":"latin1-probe"}')]);
    const r = await raw(server.url, 'POST', '/v1/memories', { ...auth(), 'content-type': 'application/json; charset=iso-8859-1' }, latin1);
    assert.equal(r.status, 400, r.text);
    const e = JSON.parse(r.text).error;
    assert.equal(e.code, 'validation_failed');
    assert.equal(e.details.field, '(body)');
    assert.match(e.message, /not valid UTF-8 \(it declares charset iso-8859-1/);
    const rows = await rawSql(tmp.db, 'SELECT count(*) AS n FROM memories WHERE source_key = ?', 'latin1-probe');
    assert.equal(Number(rows[0]!.n), 0, 'no memory with U+FFFD in place of the byte');
    const bom = await raw(server.url, 'POST', '/v1/memories', { ...auth(), 'content-type': 'application/json' }, Buffer.from('\uFEFF{"text":"café with a BOM","key":"bom-probe"}'));
    assert.equal(bom.status, 201, bom.text);
    const plain = await raw(server.url, 'POST', '/v1/search', { ...auth(), 'content-type': 'text/plain' }, Buffer.from('{"query":"café"}'));
    assert.equal(plain.status, 200);
    assert.ok(JSON.parse(plain.text).results.some((x: { text: string }) => x.text === 'café with a BOM'));
  });

  it(named('the OpenAPI document refuses the times the server refuses'), async () => {
    const doc = (await request(server.url, 'GET', '/openapi.json', null)).body;
    const since = doc.paths['/v1/search'].post.requestBody.content['application/json'].schema.properties.since;
    assert.ok(since.pattern, 'an ISO time carries its shape as a pattern');
    const shape = new RegExp(since.pattern, 'u');
    for (const bad of ['yesterday', '2026-5-1', '1']) {
      assert.equal(shape.test(bad), false, bad);
      assert.equal((await request(server.url, 'POST', '/v1/search', owner, { query: 'x', since: bad })).status, 400, bad);
    }
    for (const good of ['2026-05-01', '2026-05-01T12:00:00Z', '2026-05-01T12:00:00.123+02:00']) {
      assert.equal(shape.test(good), true, good);
      assert.equal((await request(server.url, 'POST', '/v1/search', owner, { query: 'x', since: good })).status, 200, good);
    }
  });

  it(named('MCP over HTTP refuses a body that is not UTF-8 with a JSON-RPC parse error'), async () => {
    const headers = { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    const call = (text: Buffer) => raw(server.url, 'POST', '/mcp', headers, text);
    const msg = (args: string) => `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"working_memory_note","arguments":{"note":"${args}"}}}`;
    const latin1 = Buffer.concat([Buffer.from(msg('caf').slice(0, -5)), Buffer.from([0xe9]), Buffer.from(' mcp latin1"}}}')]);
    const bad = await call(latin1);
    assert.equal(bad.status, 400, bad.text);
    assert.equal(JSON.parse(bad.text).error.code, -32700);
    assert.match(JSON.parse(bad.text).error.message, /not valid UTF-8/);
    const search = await request(server.url, 'POST', '/v1/search', owner, { query: 'mcp latin1' });
    assert.equal(search.body.results.length, 0, 'nothing was stored');
    const good = await call(Buffer.from(msg('café mcp utf8')));
    assert.equal(good.status, 200, good.text);
    assert.equal((await request(server.url, 'POST', '/v1/search', owner, { query: 'café mcp utf8' })).body.results[0]?.text, 'café mcp utf8');
    const get = await raw(server.url, 'GET', '/mcp', auth());
    assert.deepEqual([get.status, get.headers.allow], [405, 'POST']);
  });

  it(named('a key that holds the same text with another visibility, type or agent is 409, never a silent unchanged'), async () => {
    const first = await request(server.url, 'POST', '/v1/memories', owner, { text: 'the team calendar link', key: 'cal-1', visibility: 'public' });
    assert.equal(first.status, 201);
    const retry = await request(server.url, 'POST', '/v1/memories', owner, { text: 'the team calendar link', key: 'cal-1', visibility: 'public' });
    assert.deepEqual([retry.status, retry.body.status], [200, 'unchanged'], 'the same request again is still idempotent');
    const hide = await request(server.url, 'POST', '/v1/memories', owner, { text: 'the team calendar link', key: 'cal-1', visibility: 'owner' });
    assert.equal(hide.status, 409, JSON.stringify(hide.body));
    assert.equal(hide.body.error.code, 'conflict');
    assert.equal(hide.body.error.details.field, 'visibility');
    assert.match(hide.body.error.message, /visibility "public", not "owner"/);
    const kind = await request(server.url, 'POST', '/v1/memories', owner, { memories: [{ text: 'new one in the batch', key: 'cal-2' }, { text: 'the team calendar link', key: 'cal-1', visibility: 'public', type: 'preference' }] });
    assert.equal(kind.status, 409);
    assert.equal(kind.body.error.details.field, 'type');
    assert.equal((await request(server.url, 'POST', '/v1/search', owner, { query: 'new one in the batch' })).body.results.length, 0, 'the batch wrote nothing');
    const stored = await request(server.url, 'GET', `/v1/memories/${first.body.id}`, owner);
    assert.equal(stored.body.memory.visibility, 'public');
  });

  it(named('a URL past the header limit is 431 and a request that is not HTTP is 400, both with the JSON error shape'), async () => {
    // Node's parser refuses these before any handler runs; its own answer was a bare `431` with no body.
    const long = await raw(server.url, 'GET', `/v1/search?query=${'a'.repeat(20_000)}`, auth());
    assert.equal(long.status, 431, long.text);
    assert.equal(long.headers['content-type'], 'application/json');
    assert.equal(long.headers.connection, 'close');
    const e = JSON.parse(long.text).error;
    assert.equal(e.code, 'limit_exceeded');
    assert.match(e.message, /URL and headers are larger than the server accepts .*POST body/);
    const u = new URL(server.url);
    const garbage = await new Promise<string>((resolve, reject) => {
      let text = '';
      const s = connect(Number(u.port), u.hostname, () => s.write('NOT HTTP AT ALL\r\n\r\n'));
      s.setEncoding('utf8');
      s.on('data', (d: string) => (text += d));
      s.on('end', () => resolve(text));
      s.on('error', reject);
    });
    assert.match(garbage, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.equal(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)).error.code, 'validation_failed');
    // The server still answers.
    assert.equal((await raw(server.url, 'GET', '/v1/status', auth())).status, 200);
  });

  it(named('SIGTERM: a request in flight finishes with Connection: close, new connections are refused, the store closes'), async () => {
    const u = new URL(server.url);
    const body = Buffer.from(JSON.stringify({ text: 'written while the server stops', key: 'in-flight-at-sigterm' }));
    // A keep-alive client, as fetch and most HTTP libraries are: without one the answer closes anyway.
    const agent = new Agent({ keepAlive: true });
    let answered!: (r: RawReply) => void;
    const reply = new Promise<RawReply>((resolve) => (answered = resolve));
    const req = httpRequest(
      { host: u.hostname, port: u.port, path: '/v1/memories', method: 'POST', agent, headers: { ...auth(), 'content-type': 'application/json', 'content-length': String(body.length) } },
      (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => answered({ status: res.statusCode!, headers: res.headers, text }));
      },
    );
    // Half the body is sent: the request is in flight when the signal arrives.
    req.write(body.subarray(0, 10));
    await new Promise((r) => setTimeout(r, 200));
    const exited = server.stop('SIGTERM');
    await new Promise<void>((resolve) => {
      const check = () => (/finishing in-flight requests/.test(server.stderr()) ? resolve() : setTimeout(check, 20));
      check();
    });
    req.end(body.subarray(10));
    const r = await reply;
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.connection, 'close', 'a client is told not to send its next request on this socket');
    agent.destroy();
    await assert.rejects(raw(server.url, 'GET', '/healthz', {}), /ECONNREFUSED/);
    assert.equal(await exited, 0, server.stderr());
    assert.match(server.stderr(), /closing the store/);
    const rows = await rawSql(tmp.db, 'SELECT count(*) AS n FROM memories WHERE source_key = ?', 'in-flight-at-sigterm');
    assert.equal(Number(rows[0]!.n), 1);
  });
});
