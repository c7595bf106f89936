/**
 * The hybrid search's ranking does not depend on the page asked for, graph
 * hits the filter refuses do not crowd out those it admits, a time phrase no
 * Date can hold is no error, and an empty filter value is refused.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

type Mem = Awaited<ReturnType<typeof openMemory>>;

async function withStore(body: (m: Mem) => Promise<void>): Promise<void> {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    try {
      await body(m);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
}

async function ids(m: Mem, query: string, limit: number, offset: number, extra: Record<string, unknown> = {}): Promise<string[]> {
  return (await m.search({ query, limit, offset, ...extra })).hits.map((h) => h.memory.id);
}

test(named('paging a query that names a time: each page is a slice of the one ranking, nothing repeated, nothing missing'), async () => {
  await withStore(async (m) => {
    const inputs = [];
    for (let i = 0; i < 150; i++) {
      const month = String(1 + (i % 12)).padStart(2, '0');
      const day = String(1 + (i % 28)).padStart(2, '0');
      inputs.push({ text: `widget note ${i} ${'gadget '.repeat(i % 7)}`, validFrom: `2025-${month}-${day}T00:00:00Z`, key: `k${i}` });
    }
    await m.rememberMany(inputs);
    const referenceTime = '2025-12-31T00:00:00Z';
    for (const query of ['widget in March 2025', 'widget last week', 'widget gadget in March']) {
      const big = await ids(m, query, 200, 0, { referenceTime });
      assert.equal(big.length, 150, query);
      assert.equal(new Set(big).size, 150, `${query}: one search repeats nothing`);
      for (const size of [10, 13]) {
        const paged: string[] = [];
        for (let offset = 0; offset < 150; offset += size) paged.push(...(await ids(m, query, size, offset, { referenceTime })));
        assert.equal(new Set(paged).size, paged.length, `${query}, pages of ${size}: no memory on two pages`);
        assert.deepEqual(paged, big, `${query}, pages of ${size}: the pages are the big search, in order`);
      }
    }
  });
});

test(named('a page deeper than the first tier is the same slice of the ranking as a bigger search gives'), async () => {
  await withStore(async (m) => {
    const inputs = [];
    for (let i = 0; i < 260; i++) inputs.push({ text: `sprocket entry ${i} ${'cog '.repeat(i % 5)}`, validFrom: `2024-${String(1 + (i % 12)).padStart(2, '0')}-05T00:00:00Z` });
    await m.rememberMany(inputs);
    for (const query of ['sprocket cog', 'sprocket cog in May 2024']) {
      const all = [...(await ids(m, query, 200, 0)), ...(await ids(m, query, 200, 200))];
      assert.equal(new Set(all).size, 260, query);
      for (const [offset, limit] of [[95, 10], [140, 10], [190, 20], [230, 30]] as const) {
        assert.deepEqual(await ids(m, query, limit, offset), all.slice(offset, offset + limit), `${query} offset ${offset} limit ${limit}`);
      }
      // With minScore the results end at the first below it, wherever the pages fall.
      const minScore = (await m.search({ query, limit: 1, offset: 120 })).hits[0]!.score;
      const kept = await ids(m, query, 200, 0, { minScore });
      assert.ok(kept.length >= 100 && kept.length < 260, `${query}: minScore keeps ${kept.length}`);
      const paged: string[] = [];
      for (let offset = 0; offset < 260; offset += 30) paged.push(...(await ids(m, query, 30, offset, { minScore })));
      assert.deepEqual(paged, kept, `${query}: pages with minScore`);
    }
  });
});

test(named('a filtered hybrid search finds the graph hits its filter admits at any limit'), async () => {
  await withStore(async (m) => {
    await m.remember({ text: 'Alice Zorblax works at Quintel Labs', validFrom: '2025-03-06T00:00:00Z' });
    const facts = new Set<string>();
    for (let i = 0; i < 5; i++) facts.add((await m.remember({ text: `Quintel Labs fact number ${i}`, type: 'fact', validFrom: '2024-01-01T00:00:00Z' })).id);
    for (let i = 0; i < 40; i++) await m.remember({ text: `filler memory ${i} about Quintel Labs`, validFrom: '2025-01-01T00:00:00Z' });
    await m.consolidate({ force: true });
    const big = await ids(m, 'Alice Zorblax', 50, 0, { filter: { types: ['fact'] } });
    assert.deepEqual(new Set(big), facts, 'the five facts are found through the graph');
    for (const limit of [1, 3, 5, 10, 20]) {
      const got = await ids(m, 'Alice Zorblax', limit, 0, { filter: { types: ['fact'] } });
      assert.deepEqual(got, big.slice(0, limit), `limit ${limit}`);
    }
  });
});

test(named('a time phrase past what a date can hold is no time phrase, not an error'), async () => {
  await withStore(async (m) => {
    const { id } = await m.remember({ text: 'green tea with lemon' });
    for (const query of ['tea in the past 99999999999999 days', 'tea 300000000 days ago', 'tea last 9999999999 weeks', 'tea 100000000 years ago']) {
      const r = await m.search(query);
      assert.deepEqual(r.hits.map((h) => h.memory.id), [id], query);
      assert.equal(r.explain.time, null, query);
    }
  });
});

test(named('an empty session, agent, tag or label in a filter is refused, naming the field'), async () => {
  await withStore(async (m) => {
    await m.remember({ text: 'a note in a session', sessionId: 's1', tags: ['t'] });
    const cases: [Record<string, unknown>, string][] = [
      [{ sessionId: '' }, 'filter.sessionId'],
      [{ agentId: '' }, 'filter.agentId'],
      [{ tags: [''] }, 'filter.tags.0'],
      [{ tags: ['t', ''] }, 'filter.tags.1'],
      [{ labels: [''] }, 'filter.labels.0'],
    ];
    for (const [filter, field] of cases) {
      for (const run of [() => m.search({ query: 'note', filter }), () => m.list({ filter })]) {
        await assert.rejects(run(), (e: Error & { code?: string; details?: { field?: string } }) => {
          assert.equal(e.code, 'validation_failed', JSON.stringify(filter));
          assert.equal(e.details?.field, field, JSON.stringify(filter));
          return true;
        });
      }
    }
    // A real session id still filters.
    assert.equal((await m.search({ query: 'note', filter: { sessionId: 's1' } })).hits.length, 1);
    assert.equal((await m.search({ query: 'note', filter: { sessionId: 's2' } })).hits.length, 0);
  });
});

test(named('an answer emptied by minScore says so, with the best score it dropped, instead of "nothing matched"'), async () => {
  await withStore(async (m) => {
    await m.remember({ text: 'Kepler meeting room on the third floor' });
    await m.remember({ text: 'the meeting about Kepler moved' });
    const all = await m.search({ query: 'Kepler meeting room' });
    assert.equal(all.hits.length, 2);
    assert.equal(all.explain.belowMinScore, undefined);
    const none = await m.search({ query: 'Kepler meeting room', minScore: 0.5 });
    assert.equal(none.hits.length, 0);
    assert.deepEqual(none.explain.belowMinScore, { minScore: 0.5, bestScore: all.hits[0]!.score });
    assert.match(none.explain.message ?? '', /scored below minScore 0\.5 \(the best scored 0\.0\d+/);
    // A query nothing matches still says nothing matched.
    const miss = await m.search({ query: 'zebra', minScore: 0.5 });
    assert.equal(miss.explain.belowMinScore, undefined);
    assert.match(miss.explain.message ?? '', /nothing among the 2 memories/);
  });
});

test(named('every page says whether another follows and where: hasMore and nextOffset, at the end, with minScore and at the deepest offset'), async () => {
  await withStore(async (m) => {
    const inputs = [];
    for (let i = 0; i < 25; i++) inputs.push({ text: `lantern ${i} ${'wick '.repeat(i % 4)}`, key: `l${i}` });
    await m.rememberMany(inputs);
    const seen: string[] = [];
    let offset: number | null = 0;
    let pages = 0;
    while (offset !== null) {
      const r = await m.search({ query: 'lantern wick', limit: 10, offset });
      assert.equal(r.hasMore, offset + 10 < 25, `page at ${offset}`);
      assert.equal(r.nextOffset, r.hasMore ? offset + 10 : null, `page at ${offset}`);
      seen.push(...r.hits.map((h) => h.memory.id));
      offset = r.nextOffset;
      pages++;
    }
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 25, 'following nextOffset reaches every result once');
    const exact = await m.search({ query: 'lantern', limit: 25 });
    assert.equal(exact.hits.length, 25);
    assert.equal(exact.hasMore, false, 'a page holding the last result says none follows');
    // minScore ends the ranking: a page that shows every result above it has nothing after it.
    const top = exact.hits[4]!.score;
    const above = await m.search({ query: 'lantern', limit: 3, minScore: top });
    const count = exact.hits.filter((h) => h.score >= top).length;
    assert.equal(above.hasMore, count > 3);
    const all = await m.search({ query: 'lantern', limit: count, minScore: top });
    assert.equal(all.hasMore, false, 'results below minScore are not more results');
    // The deepest page a search gives: more may match, but no offset reaches them.
    const many = [];
    for (let i = 0; i < 12; i++) many.push({ text: `beacon ${i}`, key: `b${i}` });
    await m.rememberMany(many);
    const none = await m.search({ query: 'beacon', limit: 10, offset: 10_000 });
    assert.deepEqual([none.hasMore, none.nextOffset], [false, null]);
  });
});
