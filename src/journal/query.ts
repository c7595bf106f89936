import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { DEFAULT_LIMITS, DEFAULT_QUERY_LIMIT } from './schema.ts';
import { charCount } from '../domain/unicode.ts';
import type { JournalSnapshot } from './snapshot.ts';

/**
 * Queries over a journal snapshot. Each returns whole clusters, in journal
 * (append) order, at most `limit` of them (default 20).
 *
 * - id: clusters mentioning the identifier as an argument of any atom, nested
 *   arguments included (see identifierArguments);
 * - cluster: the cluster with that id;
 * - type: clusters declaring something with that unary predicate (Commitment, DerivedBelief, ...);
 * - about: clusters with an (About <subject> <entity>) atom;
 * - status: clusters with a HasStatus/ClusterStatus of that value, or a
 *   StatusEvent with that StatusValue which no event Supersedes;
 * - role: clusters with an (EpistemicRole <subject> <role>) atom.
 */

export type JournalQueryKind = 'id' | 'cluster' | 'type' | 'about' | 'status' | 'role';
export const QUERY_KINDS: readonly JournalQueryKind[] = ['id', 'cluster', 'type', 'about', 'status', 'role'];

export interface JournalQuery {
  kind: JournalQueryKind;
  value: string;
  limit?: number;
}

export interface QueryOptions {
  maxQueryChars?: number;
}

export function queryClusters(snapshot: JournalSnapshot, query: JournalQuery, options: QueryOptions = {}): MemoryCluster[] {
  const limit = query.limit ?? DEFAULT_QUERY_LIMIT;
  if (!Number.isInteger(limit) || limit < 0) throw new MnemosError('validation_failed', `query limit must be a non-negative integer, got ${limit}`);
  if (!QUERY_KINDS.includes(query.kind)) throw new MnemosError('validation_failed', `unknown query kind ${JSON.stringify(query.kind)}; use one of ${QUERY_KINDS.join(', ')}`);
  const maxChars = options.maxQueryChars ?? DEFAULT_LIMITS.maxQueryChars;
  if (typeof query.value !== 'string' || query.value.length === 0) throw new MnemosError('validation_failed', 'query value must be a non-empty string');
  const chars = charCount(query.value);
  if (chars > maxChars) throw new MnemosError('limit_exceeded', `query string is ${chars} characters, over the limit of ${maxChars}`);
  return matchingOrdinals(snapshot, query.kind, query.value, limit).map((o) => snapshot.at(o));
}

/**
 * Sorted, distinct cluster positions matching one query, at most `limit`.
 * The index lists are filled in append order, so they are already sorted
 * and the scan can stop as soon as it has enough.
 */
export function matchingOrdinals(snapshot: JournalSnapshot, kind: JournalQueryKind, value: string, limit = Infinity): number[] {
  switch (kind) {
    case 'id':
      return (snapshot.mentions.get(value) ?? []).slice(0, limit);
    case 'cluster': {
      const o = snapshot.ordinalOf(value);
      return o === undefined || limit < 1 ? [] : [o];
    }
    case 'type':
      return (snapshot.types.get(value) ?? []).slice(0, limit);
    case 'about':
      return (snapshot.about.get(value) ?? []).slice(0, limit);
    case 'role':
      return (snapshot.roles.get(value) ?? []).slice(0, limit);
    case 'status': {
      const out: number[] = [];
      for (const m of snapshot.statuses.get(value) ?? []) {
        if (out.length >= limit) break;
        if (m.event !== undefined && snapshot.isSuperseded(m.event)) continue;
        if (out[out.length - 1] !== m.ordinal) out.push(m.ordinal);
      }
      return out;
    }
  }
}
