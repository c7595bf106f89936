import type { ReadScope } from '../../domain/principal.ts';
import type { MemoryFilter } from '../../ports/store.ts';
import { LIVE_LIFECYCLES } from '../../domain/lifecycle.ts';
import { toMs } from '../../domain/time.ts';

/**
 * The read rule of domain/principal.ts, as SQL. This is the one place where a
 * SQL backend decides what a principal may see; every read query of the
 * SQLite and PostgreSQL adapters includes its output. Placeholders are `?`;
 * the PostgreSQL adapter renumbers them.
 */
export interface SqlPart {
  sql: string;
  params: unknown[];
}

export function scopeSql(s: ReadScope, alias = 'm'): SqlPart {
  if (s.all) return { sql: `${alias}.namespace = ?`, params: [s.namespace] };
  const visible = visibleSql(s, alias);
  return { sql: `${alias}.namespace = ? AND ${visible.sql}`, params: [s.namespace, ...visible.params] };
}

/** A non-owner's share of a namespace: what it wrote, public rows, and shared ones of its agent. */
function visibleSql(s: ReadScope, alias: string): SqlPart {
  return {
    sql: `(${alias}.owner_id = ? OR ${alias}.visibility = 'public' OR (${alias}.visibility = 'shared' AND (${alias}.agent_id IS NULL OR ${alias}.agent_id = ?)))`,
    params: [s.principalId, s.agentId ?? ''],
  };
}

/**
 * The read rule for versions of memories (alias `m` on the memories table).
 * A non-owner sees an earlier version only while the memory's current version
 * is visible to it as well: an owner who made a public memory owner-only (an
 * edit, so a new version) meant to hide it, and its earlier, public versions
 * still answered a guest by their ids, in its history and in searches "as
 * known at" a past time. A version the principal wrote itself stays visible,
 * as does every version of a memory with no current version.
 */
export function memoryScopeSql(s: ReadScope, alias = 'm'): SqlPart {
  const scope = scopeSql(s, alias);
  if (s.all) return scope;
  const current = visibleSql(s, 'cur');
  return {
    sql: `${scope.sql} AND (${alias}.superseded_at IS NULL OR ${alias}.owner_id = ? OR NOT EXISTS (SELECT 1 FROM memories cur WHERE cur.lineage_id = ${alias}.lineage_id AND cur.superseded_at IS NULL AND NOT ${current.sql}))`,
    params: [...scope.params, s.principalId, ...current.params],
  };
}

/** How a dialect tests "a JSON array column contains any of these strings". */
export type JsonArrayAny = (column: string, values: string[]) => SqlPart;

