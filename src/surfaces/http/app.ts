import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { isUtf8 } from 'node:buffer';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import { toMnemosError } from '../../domain/errors.ts';
import { parseInput } from '../../services/validate.ts';
import type { PartReport } from '../../services/self-state.ts';
import type { Mnemos } from '../library/open-memory.ts';
import { buildMcpServer } from '../mcp/mcp-server.ts';
import { errorForCaller, storeLocationOf } from '../tools/redact-location.ts';
import { requestError } from '../tools/request-error.ts';
import { findTool, runTool } from '../tools/run-tool.ts';
import type { Tool } from '../tools/tool.ts';
import { addInspectorRoutes } from '../inspector/inspector-routes.ts';
import { browserGuard, type BrowserPolicy } from './browser-guard.ts';
import { requestBodyLimit } from './body-limit.ts';
import { HTTP_STATUS } from './error-status.ts';
import { batchEnvelope } from './ingest.ts';
import { DEFAULT_LIMITS, type HttpLimits } from './limits.ts';
import { allowedMethods } from './route-methods.ts';
import { buildOpenApi } from './openapi.ts';
import { queryInput } from './query-input.ts';
import { TOOL_ROUTES } from './routes.ts';

export interface AppOptions {
  /** The facade opened on the store; each request acts through `memory.as(principal)`. */
  memory: Mnemos;
  tools: readonly Tool[];
  limits?: Partial<HttpLimits>;
  /** What self_state should report about this server (transports, address). */
  surfaceParts?: PartReport[];
  log: (line: string) => void;
  /** Which web pages and Host names may reach the server (browser-guard.ts); without one, none is checked. */
  browsers?: BrowserPolicy;
}

type Env = { Variables: { memory: Mnemos } };

/**
 * The HTTP surface: JSON API under /v1, MCP at /mcp, /healthz, /readyz,
 * /openapi.json and the web inspector's files at /inspector. Thin by design:
 * authenticate, parse, call the facade or the tool registry, map errors
 * through HTTP_STATUS.
 */
