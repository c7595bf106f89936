/**
 * Searches on worker threads (mnemos serve --search-threads): the same
 * answers as searching on the caller's thread, for every principal (a guest
 * never sees owner-only memories there either), writes visible to the next
 * search, errors with their codes, a thread that dies replaced, and close
 * stopping every thread.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Principal } from '../../src/domain/principal.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { SearchThreads } from '../../src/surfaces/library/search-threads.ts';
import { DEFAULT_CONFIG } from '../../src/services/context.ts';
import { assembleContext } from '../../src/services/context-assembly.ts';
import { named, testStores } from '../helpers/backend.ts';

const owner: Principal = { role: 'owner', namespace: 'threads', id: 'owner' };
const guest: Principal = { role: 'guest', namespace: 'threads', id: 'visitor' };
const words = ['harbour', 'lantern', 'orchard', 'violin', 'glacier', 'saffron', 'compass', 'meadow', 'quartz', 'falcon'];

const strip = (r: { hits: { memory: { id: string }; score: number; why: unknown }[]; explain: unknown }) => ({
  hits: r.hits.map((h) => [h.memory.id, h.score, h.why]),
  explain: r.explain,
});

test(named('search threads answer exactly as the caller thread does, per principal; writes show at once; errors keep their codes; close stops them'), async () => {
  const st = testStores('mnemos-search-threads-');
  const root = await openMemory({ db: st.db, principal: owner });
  try {
    const inputs = Array.from({ length: 400 }, (_, i) => ({
      text: `note ${i}: the ${words[i % 10]} beside the ${words[(i * 7) % 10]} and a ${words[(i * 3) % 10]}`,
      visibility: (i % 3 === 0 ? 'shared' : 'owner') as 'shared' | 'owner',
      ...(i % 4 === 0 ? { type: 'episode' as const, sessionId: `session-${i % 5}` } : {}),
    }));
    await root.rememberMany(inputs);
    // Searches inside other work: context assembly and deep recall.
    const cite = (m: { id: string }) => m.id;
    const assembled = () => assembleContext(root.context, owner, { query: 'glacier lantern', maxTokens: 300 }, cite);
    const recalled = () => root.deepRecall({ query: 'falcon orchard', maxResults: 5 });
    const contextBefore = await assembled();
    const recallBefore = await recalled();
    assert.ok(contextBefore.items.length > 0 && recallBefore.hits.length > 0);
    const queries = ['violin near the glacier', 'saffron compass', 'quartz', 'falcon meadow harbour'];
    // The caller's vector copy loaded, as each search thread's is, so the explains name the same index
    // (a first vector search without one reads the stored rows once and says so).
    await root.prepareVectorIndex();
    const before = new Map<string, unknown>();
    for (const who of [owner, guest]) for (const q of queries) for (const mode of ['hybrid', 'keyword', 'vector'] as const) before.set(`${who.role}|${q}|${mode}`, strip(await root.as(who).search({ query: q, limit: 8, mode })));

    assert.ok((before.get('guest|quartz|hybrid') as { hits: unknown[] }).hits.length > 0, 'the guest has shared memories to find');
    assert.equal(root.searchThreadsWarm, false, 'no threads, nothing warm');
    assert.equal(await root.startSearchThreads(2), 2);
    assert.equal(root.searchThreads, 2);
    // Each thread loads its keyword index copy and vectors after it starts, and says so.
    for (let i = 0; i < 300 && !root.searchThreadsWarm; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(root.searchThreadsWarm, true, 'both threads report their search caches loaded');
    for (const who of [owner, guest]) {
      for (const q of queries) {
        for (const mode of ['hybrid', 'keyword', 'vector'] as const) {
          const r = await root.as(who).search({ query: q, limit: 8, mode });
          assert.deepEqual(strip(r), before.get(`${who.role}|${q}|${mode}`), `${who.role}, "${q}", ${mode}`);
          if (who.role === 'guest') assert.ok(r.hits.every((h) => h.memory.visibility !== 'owner'), 'a guest never sees owner-only memories');
        }
      }
    }
    assert.deepEqual(await assembled(), contextBefore, 'context assembly searches on a thread, with the same result');
    assert.deepEqual(await recalled(), recallBefore, 'deep recall searches on a thread, with the same result');

    // Concurrent searches spread over both threads and all come back.
    const many = await Promise.all(Array.from({ length: 20 }, (_, i) => root.search({ query: words[i % 10]!, limit: 3 })));
    assert.ok(many.every((r) => r.hits.length === 3));

    const fresh = await root.remember({ text: 'the zeppelin hangar smelled of varnish' });
    const found = await root.search({ query: 'zeppelin varnish', limit: 3 });
    assert.equal(found.hits[0]?.memory.id, fresh.id, 'a write is visible to the next search on a thread');

    await assert.rejects(root.search({ query: '', limit: 3 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
    await assert.rejects(root.startSearchThreads(1), (e: unknown) => MnemosError.is(e, 'conflict'));
    await assert.rejects(root.as(guest).startSearchThreads(1), (e: unknown) => MnemosError.is(e, 'forbidden'));
    // A second handle on the same store with threads: no search of any kind touches vectors on its own thread.
    const server = await openMemory({ db: st.db, principal: owner });
    try {
      let here = 0;
      const vectors = server.store.vectors!;
      const nearest = vectors.nearest.bind(vectors);
      vectors.nearest = (...args) => {
        here++;
        return nearest(...args);
      };
      await server.startSearchThreads(1);
      assert.deepEqual(await assembleContext(server.context, owner, { query: 'glacier lantern', maxTokens: 300 }, cite), contextBefore);
      assert.equal((await server.deepRecall({ query: 'falcon orchard', maxResults: 5 })).hits.length, recallBefore.hits.length);
      assert.ok((await server.search({ query: 'violin', limit: 3 })).hits.length > 0);
      assert.equal(here, 0, 'every search ran on the search thread');
    } finally {
      await server.close();
    }
  } finally {
    await root.close();
    await st.cleanup();
  }
  assert.equal(root.searchThreads, 0, 'close stopped the threads');
});

test(named('a search thread that dies fails its in-flight search with an internal error and is replaced'), async () => {
  const st = testStores('mnemos-search-threads-crash-');
  const root = await openMemory({ db: st.db, principal: owner });
  await root.rememberMany(Array.from({ length: 300 }, (_, i) => ({ text: `crash test ${i} ${words[i % 10]}` })));
  const pool = await SearchThreads.start(1, { db: st.db, config: DEFAULT_CONFIG });
  try {
    const worker = (pool as unknown as { threads: { worker: { terminate(): Promise<number> } }[] }).threads[0]!.worker;
    // The thread's first search loads its vector copy, so it is still running when the thread is stopped.
    const inFlight = pool.search(owner, { query: 'crash test harbour', limit: 3 });
    void worker.terminate();
    await assert.rejects(inFlight, (e: unknown) => MnemosError.is(e, 'internal') && /search thread stopped/.test((e as Error).message));
    for (let i = 0; i < 100 && pool.size === 0; i++) await new Promise((r) => setTimeout(r, 100));
    assert.equal(pool.size, 1, 'a replacement thread started');
    const r = await pool.search(owner, { query: 'crash test harbour', limit: 3 });
    assert.equal(r.hits.length, 3);
  } finally {
    await pool.close();
    await root.close();
    await st.cleanup();
  }
});

test('search threads refuse a bad count before starting anything', async () => {
  for (const n of [0, -1, 1.5, 65]) await assert.rejects(SearchThreads.start(n, { db: '/nonexistent/x.db', config: DEFAULT_CONFIG }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});