export function filterSql(f: MemoryFilter, jsonArrayAny: JsonArrayAny, alias = 'm', now = Date.now()): SqlPart {
  const parts: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    parts.push(sql);
    params.push(...p);
  };
  const inList = (col: string, values: readonly unknown[]) => add(`${alias}.${col} IN (${values.map(() => '?').join(', ')})`, ...values);

  const lifecycles = f.lifecycles && f.lifecycles.length > 0 ? f.lifecycles : LIVE_LIFECYCLES;
  inList('lifecycle', lifecycles);
  if (f.knownAt) {
    const t = toMs(f.knownAt);
    add(`${alias}.recorded_at <= ? AND (${alias}.superseded_at IS NULL OR ${alias}.superseded_at > ?)`, t, t);
  } else {
    add(`${alias}.superseded_at IS NULL`);
  }
  // TTL governance: a memory past its expiresAt is hidden at once, before consolidation expires it. The time to
  // live that counts is the memory's current one (services/memories.ts, served): an earlier version read "as known
  // at" keeps the expiresAt it was written with, and a memory renewed since vanished from its own past.
  if (!lifecycles.includes('expired')) {
    if (f.knownAt) {
      add(
        `(${alias}.expires_at IS NULL OR ${alias}.expires_at > ? OR (${alias}.superseded_at IS NOT NULL AND NOT EXISTS (SELECT 1 FROM memories cur WHERE cur.lineage_id = ${alias}.lineage_id AND cur.superseded_at IS NULL AND cur.expires_at IS NOT NULL AND cur.expires_at <= ?)))`,
        now,
        now,
      );
    } else add(`(${alias}.expires_at IS NULL OR ${alias}.expires_at > ?)`, now);
  }
  if (f.asOf) {
    const t = toMs(f.asOf);
    add(`${alias}.valid_from <= ? AND (${alias}.valid_to IS NULL OR ${alias}.valid_to > ?)`, t, t);
  }
  if (f.types && f.types.length > 0) inList('type', f.types);
  if (f.valid?.from) add(`${alias}.valid_from >= ?`, toMs(f.valid.from));
  if (f.valid?.to) add(`${alias}.valid_from < ?`, toMs(f.valid.to));
  if (f.recorded?.from) add(`${alias}.recorded_at >= ?`, toMs(f.recorded.from));
  if (f.recorded?.to) add(`${alias}.recorded_at < ?`, toMs(f.recorded.to));
  if (f.sessionId) add(`${alias}.session_id = ?`, f.sessionId);
  if (f.agentId) add(`${alias}.agent_id = ?`, f.agentId);
  if (f.minSalience !== undefined) add(`${alias}.salience >= ?`, f.minSalience);
  // Plain bounds let both backends seek the source-key index (bytewise order: SQLite's BINARY, PostgreSQL's
  // COLLATE "C" column); the exact tests below stay. Without them, listing one file's memories read every
  // memory of the namespace (0.6 s a file in a store of a million), and each page of a long file read the
  // file's keys again from the first.
  const lower = [f.sourceKeyPrefix, f.sourceKeyAfter?.sourceKey].filter((k) => k !== undefined).sort().pop();
  if (lower !== undefined) add(`${alias}.source_key >= ?`, lower);
  const upper = f.sourceKeyPrefix ? prefixUpperBound(f.sourceKeyPrefix) : null;
  if (upper !== null) add(`${alias}.source_key < ?`, upper);
  // substr() counts characters (code points) on both backends, where a JS length counts UTF-16 units: a path
  // with an emoji in it matched nothing.
  if (f.sourceKeyPrefix) add(`substr(${alias}.source_key, 1, ?) = ?`, [...f.sourceKeyPrefix].length, f.sourceKeyPrefix);
  if (f.sourceKeyAfter) add(`(${alias}.source_key, ${alias}.id) > (?, ?)`, f.sourceKeyAfter.sourceKey, f.sourceKeyAfter.id);
  if (f.listAfter) {
    const { order, at, id } = f.listAfter;
    const column = order.startsWith('recorded') ? 'recorded_at' : 'valid_from';
    add(`(${alias}.${column}, ${alias}.id) ${order.endsWith('_desc') ? '<' : '>'} (?, ?)`, at, id);
  }
  if (f.sourceKeys) {
    if (f.sourceKeys.keys.length === 0) add('1 = 0');
    else {
      if (f.sourceKeys.ownerId !== undefined) add(`${alias}.owner_id = ?`, f.sourceKeys.ownerId);
      add(`${alias}.source_key IN (${f.sourceKeys.keys.map(() => '?').join(', ')})`, ...f.sourceKeys.keys);
    }
  }
  if (f.tags && f.tags.length > 0) {
    const p = jsonArrayAny(`${alias}.tags`, f.tags);
    add(p.sql, ...p.params);
  }
  if (f.labels && f.labels.length > 0) {
    const p = jsonArrayAny(`${alias}.labels`, f.labels);
    add(p.sql, ...p.params);
  }
  return { sql: parts.join(' AND '), params };
}

/**
 * The least string above every string that starts with `prefix`, in code
 * point order (which is UTF-8 byte order): the prefix with its last
 * character raised by one. Null when that character has no successor in
 * the same form (a surrogate pair's half, U+D7FF, U+FFFF).
 */
export function prefixUpperBound(prefix: string): string | null {
  if (prefix.length === 0) return null;
  const last = prefix.charCodeAt(prefix.length - 1);
  if (last >= 0xd7ff && last <= 0xdfff) return null;
  if (last === 0xffff) return null;
  return prefix.slice(0, -1) + String.fromCharCode(last + 1);
}

export function andAll(...parts: SqlPart[]): SqlPart {
  const nonEmpty = parts.filter((p) => p.sql.length > 0);
  return { sql: nonEmpty.map((p) => `(${p.sql})`).join(' AND '), params: nonEmpty.flatMap((p) => p.params) };
}
