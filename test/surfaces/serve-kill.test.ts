/**
 * `mnemos serve` killed (SIGKILL) while clients POST batches to
 * /v1/memories: a batch the server answered with a 2xx is there after the
 * restart, whole, and no batch is there in part; the audit chain verifies.
 * The promise is the store's (one transaction per write, group commit on
 * PostgreSQL); this checks it through the real server process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { createToken, request, spawnServe } from './serve-helpers.ts';

const SIZE = 20;
/** Batches answered before the kill: enough that several are in flight when it lands, whatever the machine's speed. */
const ACKED_BEFORE_KILL = 6;

test(named('a server killed while clients post batches keeps every acknowledged batch whole and no batch in part'), async () => {
  const t = testStores('mnemos-serve-kill-');
  try {
    const { token } = await createToken(t.db, 'owner');
    const acked = new Set<string>();
    const server = await spawnServe(t.db);
    let killed = false;
    const client = async (c: number) => {
      for (let i = 0; !killed; i++) {
        const batch = `c${c}b${i}`;
        const memories = Array.from({ length: SIZE }, (_, k) => ({ text: `batch ${batch} item ${k} about kestrels`, tags: [batch] }));
        try {
          const r = await request(server.url, 'POST', '/v1/memories', token, { memories });
          assert.ok(r.status === 201, `batch ${batch}: ${r.status} ${JSON.stringify(r.body)}`);
          acked.add(batch);
          if (acked.size === ACKED_BEFORE_KILL) {
            killed = true;
            server.child.kill('SIGKILL');
          }
        } catch (err) {
          // The kill resets the connections of the batches in flight: they were never acknowledged.
          if (!killed) throw err;
        }
      }
    };
    await Promise.all([0, 1, 2].map(client));
    await server.stop();
    // The next start opens the store after the kill, as a restarted service would.
    const restarted = await spawnServe(t.db);
    const listed = await request(restarted.url, 'GET', '/v1/memories?limit=1', token);
    assert.equal(listed.status, 200);
    await restarted.stop();

    const per = new Map<string, number>();
    for (const r of await rawSql(t.db, 'SELECT text FROM memories WHERE superseded_at IS NULL')) {
      const batch = /^batch (\S+) item/.exec(String(r.text))![1]!;
      per.set(batch, (per.get(batch) ?? 0) + 1);
    }
    assert.ok(acked.size >= ACKED_BEFORE_KILL);
    assert.deepEqual([...acked].filter((b) => per.get(b) !== SIZE), [], 'every acknowledged batch is there whole');
    assert.deepEqual([...per].filter(([, n]) => n !== SIZE), [], 'no batch is there in part');
    const m = await openMemory({ db: t.db });
    try {
      const audit = await m.verifyAudit();
      assert.equal(audit.ok, true, JSON.stringify(audit));
      assert.equal(audit.memoriesChecked, [...per.values()].reduce((a, b) => a + b, 0));
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});
