import { dirname } from 'node:path';
import { MnemosError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { isRequestError } from './request-error.ts';

/** What stands in a message for the store's location, or a part of it, that the caller may not see. */
const HIDDEN = '[hidden]';

/**
 * An error as a caller of a surface (HTTP, MCP) receives it. Store errors
 * name the store's location (a PostgreSQL URL without its password, a file
 * path) and the driver's own words name the host, port, user and database:
 * a guest whose search failed while PostgreSQL was down learnt all of them,
 * though `status` hides the location from non-owners for that very reason.
 * Owners get the error unchanged; every other caller, and one not yet
 * authenticated (`role` undefined), gets those parts replaced and
 * `details.location` dropped. The code stays, so clients branch as before.
 * An error the surface wrote about the request (requestError) is passed on
 * whole: it holds the caller's own words, which may look like a part of
 * the location (the same host name) without having come from the store.
 */
export function errorForCaller(err: MnemosError, location: string | null, role: Principal['role'] | undefined): MnemosError {
  if (role === 'owner' || location === null || isRequestError(err)) return err;
  const parts = secretParts(location);
  const hide = (text: string): string => parts.reduce((t, p) => t.replace(p, HIDDEN), text.split(location).join(HIDDEN));
  const message = hide(err.message);
  let details: Record<string, unknown> | undefined;
  if (err.details) {
    details = {};
    for (const [k, v] of Object.entries(err.details)) if (k !== 'location') details[k] = typeof v === 'string' ? hide(v) : v;
  }
  if (message === err.message && details === undefined) return err;
  return new MnemosError(err.code, message, details && Object.keys(details).length > 0 ? details : undefined, { cause: err });
}

/** The handle's store location, or null when the handle is closed (its errors then come from no store). */
export function storeLocationOf(memory: { readonly store: { readonly location: string } }): string | null {
  try {
    return memory.store.location;
  } catch {
    return null;
  }
}

/**
 * Patterns for the pieces of a location that messages repeat on their own:
 * PostgreSQL's host (with and without the port, as the driver's ECONNREFUSED
 * and ENOTFOUND say it), and the role, database and schema where the server
 * quotes them ('password authentication failed for user "x"'); a SQLite
 * file's folder. Longest first, so a host:port goes before its host.
 */
function secretParts(location: string): RegExp[] {
  const words: string[] = [];
  const quoted: string[] = [];
  if (/^postgres(ql)?:\/\//.test(location)) {
    let u: URL | null = null;
    try {
      u = new URL(location);
    } catch {
      // An unparsable URL never opened a store; only the whole location is known.
    }
    if (u) {
      words.push(u.host, u.hostname.replace(/^\[|\]$/g, ''), ...u.searchParams.getAll('host'));
      quoted.push(decodeURIComponent(u.username), decodeURIComponent(u.pathname.slice(1)), u.searchParams.get('schema') ?? '');
    }
  } else if (location !== ':memory:') {
    const dir = dirname(location);
    if (dir.length > 1) words.push(dir);
  }
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const patterns = [
    // A host is hidden where it stands as a word of its own ("127.0.0.1:5432", "db.internal." ending a sentence), not inside a longer name.
    ...words.filter((w) => w.length > 0).map((w) => ({ len: w.length, re: new RegExp(`(?<![\\w.-])${escape(w)}(?![\\w-]|\\.\\w)`, 'g') })),
    ...quoted.filter((q) => q.length > 0).map((q) => ({ len: q.length + 2, re: new RegExp(`"${escape(q)}"`, 'g') })),
  ];
  return patterns.sort((a, b) => b.len - a.len).map((p) => p.re);
}
