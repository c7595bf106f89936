import { LIVE_LIFECYCLES } from '../domain/lifecycle.ts';
import type { Memory } from '../domain/memory.ts';
import { parseIso } from '../domain/time.ts';
import type { MemoryFilter } from '../ports/store.ts';

/**
 * The store's filter (adapters/sql/scope-sql.ts filterSql), checked on a
 * memory in hand: for ranked lists that come from outside the store's
 * filtered queries (the knowledge graph's). Checking only type, tags and
 * valid range let `--as-of` and `--known-at` searches return memories
 * outside the asked time once the graph was indexed. Scope is not checked
 * here: the memory was read through the store's scoped reads.
 * `now` is the wall clock, as the store's reads hide expired memories by it.
 */
export function admitsFilter(f: MemoryFilter, m: Memory, now = Date.now()): boolean {
  const lifecycles = f.lifecycles?.length ? f.lifecycles : LIVE_LIFECYCLES;
  if (!lifecycles.includes(m.lifecycle)) return false;
  const recorded = Date.parse(m.recordedAt);
  const superseded = m.supersededAt === null ? null : Date.parse(m.supersededAt);
  if (f.knownAt) {
    const t = parseIso(f.knownAt);
    if (!(recorded <= t && (superseded === null || superseded > t))) return false;
  } else if (superseded !== null) return false;
  if (!lifecycles.includes('expired') && m.expiresAt !== null && Date.parse(m.expiresAt) <= now) return false;
  const validFrom = Date.parse(m.validFrom);
  if (f.asOf) {
    const t = parseIso(f.asOf);
    if (!(validFrom <= t && (m.validTo === null || Date.parse(m.validTo) > t))) return false;
  }
  if (f.types?.length && !f.types.includes(m.type)) return false;
  if (f.valid?.from && validFrom < parseIso(f.valid.from)) return false;
  if (f.valid?.to && validFrom >= parseIso(f.valid.to)) return false;
  if (f.recorded?.from && recorded < parseIso(f.recorded.from)) return false;
  if (f.recorded?.to && recorded >= parseIso(f.recorded.to)) return false;
  if (f.sessionId && m.sessionId !== f.sessionId) return false;
  if (f.agentId && m.agentId !== f.agentId) return false;
  if (f.minSalience !== undefined && m.salience < f.minSalience) return false;
  if (f.sourceKeyPrefix !== undefined && (m.sourceKey === null || !m.sourceKey.startsWith(f.sourceKeyPrefix))) return false;
  if (f.sourceKeys) {
    if (m.sourceKey === null || !f.sourceKeys.keys.includes(m.sourceKey)) return false;
    if (f.sourceKeys.ownerId !== undefined && m.ownerId !== f.sourceKeys.ownerId) return false;
  }
  if (f.tags?.length && !f.tags.some((t) => m.tags.includes(t))) return false;
  if (f.labels?.length && !f.labels.some((t) => m.labels.includes(t))) return false;
  return true;
}
