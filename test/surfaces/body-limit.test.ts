import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { MnemosError } from '../../src/domain/errors.ts';
import { requestBodyLimit } from '../../src/surfaces/http/body-limit.ts';

/**
 * The body limit on its own, on the same node adapter as the server (the
 * server answers a declared oversized body before the app; the app's own
 * check must still hold for every way a body can arrive), and without it
 * asking the adapter for the web Request's body (a cost on every request).
 */
const LIMIT = 64;

async function withApp(run: (port: number) => Promise<void>): Promise<void> {
  const app = new Hono();
  app.onError((err, c) => c.json({ code: err instanceof MnemosError ? err.code : 'other' }, err instanceof MnemosError && err.code === 'limit_exceeded' ? 413 : 500));
  app.use('*', requestBodyLimit(LIMIT));
  app.all('/echo', async (c) => c.json({ bytes: (await c.req.arrayBuffer()).byteLength, method: c.req.method }));
  const listener = getRequestListener(app.fetch);
  const server: Server = createServer((req, res) => void listener(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    await run((server.address() as AddressInfo).port);
  } finally {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

/** Sends `body` with a declared length, in chunks without one (`chunked`), or no body at all (null). */
function send(port: number, method: string, body: string | null, chunked = false): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = body !== null && !chunked ? { 'content-length': String(Buffer.byteLength(body)) } : {};
    const req = httpRequest({ host: '127.0.0.1', port, path: '/echo', method, headers }, (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    if (body !== null && chunked) {
      // Two writes before end: node sends Transfer-Encoding: chunked.
      req.write(body.slice(0, 10));
      req.end(body.slice(10));
    } else req.end(body ?? undefined);
  });
}

describe('request body limit', () => {
  const cases: { name: string; method: string; body: string | null; chunked?: boolean; status: number; bytes?: number }[] = [
    { name: 'a GET without a body', method: 'GET', body: null, status: 200, bytes: 0 },
    { name: 'a POST without a body', method: 'POST', body: null, status: 200, bytes: 0 },
    { name: 'a declared body at the limit', method: 'POST', body: 'x'.repeat(LIMIT), status: 200, bytes: LIMIT },
    { name: 'a declared body one byte over', method: 'POST', body: 'x'.repeat(LIMIT + 1), status: 413 },
    { name: 'a chunked body under the limit', method: 'POST', body: 'y'.repeat(LIMIT - 4), chunked: true, status: 200, bytes: LIMIT - 4 },
    { name: 'a chunked body over the limit', method: 'POST', body: 'y'.repeat(LIMIT * 3), chunked: true, status: 413 },
    { name: 'a declared PUT over the limit', method: 'PUT', body: 'z'.repeat(LIMIT + 10), status: 413 },
  ];
  for (const t of cases) {
    it(`${t.name}: ${t.status}`, async () => {
      await withApp(async (port) => {
        const r = await send(port, t.method, t.body, t.chunked);
        assert.equal(r.status, t.status);
        if (t.status === 413) assert.equal(r.json.code, 'limit_exceeded');
        else assert.deepEqual(r.json, { bytes: t.bytes, method: t.method });
      });
    });
  }
});
