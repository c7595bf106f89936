import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OpenAiCompatibleEmbedder, parseRetryAfter } from '../../src/embedding/providers/openai-compatible.ts';
import { EmbeddingService } from '../../src/embedding/embedding-service.ts';
import { MnemosError } from '../../src/domain/errors.ts';

/** A local server speaking the /v1/embeddings protocol; each test scripts its replies. */
type Reply = (body: { model: string; input: string[]; dimensions?: number }, req: IncomingMessage, res: ServerResponse) => void;
let server: Server;
let baseUrl: string;
let replies: Reply[] = [];
let requests: Array<{ url: string | undefined; auth: string | undefined; body: Record<string, unknown> }> = [];

const ok =
  (dims = 3): Reply =>
  (body, _req, res) => {
    // Reverse order on purpose: clients must sort by index.
    const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: Array.from({ length: dims }, (_, d) => text.length + d) })).reverse();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
  };
const status =
  (code: number, headers: Record<string, string> = {}, message = 'nope'): Reply =>
  (_b, _r, res) =>
    res.writeHead(code, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: { message } }));

before(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { model: string; input: string[] };
      requests.push({ url: req.url, auth: req.headers.authorization, body });
      const reply = replies.shift() ?? status(500, {}, 'no scripted reply');
      reply(body, req, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const client = (extra: Partial<ConstructorParameters<typeof OpenAiCompatibleEmbedder>[0]> = {}): OpenAiCompatibleEmbedder =>
  new OpenAiCompatibleEmbedder({ baseUrl: `${baseUrl}/`, apiKey: 'sk-test', model: 'tiny-embed', dimensions: 3, timeoutMs: 2000, ...extra });
const fastRetries = { retry: { retries: 3, baseDelayMs: 1, maxDelayMs: 5 } };
const reset = (...r: Reply[]): void => {
  replies = r;
  requests = [];
};

test('success: protocol body and auth, vectors in input order', async () => {
  reset(ok());
  const e = client({ requestDimensions: true });
  const vectors = await e.embed(['a', 'bbb']);
  assert.deepEqual(vectors.map((v) => [...v]), [[1, 2, 3], [3, 4, 5]]);
  assert.equal(requests[0]!.url, '/v1/embeddings');
  assert.equal(requests[0]!.auth, 'Bearer sk-test');
  assert.deepEqual(requests[0]!.body, { model: 'tiny-embed', input: ['a', 'bbb'], encoding_format: 'float', dimensions: 3 });
  assert.equal(e.model, 'openai-compatible/tiny-embed/3');
  assert.deepEqual(await e.embed([]), []);
});

test('429 then success: the service retries (honouring Retry-After)', async () => {
  reset(status(429, { 'retry-after': '0' }, 'slow down'), ok());
  const delays: number[] = [];
  const service = new EmbeddingService(client(), { ...fastRetries, sleep: async (ms) => void delays.push(ms) });
  const [v] = await service.embed(['hello']);
  assert.deepEqual([...v!], [5, 6, 7]);
  assert.equal(requests.length, 2);
  assert.equal(delays.length, 1);
});

test('500 path: retried, then unavailable naming the status', async () => {
  reset(status(500), status(500), status(500), status(500));
  const service = new EmbeddingService(client(), fastRetries);
  await assert.rejects(service.embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['status'] === 500 && /HTTP 500/.test(e.message));
  assert.equal(requests.length, 4);
  reset(status(503), ok());
  assert.equal((await service.embed(['recovered']))[0]!.length, 3);
});

test('401 is not retried and says to check the key', async () => {
  reset(status(401, {}, 'invalid api key'));
  await assert.rejects(
    new EmbeddingService(client(), fastRetries).embed(['x']),
    (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['retryable'] === false && /API key/.test(e.message) && /invalid api key/.test(e.message),
  );
  assert.equal(requests.length, 1);
});

test('wrong dimensions and malformed bodies are unavailable, not retried', async () => {
  reset(ok(4));
  await assert.rejects(client().embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'dimension_mismatch');
  reset((_b, _r, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"data": "nope"}'));
  await assert.rejects(client().embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'bad_response');
});

test('timeout and unreachable server are retryable unavailable errors', async () => {
  reset((_b, _r, res) => setTimeout(() => ok()({ model: 'm', input: ['x'] }, _r, res), 500));
  await assert.rejects(client({ timeoutMs: 50 }).embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'timeout' && e.details?.['retryable'] === true);
  const closed = new OpenAiCompatibleEmbedder({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm', dimensions: 3, timeoutMs: 2000 });
  await assert.rejects(closed.embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'network');
});

test('configuration is validated; Retry-After parses seconds and dates', () => {
  for (const bad of [{ baseUrl: 'ftp://x' }, { model: '' }, { dimensions: 0 }]) {
    assert.throws(() => new OpenAiCompatibleEmbedder({ baseUrl: 'http://x/v1', model: 'm', dimensions: 3, ...bad }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  }
  const now = Date.parse('2024-01-01T00:00:00Z');
  const cases: Array<[string | null, number | undefined]> = [[null, undefined], ['2', 2000], ['0.5', 500], ['Mon, 01 Jan 2024 00:00:03 GMT', 3000], ['soon', undefined]];
  for (const [header, ms] of cases) assert.equal(parseRetryAfter(header, now), ms, String(header));
});
