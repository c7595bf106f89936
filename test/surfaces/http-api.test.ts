import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { named, testStores } from '../helpers/backend.ts';
import { cli, createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/** Real HTTP requests against a spawned `mnemos serve`. */
describe('HTTP API (mnemos serve)', () => {
  const tmp = testStores('mnemos-http-');
  const db = tmp.db;
  const notes = join(tmp.dir, 'notes.md');
  let server: SpawnedServer;
  let owner: string;
  let guest: string;
  let agent: string;
  let revoked: string;
  let secretId: string;
  let publicId: string;
  const SECRET = 'The owner bank PIN is 4711 zebracorn';
  const OWNER_SESSION = 'owner-chat-1';

  const call = (method: string, path: string, token: string | null, body?: unknown) => request(server.url, method, path, token, body);
  const tool = (name: string, token: string, body: unknown) => call('POST', `/v1/tools/${name}`, token, body);

  before(async () => {
    owner = (await createToken(db, 'owner')).token;
    guest = (await createToken(db, 'guest', ['--label', 'a visitor'])).token;
    agent = (await createToken(db, 'agent', ['--agent', 'helper'])).token;
    const r = await createToken(db, 'guest');
    revoked = r.token;
    await cli(['token', 'revoke', r.id, '--db', db]);
    writeFileSync(notes, '# Private\n\nzebracorn vault combination is 99-12\n\n# Other\n\nplain line about gardens\n');
    await cli(['import', notes, '--db', db]);
    server = await spawnServe(db);
    secretId = (await call('POST', '/v1/memories', owner, { text: SECRET, type: 'fact' })).body.id;
    publicId = (await call('POST', '/v1/memories', owner, { text: 'The office wifi is called zebracorn-guest', visibility: 'public' })).body.id;
    await call('POST', '/v1/transcripts', owner, { sessionId: OWNER_SESSION, messages: [{ role: 'user', content: 'my zebracorn diary starts today' }, { role: 'assistant', content: 'noted' }] });
  });

  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  describe('authentication', () => {
    it(named('serves /healthz and /openapi.json without a token'), async () => {
      // A PostgreSQL store's password never reaches the server's log.
      if (db.includes('://')) assert.ok(!server.stderr().includes(`:${new URL(db).password}@`), 'the password is masked in the log');
      assert.deepEqual((await call('GET', '/healthz', null)).body, { ok: true });
      const doc = (await call('GET', '/openapi.json', null)).body;
      assert.equal(doc.openapi, '3.1.0');
      for (const name of ['memory_search', 'memory_get', 'working_memory_note', 'memory_forget', 'memory_edit', 'memory_history', 'recall_range', 'deep_recall', 'memory_status', 'self_state']) {
        assert.ok(doc.paths[`/v1/tools/${name}`], `openapi lists ${name}`);
      }
      assert.ok(doc.paths['/v1/memories'].post.requestBody);
      // /mcp lists the transport's own answers: 202 for a notification, JSON-RPC errors, 406, 405 for GET and DELETE.
      assert.deepEqual(Object.keys(doc.paths['/mcp']).sort(), ['delete', 'get', 'post']);
      for (const st of ['200', '202', '400', '401', '406', '413']) assert.ok(doc.paths['/mcp'].post.responses[st], `/mcp ${st}`);
      assert.equal(doc.paths['/mcp'].post.responses['400'].content['application/json'].schema.properties.error.properties.code.type, 'integer');
      const search = doc.paths['/v1/tools/memory_search'].post.requestBody.content['application/json'].schema;
      assert.equal(search.properties.maxResults.maximum, 50, 'caps come from the validating schema');
    });

    it(named('401 without a token, with a malformed header, an unknown or a revoked token; the error says why'), async () => {
      const none = await call('GET', '/v1/status', null);
      assert.equal(none.status, 401);
      assert.equal(none.body.error.code, 'unauthorized');
      assert.match(none.body.error.message, /missing bearer token/);
      const res = await fetch(`${server.url}/v1/status`, { headers: { authorization: 'Token abc' } });
      assert.equal(res.status, 401);
      assert.match(((await res.json()) as { error: { message: string } }).error.message, /malformed Authorization header/);
      assert.match((await call('GET', '/v1/status', 'mnemos_nope')).body.error.message, /unknown or revoked/);
      const r = await call('GET', '/v1/status', revoked);
      assert.equal(r.status, 401);
      assert.match(r.body.error.message, /unknown or revoked/);
      assert.equal((await call('POST', '/mcp', null, { jsonrpc: '2.0', id: 1, method: 'tools/list' })).status, 401);
    });

    it(named('403 for an owner-only tool with a guest or agent token'), async () => {
      for (const t of [guest, agent]) {
        const r = await tool('deep_recall', t, { query: 'zebracorn' });
        assert.equal(r.status, 403);
        assert.match(r.body.error.message, /owner only/);
      }
    });
  });

  describe('validation', () => {
    it(named('malformed input gets 400 naming the field and changes nothing'), async () => {
      const before = (await call('GET', '/v1/status', owner)).body.memories.total;
      const bad = await call('POST', '/v1/memories', owner, { text: 'ok', importance: 7 });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.code, 'validation_failed');
      assert.equal(bad.body.error.details.field, 'importance');
      const batch = await call('POST', '/v1/memories', owner, { memories: [{ text: 'first is fine' }, { text: '' }] });
      assert.equal(batch.status, 400);
      assert.match(batch.body.error.message, /memory #2: text/);
      const note = await tool('working_memory_note', owner, { note: 'x', type: 'nonsense' });
      assert.equal(note.status, 400);
      assert.equal(note.body.error.details.field, 'type');
      const search = await tool('memory_search', owner, { query: 'x', maxResults: 5000 });
      assert.equal(search.status, 400);
      assert.equal(search.body.error.details.field, 'maxResults');
      const recall = await tool('recall_range', owner, { sessionId: OWNER_SESSION, maxChars: 60_001 });
      assert.equal(recall.body.error.details.field, 'maxChars');
      // A JSON null is not an empty object: refused as the wrong type, like an array or a string.
      for (const name of ['memory_status', 'self_state', 'memory_search']) {
        const nul = await tool(name, owner, 'null');
        assert.equal(nul.status, 400, `${name}: ${JSON.stringify(nul.body)}`);
        assert.equal(nul.body.error.code, 'validation_failed');
      }
      const json = await call('POST', '/v1/memories', owner, '{"text": ');
      assert.equal(json.status, 400);
      assert.match(json.body.error.message, /not valid JSON/);
      assert.equal((await call('GET', '/v1/status', owner)).body.memories.total, before);
    });

    it(named('rejects a body over the size limit with 413, and the next request on a kept-alive connection still works'), async () => {
      const r = await call('POST', '/v1/memories', owner, { text: 'x'.repeat(5 * 1024 * 1024) });
      assert.equal(r.status, 413);
      assert.equal(r.body.error.code, 'limit_exceeded');
      // The 413 said keep-alive and the socket was then closed: the client's next request on it failed.
      const { port } = new URL(server.url);
      const socket = connect(Number(port), '127.0.0.1');
      let got = '';
      socket.on('data', (d) => (got += d.toString()));
      const until = async (re: RegExp) => {
        // Up to 30 s: a 5 MiB body over loopback, on a machine a whole test run can load four files deep.
        for (let i = 0; i < 600 && !re.test(got); i++) await new Promise((r) => setTimeout(r, 50));
        assert.match(got, re);
      };
      const big = JSON.stringify({ text: 'x'.repeat(5 * 1024 * 1024) });
      socket.write(`POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner}\r\nContent-Type: application/json\r\nContent-Length: ${big.length}\r\n\r\n`);
      socket.write(big);
      await until(/limit_exceeded"[^]*\}\}\}$/);
      assert.match(got, /^HTTP\/1\.1 413/);
      assert.doesNotMatch(got, /connection: close/i);
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      await until(/HTTP\/1\.1 200[^]*\{"ok":true\}/);
      socket.destroy();
      // Sent without a length (chunked), the body is cut off part-way and the socket closed: the 413 says so.
      const chunked = connect(Number(port), '127.0.0.1');
      got = '';
      chunked.on('data', (d) => (got += d.toString()));
      chunked.on('error', () => {}); // the server may close while the rest is still being sent
      // A real host name: a loopback server refuses others (DNS rebinding, docs/SERVER.md Browsers).
      chunked.write(`POST /v1/memories HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${owner}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`);
      const piece = 'x'.repeat(256 * 1024);
      for (let i = 0; i < 20 && !/limit_exceeded/.test(got); i++) {
        chunked.write(`${piece.length.toString(16)}\r\n${piece}\r\n`);
        await new Promise((r) => setTimeout(r, 20));
      }
      await until(/limit_exceeded/);
      assert.match(got, /^HTTP\/1\.1 413/);
      assert.match(got, /connection: close/i);
      chunked.destroy();
    });

    it(named('unknown tool is 404'), async () => {
      assert.equal((await tool('rm_rf', owner, {})).status, 404);
    });
  });

  describe('ingest', () => {
    it(named('POST /v1/memories is idempotent with a client key; a different text under the same key is 409'), async () => {
      const a = await call('POST', '/v1/memories', owner, { text: 'idempotent fact one', key: 'client-1' });
      assert.equal(a.status, 201);
      const b = await call('POST', '/v1/memories', owner, { text: 'idempotent fact one', key: 'client-1' });
      assert.equal(b.status, 200);
      assert.deepEqual(b.body, { id: a.body.id, status: 'unchanged' });
      const c = await call('POST', '/v1/memories', owner, { text: 'something else', key: 'client-1' });
      assert.equal(c.status, 409);
    });

    it(named('stores a batch all-or-nothing'), async () => {
      const r = await call('POST', '/v1/memories', owner, { memories: [{ text: 'batch a', key: 'b-a' }, { text: 'batch b', key: 'b-b' }] });
      assert.equal(r.status, 201);
      assert.equal(r.body.results.length, 2);
    });

    it(named('POST /v1/transcripts stores turns; posting again adds nothing; recall_range returns exact text'), async () => {
      const conv = { sessionId: 'sess-http', messages: [{ role: 'user', content: 'turn one text' }, { role: 'assistant', content: 'turn two text' }, { role: 'user', content: 'turn three text' }] };
      assert.equal((await call('POST', '/v1/transcripts', owner, conv)).status, 201);
      const again = await call('POST', '/v1/transcripts', owner, conv);
      assert.equal(again.status, 200);
      assert.ok(again.body.results.every((r: { status: string }) => r.status === 'unchanged'));
      const r = await tool('recall_range', owner, { sessionId: 'sess-http', turns: '2-3' });
      assert.deepEqual(r.body.turns.map((t: { turn: number; text: string }) => [t.turn, t.text]), [[2, 'turn two text'], [3, 'turn three text']]);
      const cut = await tool('recall_range', owner, { sessionId: 'sess-http', maxChars: 20 });
      assert.equal(cut.body.truncated, true);
      assert.equal(cut.body.nextTurn, 2);
    });
  });

  describe('tools and routes as owner', () => {
    it(named('search ranks with id, text, score, source and why; an empty result says what was searched'), async () => {
      const r = await call('POST', '/v1/search', owner, { query: 'bank PIN' });
      assert.equal(r.body.results[0].id, secretId);
      assert.ok(r.body.results[0].score > 0);
      assert.deepEqual(r.body.results[0].why.matchedTerms.sort(), ['bank', 'pin']);
      const empty = await tool('memory_search', owner, { query: 'xylophone' });
      assert.equal(empty.body.results.length, 0);
      assert.match(empty.body.searched.message, /xylophon/);
    });

    it(named('memory_get by id and by path (only recorded sources)'), async () => {
      assert.equal((await call('GET', `/v1/memories/${secretId}`, owner)).body.memory.text, SECRET);
      const lines = await tool('memory_get', owner, { path: notes, from: 3, lines: 1 });
      assert.deepEqual(lines.body.lines, [{ line: 3, text: 'zebracorn vault combination is 99-12' }]);
      const passwd = await tool('memory_get', owner, { path: '/etc/passwd' });
      assert.equal(passwd.status, 404);
      assert.match(passwd.body.error.message, /not the recorded source/);
      const both = await tool('memory_get', owner, { id: secretId, path: notes });
      assert.equal(both.status, 400);
    });

    it(named('note, two-step edit, history, two-step forget'), async () => {
      const note = await tool('working_memory_note', owner, { note: 'User prefers tea over coffee', type: 'directive' });
      assert.equal(note.body.status, 'created');
      assert.equal(note.body.type, 'preference');
      assert.equal(note.body.importance, 0.7);
      const preview = await tool('memory_edit', owner, { id: note.body.id, changes: { text: 'User prefers green tea' } });
      assert.equal(preview.body.step, 'preview');
      assert.equal((await call('GET', `/v1/memories/${note.body.id}`, owner)).body.memory.text, 'User prefers tea over coffee', 'nothing changed before confirm');
      const done = await tool('memory_edit', owner, { token: preview.body.preview.token });
      assert.equal(done.body.version, 2);
      const hist = await call('GET', `/v1/memories/${done.body.id}/history`, owner);
      assert.equal(hist.body.versions.length, 2);
      const fp = await tool('memory_forget', owner, { id: done.body.id, reason: 'test' });
      assert.equal(fp.body.preview.text, 'User prefers green tea');
      assert.equal((await call('GET', `/v1/memories/${done.body.id}`, owner)).status, 200, 'nothing forgotten before confirm');
      const reused = await tool('memory_forget', guest, { token: fp.body.preview.token });
      assert.equal(reused.status, 409, 'another principal cannot confirm the preview');
      assert.equal((await tool('memory_forget', owner, { token: fp.body.preview.token })).body.step, 'confirmed');
      assert.equal((await call('GET', `/v1/memories/${done.body.id}`, owner)).status, 410);
    });

    it(named('deep_recall, memory_status and self_state'), async () => {
      const d = await tool('deep_recall', owner, { query: 'zebracorn diary', scope: 'all_sessions' });
      assert.equal(d.body.hits[0].sessionId, OWNER_SESSION);
      assert.equal(d.body.hits[0].context[0].text, 'noted');
      const cur = await tool('deep_recall', owner, { query: 'diary', scope: 'current_session' });
      assert.equal(cur.status, 400);
      assert.equal(cur.body.error.details.field, 'sessionId');
      const s = (await call('GET', '/v1/status', owner)).body;
      assert.ok(s.memories.total > 0);
      assert.equal(s.configured.embeddings, 'on', 'the built-in embedder is on by default');
      const self = (await call('GET', '/v1/self', owner)).body;
      const emb = self.parts.find((p: { part: string }) => p.part === 'embeddings');
      assert.equal(emb.state, 'on');
      assert.match(emb.why, /built-in offline embedder/);
      assert.ok(emb.setting);
      assert.equal(self.parts.find((p: { part: string }) => p.part === 'http_api').state, 'on');
      // The server says whether its own timer runs (the default: every 30 minutes), once.
      const consolidation = self.parts.filter((p: { part: string }) => p.part === 'consolidation');
      assert.equal(consolidation.length, 1);
      assert.equal(consolidation[0].state, 'on');
      assert.match(consolidation[0].why, /every 30 min/);
      // The last consolidation is reported to the owner once one has finished; never to a guest.
      assert.equal((await tool('memory_status', owner, {})).body.lastConsolidation, null);
      const run = await cli(['consolidate', '--force', '--db', db]);
      const last = (await tool('memory_status', owner, {})).body.lastConsolidation;
      assert.equal(last.jobId, run.jobId);
      assert.equal(last.finishedAt, run.finishedAt);
      assert.equal((await tool('memory_status', guest, {})).body.lastConsolidation, null);
    });
  });

  describe('guest isolation through every tool and route', () => {
    for (const [who, tok] of [['guest', () => guest], ['agent', () => agent]] as const) {
      it(named(`${who} never gets owner-only memories`), async () => {
        const t = tok();
        const search = await tool('memory_search', t, { query: 'zebracorn bank PIN vault diary' });
        const ids = search.body.results.map((r: { id: string }) => r.id);
        assert.ok(ids.includes(publicId), 'the public memory is found');
        // Besides it, only notes written by non-owners (shared by default) may appear, never owner-only text.
        assert.ok(search.body.results.every((r: { id: string; text: string }) => r.id === publicId || r.text.includes('scratch note')));
        assert.equal((await call('POST', '/v1/search', t, { query: 'PIN' })).body.results.length, 0);
        assert.equal((await tool('memory_get', t, { id: secretId })).status, 404);
        assert.equal((await call('GET', `/v1/memories/${secretId}`, t)).status, 404);
        assert.equal((await tool('memory_get', t, { path: notes })).status, 404);
        assert.equal((await tool('memory_history', t, { id: secretId })).status, 404);
        assert.equal((await call('GET', `/v1/memories/${secretId}/history`, t)).status, 404);
        assert.equal((await tool('memory_forget', t, { id: secretId })).status, 404);
        assert.equal((await tool('memory_edit', t, { id: secretId, changes: { text: 'hijacked' } })).status, 404);
        const recall = await tool('recall_range', t, { sessionId: OWNER_SESSION });
        assert.deepEqual(recall.body.turns, []);
        assert.match(recall.body.searched, /0 turns visible/);
        assert.equal((await tool('deep_recall', t, { query: 'zebracorn' })).status, 403);
        const status = (await call('GET', '/v1/status', t)).body;
        const ownerTotal = (await call('GET', '/v1/status', owner)).body.memories.total;
        assert.ok(status.memories.total <= 2 && status.memories.total < ownerTotal, 'counts cover only what the caller can see');
        assert.equal((await tool('self_state', t, {})).status, 200);
        assert.equal((await call('POST', '/v1/tools/memory_status', t, {})).body.memories.total, status.memories.total);
        // Their own note is theirs; the owner's text is still never returned.
        const mine = await tool('working_memory_note', t, { note: `${who} scratch note about zebracorn` });
        assert.equal(mine.body.status, 'created');
        const again = await tool('memory_search', t, { query: 'zebracorn' });
        assert.ok(again.body.results.every((r: { text: string }) => !r.text.includes('PIN') && !r.text.includes('vault') && !r.text.includes('diary')));
        // Ingest cannot overwrite the owner's transcript turns.
        const over = await call('POST', '/v1/transcripts', t, { sessionId: OWNER_SESSION, messages: [{ role: 'user', content: 'overwritten' }] });
        assert.equal(over.status, 403);
      });
    }
    it(named('memory_get {path} never reads the disk for a guest, even for a source the guest forged'), async () => {
      const secretFile = join(tmp.dir, 'secret.txt');
      writeFileSync(secretFile, 'PIN=4321\n');
      const notes: string[] = [];
      for (const [i, guess] of ['PIN=4321', 'PIN=0000'].entries()) {
        const forged = await call('POST', '/v1/memories', guest, { text: guess, key: `file:${secretFile}#L1-L1`.replace('L1-L1', `L1-L${i + 1}`), source: { path: secretFile, lineStart: 1, lineEnd: 1 } });
        assert.equal(forged.status, 201);
        const r = await tool('memory_get', guest, { path: secretFile, from: 1, lines: 1 });
        assert.equal(r.status, 200);
        notes.push(r.body.note);
        assert.ok(r.body.lines.every((l: { text: string }) => l.text === 'PIN=4321' || l.text === 'PIN=0000'), 'only texts the guest wrote');
      }
      assert.equal(notes[0], notes[1], 'a right and a wrong guess look the same');
      assert.match(notes[0]!, /stored text/);
    });

    it(named('the owner memory is untouched after the guest attempts'), async () => {
      assert.equal((await call('GET', `/v1/memories/${secretId}`, owner)).body.memory.text, SECRET);
      const r = await tool('recall_range', owner, { sessionId: OWNER_SESSION, turns: '1' });
      assert.equal(r.body.turns[0].text, 'my zebracorn diary starts today');
    });
  });

  it(named('shuts down cleanly on SIGTERM'), async () => {
    const code = await server.stop('SIGTERM');
    assert.equal(code, 0, server.stderr());
    assert.match(server.stderr(), /closing the store/);
  });
});
