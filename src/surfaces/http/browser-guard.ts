import type { MiddlewareHandler } from 'hono';
import { MnemosError } from '../../domain/errors.ts';
import { requestError } from '../tools/request-error.ts';

/**
 * Which browsers may talk to the server. A web page on any site can make the
 * browser send requests to 127.0.0.1 (and, by DNS rebinding, read the answers
 * as if the server were its own: the browser then sends the attacker's name as
 * `Host`). Bearer tokens already stop it from acting as anyone, but the MCP
 * streamable HTTP transport requires servers to check `Origin`, and a request
 * no browser of ours sends should be refused before a token is even looked at.
 */
export interface BrowserPolicy {
  /** Origins (`scheme://host[:port]`) whose pages may call the server; `*` allows any. Empty: none. */
  allowedOrigins: readonly string[];
  /** Host names (port-agnostic, lower case, IPv6 in brackets) a request may name; null checks none. */
  allowedHosts: readonly string[] | null;
}

/** Headers a page's preflight may ask for: the token, JSON bodies and the MCP transport's own. */
const ALLOWED_REQUEST_HEADERS = 'Authorization, Content-Type, Accept, Mcp-Protocol-Version, Mcp-Session-Id, Last-Event-Id';
const SETTING_ORIGIN = '--allow-origin or MNEMOS_ALLOWED_ORIGINS';
const SETTING_HOST = '--allow-host or MNEMOS_ALLOWED_HOSTS';

/**
 * Liveness and readiness answer any Host: probes (and raw clients) name the server as they
 * please, and the answers carry no data a rebound page could want.
 */
const PROBES = new Set(['/healthz', '/readyz']);

/** The names a loopback server answers to without being told more. */
const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return h === 'localhost' || h.endsWith('.localhost') || h === '::1' || /^127(\.\d{1,3}){3}$/.test(h) || /^::ffff:127(\.\d{1,3}){3}$/.test(h);
}

/** `evil.example:7420` -> `evil.example`, `[::1]:7420` -> `[::1]`; null when it is no host name at all. */
export function hostnameOf(hostHeader: string): string | null {
  try {
    const u = new URL(`http://${hostHeader}`);
    return u.username || u.password || u.pathname !== '/' || u.search || u.hash ? null : u.hostname.toLowerCase();
  } catch {
    return null;
  }
}

/** An origin as browsers send it (`http://localhost:5173`), or `*`; anything else is refused naming the setting. */
export function normalizeOrigin(value: string): string {
  const v = value.trim();
  if (v === '*') return v;
  let u: URL | null = null;
  try {
    u = new URL(v);
  } catch {
    u = null;
  }
  // `new URL('http://x/')` has a path of `/`; a browser's Origin never ends in a slash, so one is forgiven, not more.
  if (!u || !/^https?:$/.test(u.protocol) || u.username || u.password || u.search || u.hash || !['', '/'].includes(v.slice(u.origin.length))) {
    throw new MnemosError('validation_failed', `${SETTING_ORIGIN}: "${value}" is not an origin; give scheme://host[:port] such as http://localhost:5173, or * for any`, { field: 'allow-origin' });
  }
  return u.origin;
}

/** A host name as `Host` carries it, without a port (`app.internal`, `[::1]`), or `*`. */
export function normalizeHost(value: string): string {
  const v = value.trim();
  if (v === '*') return v;
  const name = v.includes('://') ? null : hostnameOf(v);
  if (!name) throw new MnemosError('validation_failed', `${SETTING_HOST}: "${value}" is not a host name; give one such as mnemos.internal (any port), or * for any`, { field: 'allow-host' });
  return name;
}

/**
 * The policy for a server bound to `bindHost`: no cross-origin page unless
 * listed; on a loopback address only loopback names (and the bound one) as
 * `Host`, since a rebound name means a browser was tricked; bound to another
 * address, clients reach it by names the server cannot know, so `Host` is
 * checked only when names are given.
 */
export function browserPolicy(bindHost: string, origins: readonly string[], hosts: readonly string[]): BrowserPolicy {
  const allowedOrigins = origins.map(normalizeOrigin);
  const extraHosts = hosts.map(normalizeHost);
  const bound = hostnameOf(bindHost.includes(':') && !bindHost.startsWith('[') ? `[${bindHost}]` : bindHost);
  let allowedHosts: string[] | null;
  if (extraHosts.includes('*')) allowedHosts = null;
  else if (isLoopback(bindHost)) allowedHosts = [...new Set([...LOOPBACK_NAMES, ...(bound ? [bound] : []), ...extraHosts])];
  else allowedHosts = extraHosts.length > 0 ? [...new Set([...(bound ? [bound] : []), ...extraHosts])] : null;
  return { allowedOrigins, allowedHosts };
}

