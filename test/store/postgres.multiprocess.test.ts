import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { PgStore } from '../../src/adapters/postgres/index.ts';
import { verifyChainSegment, type AuditEntry } from '../../src/domain/audit.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema } from '../helpers/pg-env.ts';

const WORKER = fileURLToPath(new URL('./fixtures/pg-writer.ts', import.meta.url));
const PROCESSES = 4;
const BATCHES = 6;

function run(url: string, worker: number): Promise<{ worker: string; created: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WORKER, url, String(worker), String(BATCHES)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.trim())) : reject(new Error(`worker ${worker} exited ${code}: ${err}`))));
  });
}

// Through the store port, with shared source keys racing and first opens racing on migrations;
// test/core/concurrent-processes runs the library-level version on both backends.
test('4 processes writing to one PostgreSQL database lose nothing and keep one chain', postgresOnly('races on PostgreSQL migrations and row locks'), async () => {
  const { schema, url } = freshSchema('multi');
  const p: Principal = { role: 'owner', namespace: 'multi', id: 'owner' };
  // The schema is new: the workers' first opens race on migrations too, serialised by the advisory lock.
  try {
    const results = await Promise.all(Array.from({ length: PROCESSES }, (_, i) => run(url, i)));
    const store = await PgStore.open({ url, analyze });
    try {
      const own = PROCESSES * BATCHES * 5;
      const total = results.reduce((n, r) => n + r.created, 0);
      assert.equal(total, own + BATCHES, 'each shared key is created exactly once, all own items once');
      assert.equal(await store.count(p, {}), own + BATCHES);
      for (let b = 0; b < BATCHES; b++) assert.ok(await store.findBySourceKey(p, `shared:${b}`));
      const chain: AuditEntry[] = [];
      for (;;) {
        const page = await store.audit.range(p, chain.length ? chain[chain.length - 1]!.seq : 0, 500);
        if (page.length === 0) break;
        chain.push(...page);
      }
      assert.equal(chain.length, own + BATCHES, 'one audit entry per created memory');
      assert.deepEqual(verifyChainSegment(null, chain), []);
    } finally {
      await store.close();
    }
  } finally {
    await dropSchema(schema);
  }
});
