import assert from 'node:assert/strict';
import { test } from 'node:test';
import type pg from 'pg';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import type { PgStore } from '../../src/adapters/postgres/index.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { postgresOnly } from '../helpers/backend.ts';
import { dropSchema, freshSchema, pgClient, pgTestUrl } from '../helpers/pg-env.ts';

/** Another session holding the audit chain head, as a stuck writer (a psql left in a transaction, a stopped import) does. */
async function holdHead(schema: string): Promise<pg.Client> {
  const c = await pgClient(schema);
  await c.query('BEGIN');
  await c.query('SELECT seq FROM audit_head WHERE one FOR UPDATE');
  return c;
}

async function release(c: pg.Client): Promise<void> {
  await c.query('ROLLBACK');
  await c.end();
}

test('the lock wait defaults to SQLite busy timeout and is set by ?lock_timeout= (ms), which pg never sees', () => {
  const base = 'postgres://u:p@h:5432/db';
  assert.equal(parsePgUrl(base).lockTimeoutMs, 10_000);
  const set = parsePgUrl(`${base}?schema=s&lock_timeout=250`);
  assert.equal(set.lockTimeoutMs, 250);
  assert.doesNotMatch(set.connectionString, /lock_timeout/);
  assert.throws(() => parsePgUrl(`${base}?lock_timeout=5s`), (e) => MnemosError.is(e, 'validation_failed'));
});

test('writers behind a stuck transaction answer busy after the lock timeout instead of waiting forever', { ...postgresOnly('PostgreSQL row locks'), timeout: 30_000 }, async () => {
  const { schema, url } = freshSchema('lockwait');
  const m = await openMemory({ db: `${url}&lock_timeout=300` });
  try {
    await m.remember({ text: 'before the lock' });
    const held = await holdHead(schema);
    let outcomes: PromiseSettledResult<unknown>[];
    const started = Date.now();
    try {
      // Three at once: a transaction of its own, then a group that shares one.
      outcomes = await Promise.allSettled(['a', 'b', 'c'].map((t) => m.remember({ text: `blocked ${t}` })));
    } finally {
      await release(held);
    }
    assert.ok(Date.now() - started < 10_000, `answered after ${Date.now() - started} ms`);
    for (const o of outcomes) {
      assert.equal(o.status, 'rejected');
      const err = (o as PromiseRejectedResult).reason;
      assert.ok(MnemosError.is(err, 'busy'), String(err));
      assert.match(err.message, /stayed locked by another writer for 300 ms/);
      assert.ok(!err.message.includes(`:${new URL(pgTestUrl()).password}@`), 'no password in the message');
    }
    // The lock gone, the same store writes again: nothing stayed locked or half-done.
    await m.remember({ text: 'after the lock' });
    assert.equal((await m.list({})).total, 2);
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});

test('a recall behind a stuck writer answers at once: its access count and boost are skipped, not waited for', { ...postgresOnly('PostgreSQL row locks'), timeout: 30_000 }, async () => {
  const { schema, url } = freshSchema('recallwait');
  // A long lock wait for writers: the recall must not take it.
  const m = await openMemory({ db: `${url}&lock_timeout=20000` });
  try {
    const { id } = await m.remember({ text: 'The spare key is under the blue pot', importance: 0.5 });
    const held = await holdHead(schema);
    let recalled;
    const started = Date.now();
    try {
      recalled = await m.lifecycle.recall(id);
    } finally {
      await release(held);
    }
    assert.ok(Date.now() - started < 5_000, `recall took ${Date.now() - started} ms`);
    assert.equal(recalled.memory.id, id);
    assert.equal(recalled.memory.accessCount, 0, 'skipped, not counted');
    assert.ok((m.store as PgStore).notes().some((n) => /recalls: 1 left access count and boost unrecorded/.test(n)));
    // Unlocked, a recall counts again.
    assert.equal((await m.lifecycle.recall(id)).memory.accessCount, 1);
  } finally {
    await m.close();
    await dropSchema(schema);
  }
});