export function createApp(opts: AppOptions): Hono<Env> {
  const limits = { ...DEFAULT_LIMITS, ...opts.limits };
  const parts = opts.surfaceParts ?? [];
  const app = new Hono<Env>();
  let openApi: unknown;

  // Taken now: a closed handle no longer tells its store's location, and errors must still be redacted then.
  const location = storeLocationOf(opts.memory);

  app.onError((err, c) => {
    // The caller's role, once authenticated; before that (a token check that could not reach the store) nobody's.
    const caller = (c.get('memory') as Mnemos | undefined)?.principal.role;
    const e = errorForCaller(toMnemosError(err), location, caller);
    if (e.code === 'internal') opts.log(`http ${c.req.method} ${c.req.path} failed: ${(err as Error).stack ?? e.message}`);
    if (e.code === 'unauthorized') c.header('WWW-Authenticate', 'Bearer realm="mnemos"');
    // Only a body sent without a length gets here (a declared one is answered first: oversized-body.ts). Its
    // reading stopped part-way and the server drops the socket after answering: said so, a client does not
    // send its next request on it.
    if (e.code === 'limit_exceeded') c.header('Connection', 'close');
    return c.json({ error: e.toJSON() }, HTTP_STATUS[e.code]);
  });
  // A path that exists under another method is 405 with Allow (OPTIONS: 204 with Allow), not "no route":
  // `GET /v1/search` said the route did not exist. A trailing slash is named as the difference.
  app.notFound((c) => {
    const path = c.req.path;
    const allow = allowedMethods(app.routes, path);
    if (allow.length > 0) {
      c.header('Allow', allow.join(', '));
      if (c.req.method === 'OPTIONS') return c.body(null, 204);
      const message = `${path} does not take ${c.req.method}; it takes ${allow.filter((m) => m !== 'HEAD' && m !== 'OPTIONS').join(', ')} (see /openapi.json)`;
      return c.json({ error: { code: 'unsupported', message, details: { method: c.req.method, allow } } }, 405);
    }
    const bare = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : null;
    const hint = bare && allowedMethods(app.routes, bare).length > 0 ? `; did you mean ${bare} (without the trailing slash)?` : '';
    return c.json({ error: { code: 'not_found', message: `no route ${c.req.method} ${path}${hint}; see /openapi.json` } }, 404);
  });

  // Every answer, errors included: a browser must not guess a JSON body into HTML or script. Set again after
  // the handler on /mcp: the MCP transport's own Response does not carry headers set on the context before it.
  app.use('*', async (c, next) => {
    // Prepared before the handler, so the answer is made with it: set on a made answer, the header cost
    // @hono/node-server its fast path (the whole Response object was built), a quarter of the GET rate.
    c.header('X-Content-Type-Options', 'nosniff');
    await next();
    if (c.req.path === '/mcp') c.header('X-Content-Type-Options', 'nosniff');
  });
  // Before the body is read and before any token is looked at: a refused page learns nothing.
  if (opts.browsers) app.use('*', browserGuard(opts.browsers));

  app.use('*', requestBodyLimit(limits.maxBodyBytes));

  const auth: MiddlewareHandler<Env> = async (c, next) => {
    const header = c.req.header('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (header && !match) throw requestError('unauthorized', 'malformed Authorization header: expected "Bearer <token>"');
    const principal = await opts.memory.authenticate(match?.[1]);
    c.set('memory', opts.memory.as(principal));
    await next();
  };

  app.get('/healthz', (c) => c.json({ ok: true }));
  // Readiness, unlike /healthz: one round trip to the store. /healthz said ok while PostgreSQL was down, so a
  // load balancer kept sending requests that could only fail. The answer needs no token, so it names neither the
  // store nor the cause (hosts, users, paths); the server log has them, once per change.
  let lastFailure: string | null = null;
  app.get('/readyz', async (c) => {
    try {
      await opts.memory.store.ping();
      if (lastFailure !== null) opts.log('readyz: the store answers again');
      lastFailure = null;
      return c.json({ ok: true });
    } catch (err) {
      const why = toMnemosError(err).message;
      if (why !== lastFailure) opts.log(`readyz: not ready: ${why}`);
      lastFailure = why;
      return c.json({ error: { code: 'unavailable', message: 'the store cannot be reached: the server is running but cannot serve requests now; try again later' } }, 503);
    }
  });
  app.get('/openapi.json', (c) => c.json((openApi ??= buildOpenApi(opts.tools, limits))));
  // The page needs no token: it holds no data, and asks for one before it calls /v1.
  addInspectorRoutes(app);

  app.use('/v1/*', auth);
  app.use('/mcp', auth);

  const call = (c: Context<Env>, name: string, input: unknown) => runTool(findTool(opts.tools, name, c.get('memory').principal.role), input, { memory: c.get('memory'), surfaceParts: parts });

  app.post('/v1/tools/:name', async (c) => c.json((await call(c, c.req.param('name'), await readJson(c))) as object));

  for (const r of TOOL_ROUTES) {
    const tool = opts.tools.find((t) => t.name === r.tool);
    // A tool this server was built without answers as an unknown tool (404), as it did before.
    if (r.method === 'GET') app.get(r.path, async (c) => c.json((await call(c, r.tool, tool ? queryInput(c, r, tool) : {})) as object));
    else app.post(r.path, async (c) => c.json((await call(c, r.tool, await readJson(c))) as object));
  }

  app.post('/v1/memories', async (c) => {
    const body = await readJson(c);
    // A bare array is the likeliest wrong guess at a batch; "expected object, received array" did not say what to send.
    if (Array.isArray(body)) throw requestError('validation_failed', 'a batch is sent as {"memories": [...]}, not as a bare array; one memory is {"text": ...}', { field: '(body)' });
    const batch = typeof body === 'object' && body !== null && 'memories' in body;
    const items = batch ? parseInput(batchEnvelope(limits.maxBatch), body, 'memories batch').memories : [body];
    const results = await c.get('memory').rememberMany(items as never[]);
    const created = results.some(wroteSomething);
    return c.json(batch ? { results } : results[0]!, created ? 201 : 200);
  });

  app.post('/v1/transcripts', async (c) => {
    const r = await c.get('memory').ingestTranscript((await readJson(c)) as never);
    return c.json(r, r.results.some(wroteSomething) ? 201 : 200);
  });

  app.all('/mcp', async (c) => {
    if (c.req.method !== 'POST') {
      c.header('Allow', 'POST');
      return c.json({ error: { code: 'unsupported', message: 'this MCP endpoint is stateless: POST JSON-RPC messages; no SSE stream' } }, 405);
    }
    // The transport decodes the body leniently (bad bytes become U+FFFD, then stored so); it gets only valid UTF-8.
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (!isUtf8(bytes)) return c.json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: the body is not valid UTF-8; send JSON encoded as UTF-8' }, id: null }, 400);
    const request = new Request(c.req.raw.url, { method: 'POST', headers: c.req.raw.headers, body: bytes });
    const server = buildMcpServer(opts.tools, { memory: c.get('memory'), surfaceParts: parts }, opts.log);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request);
    } finally {
      void server.close();
    }
  });

  return app;
}

/** JSON is UTF-8 (RFC 8259); other bytes were replaced by U+FFFD and stored so, a silent change to the text. */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

async function readJson(c: Context): Promise<unknown> {
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    const charset = /charset\s*=\s*"?([^";\s]+)/i.exec(c.req.header('content-type') ?? '')?.[1];
    const declared = charset && !/^utf-?8$/i.test(charset) ? ` (it declares charset ${charset}; JSON bodies are read as UTF-8 only)` : '';
    throw requestError('validation_failed', `request body is not valid UTF-8${declared}: send it encoded as UTF-8`, { field: '(body)' });
  }
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text);
  } catch (err) {
    throw requestError('validation_failed', `request body is not valid JSON: ${(err as Error).message}`, { field: '(body)' });
  }
}

/** 201 when a post stored something; 200 when every item was already there, or forgotten and left out. */
function wroteSomething(r: { status: string }): boolean {
  return r.status === 'created' || r.status === 'superseded';
}
