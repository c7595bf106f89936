import assert from 'node:assert/strict';
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { after, describe, it } from 'node:test';
import { startServer } from '../../src/surfaces/http/server.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, postgresOnly, testStores } from '../helpers/backend.ts';
import { request, spawnServe } from './serve-helpers.ts';

/**
 * A TCP relay to the test PostgreSQL server: a store opened through it loses
 * its server when the relay closes, as when PostgreSQL goes down, without
 * touching the shared cluster. `port` reopens it where a store's URL points.
 */
async function relay(target: URL, port = 0): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', end);
      s.on('close', () => (sockets.delete(s), end()));
    }
    client.pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  };
}

/** Pieces of a store location an unauthenticated or non-owner caller must not learn. */
function locationParts(location: string): string[] {
  if (!/^postgres(ql)?:\/\//.test(location)) return [location];
  const u = new URL(location);
  return [u.host, u.hostname, u.username, u.pathname.slice(1), u.searchParams.get('schema') ?? ''].filter((p) => p.length > 0);
}

function assertHides(message: string, location: string): void {
  for (const part of locationParts(location)) assert.ok(!message.includes(part), `"${message}" names ${part}`);
}

describe('GET /readyz', () => {
  const tmp = testStores('mnemos-ready-');
  after(() => tmp.cleanup());

  it(named('answers {ok:true} without a token while the store answers, and is in /openapi.json'), async () => {
    const server = await spawnServe(tmp.db);
    try {
      const r = await request(server.url, 'GET', '/readyz', null);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body, { ok: true });
      const doc = (await request(server.url, 'GET', '/openapi.json', null)).body;
      assert.deepEqual(doc.paths['/readyz'].get.security, []);
      assert.ok(doc.paths['/readyz'].get.responses['503']);
    } finally {
      await server.stop();
    }
  });

  it(named('answers 503 unavailable, naming no location, once the store cannot be reached'), async () => {
    const db = tmp.store('closed.db');
    const memory = await openMemory({ db });
    const logged: string[] = [];
    const server = await startServer({ memory, host: '127.0.0.1', port: 0, log: (l) => logged.push(l) });
    try {
      assert.equal((await request(server.url, 'GET', '/readyz', null)).status, 200);
      await memory.store.close(); // the store's connection is gone, as after a failure
      const r = await request(server.url, 'GET', '/readyz', null);
      assert.equal(r.status, 503);
      assert.equal(r.body.error.code, 'unavailable');
      assert.match(r.body.error.message, /store cannot be reached/);
      assertHides(r.body.error.message, memory.store.location);
      // The owner reading the server log learns the cause, once however often the probe asks.
      await request(server.url, 'GET', '/readyz', null);
      assert.equal(logged.filter((l) => l.startsWith('readyz: not ready')).length, 1, logged.join('\n'));
    } finally {
      await server.close();
      await memory.close();
    }
  });

  it(named('answers 503 while PostgreSQL is down and 200 once it is back'), postgresOnly('needs a PostgreSQL server to lose'), async () => {
    if (BACKEND !== 'postgres') return;
    const direct = new URL(tmp.store('down'));
    let link = await relay(direct);
    const via = new URL(direct);
    via.port = String(link.port);
    const server = await spawnServe(via.toString());
    try {
      assert.equal((await request(server.url, 'GET', '/readyz', null)).status, 200);
      await link.close();
      const r = await request(server.url, 'GET', '/readyz', null);
      assert.equal(r.status, 503);
      assert.equal(r.body.error.code, 'unavailable');
      assertHides(r.body.error.message, via.toString());
      assert.ok(!r.body.error.message.includes(direct.password));
      assert.equal((await request(server.url, 'GET', '/healthz', null)).status, 200, 'liveness stays up');
      // The server comes back on the same address: ready again, without a restart.
      link = await relay(direct, link.port);
      assert.equal((await request(server.url, 'GET', '/readyz', null)).status, 200);
    } finally {
      await server.stop();
      await link.close();
    }
  });
});
