import type { AddressInfo } from 'node:net';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import type { Mnemos } from '../library/open-memory.ts';
import { TOOLS } from '../tools/index.ts';
import { createApp } from './app.ts';
import { DEFAULT_LIMITS, type HttpLimits } from './limits.ts';
import { refuseOversizedBody } from './oversized-body.ts';
import { answerClientError } from './client-error.ts';
import { listenError } from './listen-error.ts';
import type { PartReport } from '../../services/self-state.ts';
import type { BrowserPolicy } from './browser-guard.ts';

export interface ServeOptions {
  memory: Mnemos;
  host: string;
  port: number;
  limits?: Partial<HttpLimits>;
  log: (line: string) => void;
  /** Extra lines for self_state (e.g. how searches run). */
  parts?: PartReport[];
  /** Which web pages and Host names may reach the server; see browser-guard.ts. */
  browsers?: BrowserPolicy;
}

export interface RunningServer {
  url: string;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to graceMs), then resolves. */
  close(graceMs?: number): Promise<void>;
}

export async function startServer(opts: ServeOptions): Promise<RunningServer> {
  const parts = [
    { part: 'http_api', state: 'on' as const, why: `serving /v1 on ${opts.host}:${opts.port}`, setting: '--host, --port' },
    { part: 'mcp_http', state: 'on' as const, why: 'MCP streamable HTTP at /mcp', setting: null },
    { part: 'auth', state: 'on' as const, why: 'every /v1 and /mcp request needs a bearer token', setting: 'mnemos token create' },
    { part: 'web_inspector', state: 'on' as const, why: 'a read-only web page at /inspector: status, search, paged list and a memory\'s history, through /v1 with the token typed into it', setting: null },
    ...(opts.parts ?? []),
  ];
  const app = createApp({ memory: opts.memory, tools: TOOLS, log: opts.log, surfaceParts: parts, ...(opts.limits ? { limits: opts.limits } : {}), ...(opts.browsers ? { browsers: opts.browsers } : {}) });
  const listener = getRequestListener(app.fetch);
  const maxBodyBytes = opts.limits?.maxBodyBytes ?? DEFAULT_LIMITS.maxBodyBytes;
  // Once shutdown begins, every answer says `Connection: close`. Node kept answering `keep-alive` to the
  // requests in flight and then closed those sockets anyway, so a client's next request on one (a POST too)
  // was reset, with no way to know whether it was stored; told to close, it opens a new connection and is
  // refused, which says plainly that nothing was done.
  let closing = false;
  const pending = new Set<ServerResponse>();
  const server = await new Promise<Server>((resolve, reject) => {
    const s = createServer((req, res) => {
      if (closing) res.setHeader('Connection', 'close');
      else {
        pending.add(res);
        res.once('close', () => pending.delete(res));
      }
      if (!refuseOversizedBody(req, res, maxBodyBytes)) void listener(req, res);
    });
    s.on('clientError', answerClientError);
    s.once('error', (err) => reject(listenError(err, opts.host, opts.port)));
    s.listen(opts.port, opts.host, () => resolve(s));
  });
  // A slow client cannot hold anything: bodies are read in full before the store is touched, and these bound the wait.
  // Keep-alive outlives a busy event loop: a request already queued on a kept-alive socket must not be reset because the
  // loop reached the idle timer before the socket's bytes (an overload turned into errors).
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 120_000;
  const port = (server.address() as AddressInfo).port;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  return {
    url: `http://${host}:${port}`,
    port,
    close: (graceMs = 10_000) =>
      new Promise<void>((resolve) => {
        closing = true;
        for (const res of pending) if (!res.headersSent) res.setHeader('Connection', 'close');
        // Not unref'd: a connection that never finishes must end by this timer, or the process would
        // drain its event loop with the shutdown still awaited (exit code 13) instead of closing the store.
        const force = setTimeout(() => server.closeAllConnections(), graceMs);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      }),
  };
}
