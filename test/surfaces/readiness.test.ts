import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startServer } from '../../src/surfaces/http/server.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, postgresOnly, testStores } from '../helpers/backend.ts';
import { assertHides, relay, request, spawnServe } from './serve-helpers.ts';

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
