import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/**
 * POST /v1/search (memory_search) past its 50 results: `offset` pages through one ranking, `hasMore` and
 * `nextOffset` say whether and where the next page starts; and `maxCharsEach` gives each result its beginning.
 */
describe('HTTP search paging: offset, hasMore, nextOffset', () => {
  const tmp = testStores('mnemos-http-search-paging-');
  let server: SpawnedServer;
  let owner: string;
  let guest: string;
  const PUBLIC = 30;
  const PRIVATE = 40;

  const search = (body: Record<string, unknown>, token = owner) => request(server.url, 'POST', '/v1/search', token, { query: 'marigold', ...body });

  /** Every page of `maxResults` from offset 0, following nextOffset; fails on a result seen twice. */
  async function walk(maxResults: number, token: string, extra: Record<string, unknown> = {}): Promise<{ ids: string[]; pages: number }> {
    const ids: string[] = [];
    let offset = 0;
    for (let pages = 1; ; pages++) {
      const r = await search({ maxResults, offset, ...extra }, token);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.equal(r.body.offset, offset);
      for (const h of r.body.results) {
        assert.ok(!ids.includes(h.id), `${h.text} is on two pages`);
        ids.push(h.id);
      }
      assert.equal(r.body.nextOffset, r.body.hasMore ? offset + maxResults : null, 'a next offset exactly when more follow');
      if (r.body.hasMore) assert.equal(r.body.results.length, maxResults, 'a page before the last is full');
      if (!r.body.hasMore) return { ids, pages };
      offset = r.body.nextOffset;
    }
  }

  before(async () => {
    owner = (await createToken(tmp.db, 'owner')).token;
    guest = (await createToken(tmp.db, 'guest')).token;
    server = await spawnServe(tmp.db, ['--consolidate-every-ms', '0', '--search-threads', '0']);
    // One batch: a server's single posts took most of a two-core machine's minute on PostgreSQL.
    const memories = [
      ...Array.from({ length: PUBLIC }, (_, i) => ({ text: `public marigold note number ${i} ${'word '.repeat(i % 7)}`, visibility: 'public' })),
      ...Array.from({ length: PRIVATE }, (_, i) => ({ text: `owner-only marigold secret ${i} ${'term '.repeat(i % 5)}`, type: 'fact' })),
    ];
    const r = await request(server.url, 'POST', '/v1/memories', owner, { memories });
    assert.equal(r.status, 201, JSON.stringify(r.body));
  });

  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it(named('pages continue each other past 50 without repeats, in the order of one long page'), async () => {
    const first = await search({ maxResults: 50 });
    assert.equal(first.body.results.length, 50);
    assert.equal(first.body.hasMore, true, 'seventy memories match: more than fifty');
    assert.equal(first.body.nextOffset, 50);
    const second = await search({ maxResults: 50, offset: 50 });
    assert.equal(second.body.results.length, PUBLIC + PRIVATE - 50);
    assert.equal(second.body.hasMore, false);
    assert.equal(second.body.nextOffset, null);
    const both = [...first.body.results, ...second.body.results].map((h: { id: string }) => h.id);
    assert.equal(new Set(both).size, PUBLIC + PRIVATE, 'page 2 continues page 1: no result twice, none left out');
    // Small pages walk the same ranking.
    const walked = await walk(7, owner);
    assert.deepEqual(walked.ids, both);
    assert.equal(walked.pages, Math.ceil((PUBLIC + PRIVATE) / 7));
    // Each page's scores go down from where the previous page stopped.
    const scores = [...first.body.results, ...second.body.results].map((h: { score: number }) => h.score);
    assert.ok(scores.every((s: number, i: number) => i === 0 || s <= scores[i - 1]!), 'one ranking across pages');
  });

  it(named('a guest pages through the public memories only, on every page'), async () => {
    const { ids } = await walk(4, guest);
    assert.equal(ids.length, PUBLIC);
    const texts = (await search({ maxResults: 50 }, guest)).body.results.map((h: { text: string }) => h.text);
    assert.ok(texts.every((t: string) => t.startsWith('public marigold')), 'never an owner-only memory');
    // An offset past the guest's ranking answers nothing of the owner's, and says the results were on earlier pages.
    const past = await search({ maxResults: 10, offset: PUBLIC }, guest);
    assert.deepEqual(past.body.results, []);
    assert.equal(past.body.hasMore, false);
    assert.equal(past.body.nextOffset, null);
    assert.match(past.body.searched.message, new RegExp(`no results from offset ${PUBLIC} on: the query has ${PUBLIC} results, all on earlier pages`));
  });

  it(named('maxCharsEach gives each result its beginning after a long first one'), async () => {
    const long = `marigold marigold marigold chronicle `.padEnd(61_000, 'm');
    const id = (await request(server.url, 'POST', '/v1/memories', owner, { text: long, type: 'goal' })).body.id as string;
    const plain = await search({ query: 'marigold chronicle', types: ['goal', 'fact'], maxResults: 5, maxChars: 60_000 });
    assert.equal(plain.body.results[0].id, id);
    assert.ok(plain.body.results.slice(1).every((h: { text: string }) => h.text === ''), 'the budget alone: the later results show nothing');
    const each = await search({ query: 'marigold chronicle', types: ['goal', 'fact'], maxResults: 5, maxChars: 60_000, maxCharsEach: 2000 });
    assert.equal(each.body.results[0].text, long.slice(0, 2000));
    assert.equal(each.body.results[0].truncated, true);
    assert.ok(each.body.results.slice(1).every((h: { text: string; truncated?: boolean }) => h.text.startsWith('owner-only marigold secret') && h.truncated === undefined));
    assert.equal(each.body.truncated, 'maxCharsEach 2000 cut 1 text (marked truncated); memory_get {id} gives a memory whole');
  });

  it(named('a bad offset or maxCharsEach is 400 naming the field, and nothing changes'), async () => {
    const count = async () => Number((await rawSql(tmp.db, 'SELECT count(*) AS n FROM memories'))[0]!.n);
    const n = await count();
    const cases: [Record<string, unknown>, string, RegExp?][] = [
      [{ offset: -1 }, 'offset'],
      [{ offset: 10_001 }, 'offset', /10000/],
      [{ offset: 1.5 }, 'offset'],
      [{ offset: '50' }, 'offset'],
      [{ maxCharsEach: 0 }, 'maxCharsEach'],
      [{ maxCharsEach: 60_001 }, 'maxCharsEach', /60000/],
    ];
    for (const [body, field, message] of cases) {
      const r = await search(body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.equal(r.body.error.details.field, field, JSON.stringify(body));
      if (message) assert.match(r.body.error.message, message);
    }
    assert.equal(await count(), n, 'nothing was written');
    // The deepest page there is still answers.
    const deepest = await search({ offset: 10_000, maxResults: 50 });
    assert.equal(deepest.status, 200);
    assert.deepEqual(deepest.body.results, []);
  });

  it(named('/openapi.json describes offset and maxCharsEach of POST /v1/search from the validating schema'), async () => {
    const doc = (await request(server.url, 'GET', '/openapi.json', null)).body;
    const props = doc.paths['/v1/search'].post.requestBody.content['application/json'].schema.properties;
    assert.equal(props.offset.type, 'integer');
    assert.equal(props.offset.maximum, 10_000);
    assert.match(props.offset.description, /nextOffset/);
    assert.equal(props.maxCharsEach.maximum, 60_000);
    assert.match(props.maxCharsEach.description, /each memory's text/);
  });
});
