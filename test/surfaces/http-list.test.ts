import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { named, rawSql, testStores } from '../helpers/backend.ts';
import { createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/** GET /v1/memories (memory_list) over real HTTP: paging, filters, scope, errors, and its OpenAPI description. */
describe('HTTP list: GET /v1/memories', () => {
  const tmp = testStores('mnemos-http-list-');
  let server: SpawnedServer;
  let owner: string;
  let guest: string;
  const SECRET = 'owner-only list probe: the safe code is 3141';

  const get = (path: string, token = owner) => request(server.url, 'GET', path, token);
  const post = (text: string, extra: Record<string, unknown> = {}, token = owner) => request(server.url, 'POST', '/v1/memories', token, { text, ...extra });

  /** Every page from `first`, following nextCursor; fails on a repeated id. */
  async function walk(first: string, token = owner, between?: () => Promise<void>): Promise<{ texts: string[]; pages: number }> {
    const texts: string[] = [];
    const seen = new Set<string>();
    let path = first;
    for (let pages = 1; ; pages++) {
      const r = await get(path, token);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      for (const m of r.body.items) {
        assert.ok(!seen.has(m.id), `${m.text} is listed twice`);
        seen.add(m.id);
        texts.push(m.text);
      }
      assert.equal(r.body.hasMore, r.body.nextCursor !== null, 'a cursor exactly when more follow');
      if (!r.body.hasMore) return { texts, pages };
      if (pages === 1) await between?.();
      path = `${first}&cursor=${encodeURIComponent(r.body.nextCursor)}`;
    }
  }

  before(async () => {
    owner = (await createToken(tmp.db, 'owner')).token;
    guest = (await createToken(tmp.db, 'guest')).token;
    server = await spawnServe(tmp.db);
    for (let i = 1; i <= 5; i++) assert.equal((await post(`fact ${i}`, { type: 'fact', tags: i % 2 ? ['odd'] : ['even'], validFrom: `2026-0${i}-01T00:00:00Z` })).status, 201);
    assert.equal((await post(SECRET, { type: 'fact', sessionId: 'owner-s' })).status, 201);
    assert.equal((await post('a public note', { visibility: 'public' })).status, 201);
    assert.equal((await post('the guest wrote this', {}, guest)).status, 201);
  });

  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it(named('pages with nextCursor neither skip nor repeat memories stored between pages'), async () => {
    const before = (await get('/v1/memories?limit=100')).body;
    assert.equal(before.total, 8);
    assert.equal(before.hasMore, false);
    assert.equal(before.nextCursor, null);
    const expected = before.items.map((m: { text: string }) => m.text);
    // Newest first: two memories stored after page one would shift an offset page down by two (a repeat).
    const { texts, pages } = await walk('/v1/memories?limit=3', owner, async () => {
      await post('stored while paging 1');
      await post('stored while paging 2');
    });
    assert.deepEqual(texts, expected, 'every memory of the first listing, in order, once');
    assert.equal(pages, 3);
    // Oldest first, new ones come at the end and are reached.
    const asc = await walk('/v1/memories?limit=4&order=recorded_asc', owner, async () => void (await post('stored while paging 3')));
    assert.deepEqual(asc.texts.slice(0, 8), [...expected].reverse());
    assert.deepEqual(asc.texts.slice(8), ['stored while paging 1', 'stored while paging 2', 'stored while paging 3']);
  });

  it(named('offset paging answers hasMore; filters and orders are those of mnemos list'), async () => {
    const p1 = (await get('/v1/memories?types=fact&limit=4&offset=0&order=valid_asc')).body;
    assert.deepEqual(
      p1.items.map((m: { text: string }) => m.text),
      ['fact 1', 'fact 2', 'fact 3', 'fact 4'],
    );
    assert.equal(p1.hasMore, true);
    assert.equal(p1.total, 6);
    const p2 = (await get('/v1/memories?types=fact&limit=4&offset=4&order=valid_asc')).body;
    assert.equal(p2.items.length, 2);
    assert.equal(p2.hasMore, false);
    const tagged = (await get('/v1/memories?tags=odd&order=valid_desc')).body.items.map((m: { text: string }) => m.text);
    assert.deepEqual(tagged, ['fact 5', 'fact 3', 'fact 1']);
    const twoTypes = (await get('/v1/memories?types=fact&types=general&limit=100')).body;
    assert.equal(twoTypes.total, 11, 'an array parameter is repeated');
    const range = (await get('/v1/memories?since=2026-02-01&until=2026-04-01&order=valid_asc')).body.items.map((m: { text: string }) => m.text);
    assert.deepEqual(range, ['fact 2', 'fact 3']);
    // Swapped bounds are refused naming until (the list filters are taken from filterSchema's shape, whose refinement the library applies).
    const swapped = await get('/v1/memories?since=2026-04-01&until=2026-02-01');
    assert.equal(swapped.status, 400);
    assert.equal(swapped.body.error.details.field, 'until');
    assert.deepEqual(
      (await get('/v1/memories?sessionId=owner-s')).body.items.map((m: { text: string }) => m.text),
      [SECRET],
    );
    assert.equal((await get('/v1/memories?asOf=2026-01-15T00:00:00Z&types=fact')).body.items.length, 1);
    assert.equal((await get('/v1/memories?lifecycles=archived')).body.total, 0);
    // A cursor under valid_asc continues in that order.
    assert.deepEqual((await walk('/v1/memories?types=fact&order=valid_asc&limit=2')).texts.slice(0, 5), ['fact 1', 'fact 2', 'fact 3', 'fact 4', 'fact 5']);
  });

  it(named('a guest never lists owner-only memories, on any page, by GET or by the memory_list tool'), async () => {
    const { texts } = await walk('/v1/memories?limit=1', guest);
    assert.deepEqual(texts.sort(), ['a public note', 'the guest wrote this']);
    const all = (await get('/v1/memories?limit=100&sessionId=owner-s', guest)).body;
    assert.equal(all.total, 0);
    assert.deepEqual(all.items, []);
    const viaTool = await request(server.url, 'POST', '/v1/tools/memory_list', guest, { limit: 100, types: ['fact'] });
    assert.equal(viaTool.status, 200);
    assert.equal(viaTool.body.total, 0);
    // The owner's cursor gives a guest a position, not the owner's memories.
    const ownerPage = (await get('/v1/memories?limit=1')).body;
    const after = (await get(`/v1/memories?limit=1&cursor=${encodeURIComponent(ownerPage.nextCursor)}`, guest)).body;
    assert.ok(after.items.every((m: { text: string }) => m.text !== SECRET && !m.text.startsWith('fact')));
  });

  it(named('bad limit, offset, cursor or parameters are 400 naming the field, and nothing changes'), async () => {
    const count = async () => Number((await rawSql(tmp.db, 'SELECT count(*) AS n FROM memories'))[0]!.n);
    const n = await count();
    const first = (await get('/v1/memories?limit=1')).body.nextCursor as string;
    const cases: [string, string, RegExp?][] = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit', /100/],
      ['limit=abc', 'limit', /whole number/],
      ['limit=2.5', 'limit'],
      ['offset=-1', 'offset'],
      ['offset=x', 'offset'],
      ['cursor=', 'cursor'],
      ['cursor=not-ours', 'cursor', /nextCursor/],
      ['cursor=%25%25', 'cursor'],
      [`cursor=${Buffer.from('{"v":1}').toString('base64url')}`, 'cursor'],
      [`cursor=${first}&types=fact`, 'cursor', /other filters/],
      [`cursor=${first}&order=recorded_asc`, 'cursor', /order/],
      [`cursor=${first}&offset=3`, 'offset', /not both/],
      [`cursor=${first}&order=salience_desc`, 'cursor', /offset only/],
      ['types=nonsense', 'types.0'],
      // Comma-separated values were refused as one unknown type, with no word on how to give several.
      ['types=fact,preference', 'types', /repeat it \(\?types=fact&types=preference\)/],
      ['types=fact&types=goal, skill', 'types', /types=goal&types=skill/],
      ['lifecycles=archived,expired', 'lifecycles', /lifecycles=archived&lifecycles=expired/],
      ['types=fact,nonsense', 'types.0'],
      ['since=yesterday', 'since'],
      ['limt=5', 'limt', /unknown query parameter limt.*takes limit, offset, cursor/],
      ['limit=1&limit=2', 'limit', /given 2 times/],
      ['maxChars=0', 'maxChars'],
      ['maxChars=60001', 'maxChars', /60000/],
      ['maxChars=lots', 'maxChars', /whole number/],
      ['maxCharsEach=0', 'maxCharsEach'],
      ['maxCharsEach=60001', 'maxCharsEach', /60000/],
      ['maxCharsEach=some', 'maxCharsEach', /whole number/],
      ['maxCharsEach=1&maxCharsEach=2', 'maxCharsEach', /given 2 times/],
    ];
    for (const [query, field, message] of cases) {
      const r = await get(`/v1/memories?${query}`);
      assert.equal(r.status, 400, `${query}: ${JSON.stringify(r.body)}`);
      assert.equal(r.body.error.code, 'validation_failed');
      assert.equal(r.body.error.details.field, field, query);
      if (message) assert.match(r.body.error.message, message, query);
    }
    assert.equal(await count(), n, 'nothing was written');
    // salience_desc pages by offset: hasMore, no cursor.
    const sal = (await get('/v1/memories?order=salience_desc&limit=2')).body;
    assert.equal(sal.hasMore, true);
    assert.equal(sal.nextCursor, null);
  });

  it(named('maxChars bounds the texts of a page and marks the cut ones; the cursor still reaches every memory'), async () => {
    const long = 'a long memory for the list budget '.padEnd(50_000, 'z');
    const created = (await post(long, { type: 'skill' })).body.id as string;
    assert.ok(created);
    const page = (await get('/v1/memories?types=skill&limit=5')).body;
    assert.equal(page.items.length, 1);
    assert.equal(page.items[0].text.length, 20_000, 'the default budget');
    assert.equal(page.items[0].truncated, true);
    assert.match(page.truncated, /memory_get \{id\}/);
    assert.ok((await get(`/v1/memories/${page.items[0].id}`)).body.memory.text === long, 'memory_get gives it whole');
    const wide = (await get('/v1/memories?types=skill&maxChars=60000')).body;
    assert.ok(wide.items[0].text === long, 'whole within a wider budget');
    assert.equal(wide.items[0].truncated, undefined);
    assert.equal(wide.truncated, undefined);
    // A one-character budget leaves every text of every page cut, and the walk still lists each memory once.
    const all = (await get('/v1/memories?limit=100&maxChars=60000')).body.items.map((m: { text: string }) => m.text);
    const cut = await walk('/v1/memories?limit=2&maxChars=1');
    assert.equal(cut.texts.length, all.length);
    assert.deepEqual(cut.texts, all.map((t: string, i: number) => (i % 2 === 0 ? t.slice(0, 1) : '')));
  });

  it(named('maxCharsEach gives every memory of a page the start of its text, a long first one included; maxChars alone is as before'), async () => {
    const long = 'the first and longest memory of the page '.padEnd(61_000, 'q');
    const shorts = ['an ordinary memory after it, one', 'an ordinary memory after it, two'];
    for (const t of shorts) assert.equal((await post(t, { type: 'goal' })).status, 201);
    const longId = (await post(long, { type: 'goal' })).body.id as string;
    // What existing clients get: the one budget in page order, spent by the newest (the long one).
    const plain = (await get('/v1/memories?types=goal&maxChars=60000')).body;
    assert.equal(plain.items[0].id, longId);
    assert.equal(plain.items[0].text.length, 60_000);
    assert.deepEqual(plain.items.slice(1).map((m: { text: string; truncated?: boolean }) => [m.text, m.truncated]), [['', true], ['', true]]);
    assert.equal(plain.truncated, 'maxChars 60000 cut 3 texts (marked truncated); memory_get {id} gives a memory whole');
    // With a cap each row shows its own beginning; only the long one is cut, and marked.
    const each = (await get('/v1/memories?types=goal&maxChars=60000&maxCharsEach=3000')).body;
    assert.deepEqual(each.items.map((m: { text: string }) => m.text), [long.slice(0, 3000), ...[...shorts].reverse()]);
    assert.deepEqual(each.items.map((m: { truncated?: boolean }) => m.truncated), [true, undefined, undefined]);
    assert.equal(each.truncated, 'maxCharsEach 3000 cut 1 text (marked truncated); memory_get {id} gives a memory whole');
    assert.equal(each.total, plain.total);
    assert.equal(each.hasMore, plain.hasMore, 'the page is the same, only its texts differ');
    // The page budget still bounds the whole answer: three caps of 3,000 in a budget of 4,000.
    const tight = (await get('/v1/memories?types=goal&maxChars=4000&maxCharsEach=3000')).body;
    assert.deepEqual(tight.items.map((m: { text: string }) => m.text.length), [3000, shorts[1]!.length, shorts[0]!.length]);
    const tighter = (await get('/v1/memories?types=goal&maxChars=3020&maxCharsEach=3000')).body;
    assert.deepEqual(tighter.items.map((m: { text: string }) => m.text), [long.slice(0, 3000), shorts[1]!.slice(0, 20), '']);
    assert.equal(tighter.truncated, 'maxCharsEach 3000 cut 1 text and maxChars 3020 cut 2 texts (marked truncated); memory_get {id} gives a memory whole');
  });

  it(named('/openapi.json describes GET /v1/memories and every GET route\'s query parameters from the validating schemas'), async () => {
    const doc = (await request(server.url, 'GET', '/openapi.json', null)).body;
    const list = doc.paths['/v1/memories'].get;
    assert.ok(list, 'GET /v1/memories is described');
    assert.ok(doc.paths['/v1/memories'].post, 'beside POST /v1/memories');
    const params = Object.fromEntries(list.parameters.map((p: { name: string }) => [p.name, p]));
    assert.deepEqual(Object.keys(params).sort(), ['asOf', 'cursor', 'knownAt', 'lifecycles', 'limit', 'maxChars', 'maxCharsEach', 'offset', 'order', 'sessionId', 'since', 'tags', 'types', 'until']);
    assert.equal(params.maxChars.schema.maximum, 60_000, 'the text budget cap, as memory_search\'s');
    assert.equal(params.maxCharsEach.required, false, 'optional: clients that never send it get the answers they got');
    assert.equal(params.maxCharsEach.schema.maximum, 60_000);
    assert.match(params.maxCharsEach.description, /each memory's text/);
    assert.equal(params.limit.in, 'query');
    assert.equal(params.limit.schema.type, 'integer');
    assert.equal(params.limit.schema.maximum, 100, 'the cap comes from the tool schema');
    assert.equal(params.types.schema.type, 'array');
    assert.ok(params.types.schema.items.enum.includes('fact'));
    assert.equal(params.types.explode, true);
    assert.ok(params.since.schema.pattern, 'ISO times carry their pattern');
    assert.ok(params.order.schema.enum.includes('salience_desc'));
    assert.ok(doc.paths['/v1/tools/memory_list'].post);
    const status = doc.paths['/v1/status'].get.parameters;
    assert.deepEqual(status.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ['query:action']);
    const one = doc.paths['/v1/memories/{id}'].get.parameters;
    assert.deepEqual(one.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ['path:id'], 'memory_get by id takes no query parameter');
    assert.equal(doc.paths['/v1/memories/{id}/history'].get.parameters.length, 1);
    assert.equal(doc.paths['/v1/self'].get.parameters, undefined);
  });
});
