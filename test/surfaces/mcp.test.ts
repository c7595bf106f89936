import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { named, testStores } from '../helpers/backend.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { waitForExit, waitForOutput } from '../helpers/child-wait.ts';
import { MNEMOS_BIN, cli, createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

// The MCP surface offers exactly the registry's tools (later issues add modules there).
const TOOL_NAMES = TOOLS.map((t) => t.name).sort();

function parse(result: unknown): any {
  const r = result as { content: { type: string; text: string }[]; isError?: boolean };
  return { isError: !!r.isError, ...JSON.parse(r.content[0]!.text) };
}

function stdioClient(db: string, env: Record<string, string> = {}): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [MNEMOS_BIN, 'mcp', '--db', db],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  return { client: new Client({ name: 'mnemos-test', version: '1.0.0' }), transport };
}

/** Raw sessions still running when their test ends (a failed one): killed after the file, so it cannot hang. */
const rawChildren = new Set<ReturnType<typeof spawn>>();
after(() => {
  for (const c of rawChildren) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** `mnemos mcp` driven with raw lines, for what an SDK client never sends (a closed stdin mid-call, a signal). */
function rawSession(db: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, [MNEMOS_BIN, 'mcp', '--db', db], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', MNEMOS_CONSOLIDATE_EVERY_MS: '0', ...env } });
  rawChildren.add(child);
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const replies = () => out.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l));
  const what = 'mnemos mcp';
  return {
    child,
    /** How the session ended; a session still running after the bound is killed and fails the test with its stderr. */
    exited: () => waitForExit(child, { what, stderr: () => err }),
    replies,
    stdout: () => out,
    stderr: () => err,
    send: (msg: unknown) => child.stdin.write(`${JSON.stringify(msg)}\n`),
    /** Fails fast with the stderr when the session ends first, and kills a silent one after the bound. */
    async waitForReplies(n: number): Promise<void> {
      await waitForOutput(child, () => (out.match(/\n/g) ?? []).length >= n, `${n} replies (stdout so far: ${out.length} chars)`, { what, stderr: () => err });
    },
    async initialize(): Promise<void> {
      this.send({ jsonrpc: '2.0', id: 'init', method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
      this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
      await this.waitForReplies(1);
    },
  };
}

function noteCalls(n: number, tag: string): { jsonrpc: '2.0'; id: number; method: string; params: unknown }[] {
  return Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0' as const, id: i + 1, method: 'tools/call', params: { name: 'working_memory_note', arguments: { note: `${tag} note number ${i}` } } }));
}

describe('MCP over stdio (mnemos mcp)', () => {
  const tmp = testStores('mnemos-mcp-');
  const db = tmp.db;

  after(() => tmp.cleanup());

  it(named('lists the tool set and runs tools as the local owner through the real SDK client'), async () => {
    const { client, transport } = stdioClient(db);
    await client.connect(transport);
    try {
      const tools = await client.listTools();
      assert.deepEqual(tools.tools.map((t) => t.name).sort(), TOOL_NAMES);
      const search = tools.tools.find((t) => t.name === 'memory_search')!;
      assert.equal(search.inputSchema.type, 'object');
      assert.ok((search.inputSchema.properties as Record<string, { description?: string }>).query!.description, 'inputs are described for the model');
      const note = parse(await client.callTool({ name: 'working_memory_note', arguments: { note: 'The staging server is called heron' } }));
      assert.equal(note.status, 'created');
      const found = parse(await client.callTool({ name: 'memory_search', arguments: { query: 'staging server' } }));
      assert.equal(found.results[0].id, note.id);
      const bad = parse(await client.callTool({ name: 'memory_search', arguments: { query: 'x', maxResults: 0 } }));
      assert.equal(bad.isError, true);
      assert.equal(bad.error.code, 'validation_failed');
      assert.equal(bad.error.details.field, 'maxResults');
      const self = parse(await client.callTool({ name: 'self_state', arguments: {} }));
      assert.equal(self.parts.find((p: { part: string }) => p.part === 'mcp_stdio').state, 'on');
      // Seed 002's parts that are not built are said to be unavailable, not left out.
      const state = (name: string) => self.parts.find((p: { part: string }) => p.part === name)?.state;
      assert.deepEqual(['dreams', 'curiosity', 'hormones', 'skill_learning', 'reconsolidation'].map(state), ['unavailable', 'unavailable', 'unavailable', 'unavailable', 'on']);
      // The web inspector is a page of `mnemos serve`, which says `on` itself; here it is off and says where it is.
      assert.equal(state('web_inspector'), 'off');
      assert.match(self.parts.find((p: { part: string }) => p.part === 'web_inspector').setting, /mnemos serve/);
    } finally {
      await client.close();
    }
  });

  it(named("an owner's session consolidates on its timer, as serve does (the built-in model would otherwise never train)"), async () => {
    const { client, transport } = stdioClient(db, { MNEMOS_CONSOLIDATE_EVERY_MS: '150' });
    await client.connect(transport);
    try {
      parse(await client.callTool({ name: 'working_memory_note', arguments: { note: 'Consolidate me on the timer' } }));
      let runs: { status: string }[] = [];
      for (let i = 0; i < 100 && !runs.some((r) => r.status === 'done'); i++) {
        await new Promise((r) => setTimeout(r, 100));
        runs = parse(await client.callTool({ name: 'consolidation_status', arguments: {} })).runs;
      }
      assert.ok(runs.some((r) => r.status === 'done'), `a scheduled run finished: ${JSON.stringify(runs)}`);
      const consolidation = parse(await client.callTool({ name: 'self_state', arguments: {} })).parts.find((p: { part: string }) => p.part === 'consolidation');
      assert.equal(consolidation.state, 'on');
      assert.match(consolidation.why, /every 150 ms/);
      // consolidation_status gives the period of the timer this session runs (it gave the library default, 30 minutes).
      assert.equal(parse(await client.callTool({ name: 'consolidation_status', arguments: {} })).intervalMs, 150);
    } finally {
      await client.close();
    }
  });

  it(named('acts as the principal of MNEMOS_TOKEN: a guest token gets no owner memories and no deep_recall'), async () => {
    const guest = await createToken(db, 'guest');
    const { client, transport } = stdioClient(db, { MNEMOS_TOKEN: guest.token });
    await client.connect(transport);
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      assert.ok(!tools.includes('deep_recall'), 'owner-only tools are not offered to guests');
      const found = parse(await client.callTool({ name: 'memory_search', arguments: { query: 'staging server heron' } }));
      assert.equal(found.results.length, 0);
      assert.match(found.searched.message, /visible to guest/);
      const denied = parse(await client.callTool({ name: 'deep_recall', arguments: { query: 'heron' } }));
      assert.equal(denied.error.code, 'forbidden');
      // A guest's session runs no consolidation timer, and self_state says so (it said "on").
      const consolidation = parse(await client.callTool({ name: 'self_state', arguments: {} })).parts.find((p: { part: string }) => p.part === 'consolidation');
      assert.equal(consolidation.state, 'off');
      assert.match(consolidation.why, /acts as a guest/);
    } finally {
      await client.close();
    }
  });

  it(named('a token given empty (MNEMOS_TOKEN= or --token "") is refused, not read as the local owner'), async () => {
    // A config whose token variable was never set served a guest's agent the owner's whole namespace.
    const ways: [string[], Record<string, string>, RegExp][] = [
      [[], { MNEMOS_TOKEN: '' }, /MNEMOS_TOKEN is given but empty/],
      [[], { MNEMOS_TOKEN: '  ' }, /MNEMOS_TOKEN is given but empty/],
      [['--token', ''], {}, /--token is given but empty/],
    ];
    for (const [extra, env, message] of ways) {
      const child = spawn(process.execPath, [MNEMOS_BIN, 'mcp', '--db', db, ...extra], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '', MNEMOS_CONSOLIDATE_EVERY_MS: '0', ...env } });
      rawChildren.add(child);
      let out = '';
      let err = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (err += d));
      child.stdin.end(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })}\n`);
      const { code } = await waitForExit(child, { what: 'mnemos mcp', stderr: () => err });
      assert.equal(code, 4, `${JSON.stringify(env)} ${extra.join(' ')}: ${err}`);
      assert.match(err, message);
      assert.equal(out, '', 'no session was served');
    }
  });

  it(named('memory_get {path} past the last safe line number is refused, and the session answers on'), async () => {
    // From 2^53 - 1 on, the loop over the asked lines never ended (line++ stops counting there): the session
    // answered nothing again and its heap grew until it died. Any token could do it to a server. A small heap
    // makes that death quick, so the test fails fast rather than at the wait's bound.
    const s = rawSession(db, { NODE_OPTIONS: '--max-old-space-size=128' });
    await s.initialize();
    s.send({ jsonrpc: '2.0', id: 'far', method: 'tools/call', params: { name: 'memory_get', arguments: { path: '/nowhere/notes.md', from: Number.MAX_SAFE_INTEGER } } });
    s.send({ jsonrpc: '2.0', id: 'ping', method: 'ping' });
    await s.waitForReplies(3);
    const far = s.replies().find((r: { id?: string }) => r.id === 'far');
    assert.equal(far.result.isError, true);
    const error = JSON.parse(far.result.content[0].text).error;
    assert.equal(error.code, 'validation_failed');
    assert.equal(error.details.field, 'from');
    assert.ok(s.replies().some((r: { id?: string }) => r.id === 'ping'));
    s.child.stdin.end();
    assert.equal((await s.exited()).code, 0, s.stderr());
  });

  it(named('writes nothing but JSON-RPC messages on stdout; logs go to stderr'), async () => {
    const s = rawSession(db);
    s.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    s.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    s.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    s.send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'memory_status', arguments: {} } });
    s.send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'memory_get', arguments: { id: 'NOPE' } } });
    await s.waitForReplies(4);
    s.child.stdin.end();
    const { code } = await s.exited();
    const out = s.stdout();
    const err = s.stderr();
    const lines = out.split('\n').filter((l) => l !== '');
    assert.equal(lines.length, 4, 'one line per reply, nothing else');
    for (const line of lines) {
      const msg = JSON.parse(line);
      assert.equal(msg.jsonrpc, '2.0');
      assert.ok('result' in msg || 'error' in msg);
    }
    // Each request answered once; replies may come in any order (JSON-RPC allows it, and tools run concurrently).
    assert.deepEqual(lines.map((l) => JSON.parse(l).id).sort(), [1, 2, 3, 4]);
    assert.match(err, /serving on stdio/, 'the log line went to stderr');
    assert.equal(code, 0, 'exits cleanly when stdin closes');
  });

  it(named('stdin closed right after requests: every call already sent is done and answered before the process exits'), async () => {
    const s = rawSession(db);
    await s.initialize();
    for (const call of noteCalls(20, 'kestrelclosing')) s.send(call);
    s.child.stdin.end();
    const { code } = await s.exited();
    assert.equal(code, 0, s.stderr());
    const answered = s.replies().filter((r) => typeof r.id === 'number');
    // The store used to close under the calls still running: they failed (pool or database closed) and no reply came.
    assert.equal(answered.length, 20, `every call answered; stderr: ${s.stderr()}`);
    for (const r of answered) assert.equal(JSON.parse(r.result.content[0].text).status, 'created');
    assert.doesNotMatch(s.stderr(), /failed/);
    const stored = await cli(['search', 'kestrelclosing', '--limit', '50', '--db', db]);
    assert.equal(stored.hits.length, 20);
  });

  it(named('a message over 10 MiB, a line that is not JSON and one that is not JSON-RPC each get an error reply; the session goes on'), async () => {
    const s = rawSession(db);
    await s.initialize();
    s.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'working_memory_note', arguments: { note: `huge ${'y'.repeat(11 * 1024 * 1024)}` } } });
    s.child.stdin.write('{not json\n[1,2,3]\n');
    s.send({ jsonrpc: '2.0', id: 2, method: 'ping' });
    // The SDK's transport closed itself on the big line: the process exited 0 without a word, and the ping went unanswered.
    await s.waitForReplies(5);
    const byId = (id: unknown) => s.replies().filter((r) => r.id === id);
    assert.equal(byId(1)[0].error.code, -32600);
    assert.match(byId(1)[0].error.message, /over the 10485760-byte limit/);
    assert.deepEqual(byId(null).map((r) => r.error.code).sort((a: number, b: number) => a - b), [-32700, -32600]);
    assert.deepEqual(byId(2)[0].result, {});
    assert.match(s.stderr(), /over the 10485760-byte limit/);
    s.child.stdin.end();
    assert.equal((await s.exited()).code, 0);
  });

  it(named('SIGTERM during calls: they finish and are answered, then the process exits 0'), async () => {
    const s = rawSession(db);
    await s.initialize();
    for (const call of noteCalls(20, 'ospreysigterm')) s.send(call);
    s.child.kill('SIGTERM');
    const { code, signal } = await s.exited();
    // It was killed by the signal on the spot, mid-call, like no other surface (serve finishes its requests).
    assert.deepEqual({ code, signal }, { code: 0, signal: null }, s.stderr());
    const answered = s.replies().filter((r) => typeof r.id === 'number');
    assert.equal(answered.length, 20, `every call answered; stderr: ${s.stderr()}`);
    for (const r of answered) assert.equal(JSON.parse(r.result.content[0].text).status, 'created');
    assert.match(s.stderr(), /SIGTERM, finishing/);
    const stored = await cli(['search', 'ospreysigterm', '--limit', '50', '--db', db]);
    assert.equal(stored.hits.length, 20);
  });
});

describe('MCP over streamable HTTP (mnemos serve /mcp)', () => {
  const tmp = testStores('mnemos-mcp-http-');
  const db = tmp.db;
  let server: SpawnedServer;
  let owner: string;
  let guest: string;

  before(async () => {
    owner = (await createToken(db, 'owner')).token;
    guest = (await createToken(db, 'guest')).token;
    server = await spawnServe(db);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  const connect = async (token: string | null) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), token ? { requestInit: { headers: { authorization: `Bearer ${token}` } } } : {});
    const client = new Client({ name: 'mnemos-test', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };

  it(named('owner: lists and calls tools; the same operation over REST sees the same memory'), async () => {
    const client = await connect(owner);
    try {
      assert.deepEqual((await client.listTools()).tools.map((t) => t.name).sort(), TOOL_NAMES);
      const note = parse(await client.callTool({ name: 'working_memory_note', arguments: { note: 'Owner secret: the safe code is 8812 kingfisher', type: 'world_fact' } }));
      assert.equal(note.type, 'fact');
      const rest = await request(server.url, 'GET', `/v1/memories/${note.id}`, owner);
      assert.equal(rest.body.memory.text, 'Owner secret: the safe code is 8812 kingfisher');
      const preview = parse(await client.callTool({ name: 'memory_forget', arguments: { id: note.id } }));
      assert.equal(preview.step, 'preview');
      assert.equal((await request(server.url, 'GET', `/v1/memories/${note.id}`, owner)).status, 200);
      const note2 = parse(await client.callTool({ name: 'working_memory_note', arguments: { note: 'kingfisher owner diary' } }));
      assert.equal(note2.status, 'created');
    } finally {
      await client.close();
    }
  });

  it(named('guest over /mcp: no owner memories, no deep_recall'), async () => {
    const client = await connect(guest);
    try {
      assert.ok(!(await client.listTools()).tools.some((t) => t.name === 'deep_recall'));
      const r = parse(await client.callTool({ name: 'memory_search', arguments: { query: 'kingfisher safe code' } }));
      assert.equal(r.results.length, 0);
      const d = parse(await client.callTool({ name: 'deep_recall', arguments: { query: 'kingfisher' } }));
      assert.equal(d.error.code, 'forbidden');
      const h = parse(await client.callTool({ name: 'memory_history', arguments: { id: 'x' } }));
      assert.equal(h.error.code, 'not_found');
      // An unknown name lists what this caller may call: no owner-only tool (deep_recall, journal_query, ...) is offered.
      const unknown = parse(await client.callTool({ name: 'memory_serch', arguments: {} }));
      assert.equal(unknown.error.code, 'not_found');
      assert.match(unknown.error.message, /available: .*memory_search/);
      assert.doesNotMatch(unknown.error.message, /deep_recall|journal_query|consolidation_status/);
    } finally {
      await client.close();
    }
  });

  it(named('stateless: GET and DELETE are 405 with Allow: POST; a session id the server never gave changes nothing'), async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${server.url}/mcp`, { method, headers: { authorization: `Bearer ${owner}`, 'mcp-session-id': 'never-issued' } });
      assert.equal(res.status, 405, method);
      assert.equal(res.headers.get('allow'), 'POST', `${method}: a 405 says which method works`);
      assert.equal(((await res.json()) as any).error.code, 'unsupported');
    }
    const ping = await fetch(`${server.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': 'never-issued' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
    });
    assert.equal(ping.status, 200);
    assert.deepEqual(((await ping.json()) as any).result, {});
  });

  it(named('refuses to connect without a token (401)'), async () => {
    await assert.rejects(() => connect(null), /401|nauthorized/);
  });
});