/**
 * Whether `origin` is the server itself as the browser reached it: http or
 * https (a TLS proxy in front) with the `Host` the request names, port
 * included. Trusted only once that `Host` was checked against the names the
 * server answers to: unchecked, a page renamed by DNS rebinding would pass
 * as the server's own (its Origin and Host both name the attacker's name).
 */
export function isOwnOrigin(origin: string, hostHeader: string): boolean {
  for (const scheme of ['http', 'https']) {
    let own: string;
    try {
      own = new URL(`${scheme}://${hostHeader}`).origin;
    } catch {
      return false;
    }
    if (origin.toLowerCase() === own) return true;
  }
  return false;
}

/**
 * Refuses (403 `forbidden`) a request whose `Host` is not one the server
 * answers to, or whose `Origin` is present and not allowed; answers the
 * CORS preflight and headers only for allowed origins. The server's own
 * origin (isOwnOrigin) is always allowed where `Host` is checked: a
 * same-origin request needs no CORS answer. Clients that are not browsers
 * send no `Origin` and are unaffected.
 */
export function browserGuard(policy: BrowserPolicy): MiddlewareHandler {
  const anyOrigin = policy.allowedOrigins.includes('*');
  return async (c, next) => {
    const hostHeader = c.req.header('host');
    if (policy.allowedHosts && hostHeader !== undefined && !PROBES.has(c.req.path)) {
      const name = hostnameOf(hostHeader);
      if (!name || !policy.allowedHosts.includes(name)) {
        throw requestError('forbidden', `this server does not answer to the host name in the Host header (${JSON.stringify(hostHeader.slice(0, 200))}); it answers to ${policy.allowedHosts.join(', ')}. A browser page that renamed 127.0.0.1 (DNS rebinding) sends such a name; if you reach the server through a proxy or name of your own, allow it with ${SETTING_HOST}`, {
          header: 'Host',
          setting: SETTING_HOST,
        });
      }
    }
    const origin = c.req.header('origin');
    if (origin === undefined) return next();
    // The server's own pages (the web inspector) send their own origin on a POST: same-origin, not a foreign site.
    if (policy.allowedHosts && hostHeader !== undefined && isOwnOrigin(origin, hostHeader)) return next();
    if (!anyOrigin && !policy.allowedOrigins.includes(origin)) {
      // The server's own page (the inspector) opened where no Host name is checked: "another site" would send the
      // user after --allow-origin, which cannot help here (the name is what is unproven); --allow-host does.
      if (!policy.allowedHosts && hostHeader !== undefined && isOwnOrigin(origin, hostHeader)) {
        const name = hostnameOf(hostHeader) ?? hostHeader.slice(0, 200);
        throw requestError('forbidden', `requests from web pages at origin ${JSON.stringify(origin.slice(0, 200))} are refused: it names this server, but the server checks no Host names (it is bound to an address other than loopback without --allow-host, or with --allow-host *), so a page under a rebound name would send the same. To use the web inspector at this address, start the server with --allow-host ${name}`, {
          header: 'Origin',
          setting: SETTING_HOST,
        });
      }
      throw requestError('forbidden', `requests from web pages at origin ${JSON.stringify(origin.slice(0, 200))} are refused: a page on another site must not reach your memory through your browser. To let a page of yours call the server, allow its origin with ${SETTING_ORIGIN}`, {
        header: 'Origin',
        setting: SETTING_ORIGIN,
      });
    }
    // An allowed page gets the CORS answers it needs; Vary keeps a cache from serving them to another origin.
    if (c.req.method === 'OPTIONS' && c.req.header('access-control-request-method') !== undefined) {
      c.header('Access-Control-Allow-Origin', origin);
      c.header('Vary', 'Origin');
      c.header('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
      c.header('Access-Control-Allow-Headers', ALLOWED_REQUEST_HEADERS);
      c.header('Access-Control-Max-Age', '600');
      return c.body(null, 204);
    }
    await next();
    // Set after the handler (its errors included): the MCP transport answers with a Response of its own.
    c.header('Access-Control-Allow-Origin', origin);
    c.header('Vary', 'Origin');
  };
}
