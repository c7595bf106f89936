/**
 * Which data a PostgreSQL URL points at: host, port, database and schema,
 * resolved the way pg and the adapter resolve them, and nothing else. Files
 * kept beside a server store (its journal, its safety-event logs) are named
 * by this, so a setting that does not change the data (`?sslmode=`,
 * `?application_name=`, `?options=-c statement_timeout=...`, a password given
 * as `?password=`, the port 5432 written out or not) does not move them.
 *
 * Pure: it reads the URL (and the environment pg falls back on), never the
 * server, and loads no driver, so SQLite users pay nothing for it.
 */

export interface PgDataIdentity {
  host: string;
  port: string;
  database: string;
  /** `?schema=`, or the first schema of a search_path in `?options=`; null when the URL names none (the database's default). */
  schema: string | null;
}

/** The process environment pg falls back on for what a URL leaves out. */
type Env = Readonly<Record<string, string | undefined>>;

/** Null when `location` does not parse as a URL. */
export function pgDataIdentity(location: string, env: Env = process.env): PgDataIdentity | null {
  let u: URL;
  try {
    u = new URL(location);
  } catch {
    return null;
  }
  const q = u.searchParams;
  // pg-connection-string: a ?host= or ?port= parameter wins over the URL's own; a missing one falls back on PGHOST/PGPORT, then pg's defaults.
  const hostname = safeDecode(u.hostname.replace(/^\[(.+)\]$/, '$1'));
  const rawHost = q.get('host') || hostname || env.PGHOST || 'localhost';
  // Host names are case-insensitive; a Unix socket folder is a path and is not.
  const host = rawHost.startsWith('/') ? rawHost : rawHost.toLowerCase();
  const port = q.get('port') || u.port || env.PGPORT || '5432';
  // pg's database is the URL's path alone; without one, PGDATABASE, then the user's name.
  const user = q.get('user') || safeDecode(u.username) || env.PGUSER || env.USER || env.USERNAME || '';
  const database = safeDecode(u.pathname.slice(1)) || env.PGDATABASE || user;
  const schema = q.get('schema') || searchPathSchema(q.get('options'), user);
  return { host, port, database, schema };
}

/**
 * The identity as one string, `postgres://host:port/database[?schema=s]`:
 * for the URLs most users write (`postgres://u:p@host:5432/db?schema=s`) the
 * same text the earlier, whole-URL identity gave, so their files keep their
 * names.
 */
export function pgIdentityText(id: PgDataIdentity): string {
  const host = id.host.includes(':') ? `[${id.host}]` : id.host.startsWith('/') ? encodeURIComponent(id.host) : id.host;
  return `postgres://${host}:${id.port}/${encodeURIComponent(id.database)}${id.schema ? `?schema=${encodeURIComponent(id.schema)}` : ''}`;
}

/**
 * The schema a `search_path` set in libpq start-up options puts first: where
 * the adapter, which then creates no schema of its own, finds and creates its
 * tables. Options are words split at white space (a backslash keeps the next
 * character), each `-c name=value`, `-cname=value` or `--name=value`; the last
 * setting wins, as in the server. `$user` is the connecting role's schema.
 */
export function searchPathSchema(options: string | null, user: string): string | null {
  if (!options) return null;
  const words = splitOptions(options);
  let path: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    let setting: string | undefined;
    if (w === '-c') setting = words[++i];
    else if (w.startsWith('--')) setting = w.slice(2);
    else if (w.startsWith('-c')) setting = w.slice(2);
    if (setting === undefined) continue;
    const eq = setting.indexOf('=');
    if (eq < 0) continue;
    // The server folds case and, for --name=value, dashes to underscores.
    const name = setting.slice(0, eq).toLowerCase().replace(/-/g, '_');
    if (name === 'search_path') path = setting.slice(eq + 1);
  }
  if (path === null) return null;
  const first = firstSchema(path);
  return first === '$user' ? user || null : first;
}

function splitOptions(s: string): string[] {
  const words: string[] = [];
  let cur = '';
  let has = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === '\\' && i + 1 < s.length) {
      cur += s[++i];
      has = true;
    } else if (/\s/.test(c)) {
      if (has) words.push(cur);
      cur = '';
      has = false;
    } else {
      cur += c;
      has = true;
    }
  }
  if (has) words.push(cur);
  return words;
}

/** The first name of a search_path list: a quoted name as written, an unquoted one folded to lower case. */
function firstSchema(list: string): string | null {
  const s = list.trimStart();
  if (s.startsWith('"')) {
    let out = '';
    for (let i = 1; i < s.length; i++) {
      if (s[i] === '"') {
        if (s[i + 1] === '"') {
          out += '"';
          i++;
          continue;
        }
        return out || null;
      }
      out += s[i];
    }
    return out || null; // an unclosed quote: the server refuses it, so any answer is as good
  }
  const name = s.split(',')[0]!.trim();
  return name ? name.toLowerCase() : null;
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
