import type pg from 'pg';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso, toIsoOrNull, toMs, toMsOrNull } from '../../domain/time.ts';
import type { EntityRecord, EvidenceSplit, GraphStore, GraphWrite, GraphWriteResult, RelationRecord, StaleQuery } from '../../ports/lifecycle.ts';
import { pgQuery, sql } from '../sql/placeholders.ts';
import { scopeSql, type SqlPart } from '../sql/scope-sql.ts';
import { distinctHits, RECOUNT_ENTITY_SQL, SPLICE_SUPERSEDED_SQL } from '../sql/graph-sql.ts';
import { inTransaction, rows, withRetry, type PgConnection } from './connection.ts';
import type { PgPlace } from './places.ts';

type Row = Record<string, unknown>;

/**
 * The knowledge graph in PostgreSQL, the same rules as SqliteGraph: entities
 * and relations carry the scope of their evidence and are read with the
 * memories' read rule; aliases are the distinct surface forms in the
 * evidence, so forgetting a memory takes its aliases with it.
 */
export class PgGraph implements GraphStore {
  constructor(private readonly conn: PgConnection) {}

  private async q<T>(parts: (string | SqlPart)[]): Promise<T[]> {
    const { text, values } = pgQuery(parts);
    return withRetry(this.conn.location, () => rows<T>(this.conn.pool, text, values));
  }

  private async withAliases(found: Row[]): Promise<EntityRecord[]> {
    if (found.length === 0) return [];
    const aliases = await this.q<{ entity_id: string; mention: string }>([
      'SELECT DISTINCT entity_id, mention FROM graph_evidence WHERE mention IS NOT NULL AND ',
      sql('entity_id = ANY(?::text[])', found.map((r) => r.id)),
      ' ORDER BY mention',
    ]);
    const by = new Map<string, string[]>();
    for (const a of aliases) by.set(a.entity_id, [...(by.get(a.entity_id) ?? []), a.mention]);
    return found.map((r) => rowToEntity(r, (by.get(r.id as string) ?? []).filter((m) => m !== r.name)));
  }

  async findEntities(p: Principal, norms: string[]): Promise<EntityRecord[]> {
    if (norms.length === 0) return [];
    const found = await this.q<Row>([
      'SELECT e.* FROM graph_entities e WHERE ',
      sql('(e.norm = ANY(?::text[]) OR e.id IN (SELECT entity_id FROM graph_evidence WHERE norm = ANY(?::text[])))', norms, norms),
      ' AND ',
      scopeSql(readScope(p), 'e'),
    ]);
    return this.withAliases(found);
  }

  async allEntities(p: Principal): Promise<EntityRecord[]> {
    return this.withAliases(await this.q<Row>(['SELECT e.* FROM graph_entities e WHERE ', scopeSql(readScope(p), 'e')]));
  }

  async entity(p: Principal, id: string): Promise<EntityRecord | null> {
    return (await this.withAliases(await this.q<Row>(['SELECT e.* FROM graph_entities e WHERE ', sql('e.id = ?', id), ' AND ', scopeSql(readScope(p), 'e')])))[0] ?? null;
  }

  async relationsOf(p: Principal, entityIds: string[]): Promise<RelationRecord[]> {
    if (entityIds.length === 0) return [];
    const found = await this.q<Row>([
      'SELECT r.* FROM graph_relations r WHERE ',
      sql('(r.subject_id = ANY(?::text[]) OR r.object_id = ANY(?::text[]))', entityIds, entityIds),
      ' AND ',
      scopeSql(readScope(p), 'r'),
      ' ORDER BY r.valid_from, r.id',
    ]);
    return found.map(rowToRelation);
  }

  async evidenceLineages(p: Principal, entityIds: string[], relationIds: string[] = []): Promise<string[]> {
    readScope(p);
    const found = await this.q<{ lineage_id: string }>(['SELECT DISTINCT lineage_id FROM graph_evidence WHERE ', sql('entity_id = ANY(?::text[]) OR relation_id = ANY(?::text[])', entityIds, relationIds)]);
    return found.map((r) => r.lineage_id);
  }

  async unindexed(p: Principal, limit: number): Promise<string[]> {
    const found = await this.q<{ id: string }>([
      "SELECT m.id FROM memories m WHERE m.superseded_at IS NULL AND m.lifecycle NOT IN ('expired', 'archived') AND ",
      scopeSql(readScope(p), 'm'),
      ' AND NOT EXISTS (SELECT 1 FROM graph_indexed g WHERE g.memory_id = m.id) ORDER BY m.recorded_at, m.id ',
      sql('LIMIT ?', limit),
    ]);
    return found.map((r) => r.id);
  }

  async staleIndexed(p: Principal, q: StaleQuery & { after: string | null; limit: number }): Promise<string[]> {
    const found = await this.q<{ id: string }>([
      'SELECT m.id FROM graph_indexed g JOIN memories m ON m.id = g.memory_id WHERE ',
      staleWhere(q),
      sql(' AND g.memory_id > ? AND ', q.after ?? ''),
      STALE_MEMORY_SQL,
      ' AND ',
      scopeSql(readScope(p), 'm'),
      sql(' ORDER BY g.memory_id LIMIT ?', q.limit),
    ]);
    return found.map((r) => r.id);
  }

  async staleIndexedCount(p: Principal, q: StaleQuery): Promise<number> {
    const found = await this.q<{ n: string }>([
      'SELECT count(*) AS n FROM graph_indexed g JOIN memories m ON m.id = g.memory_id WHERE ',
      staleWhere(q),
      ' AND ',
      STALE_MEMORY_SQL,
      ' AND ',
      scopeSql(readScope(p), 'm'),
    ]);
    return Number(found[0]?.n ?? 0);
  }

  async livePage(p: Principal, cursor: string | null, limit: number): Promise<{ ids: string[]; cursor: string | null }> {
    // By recorded time and id, as `unindexed`: the cursor is the last memory's pair (a memory forgotten since leaves no hole in it).
    const at = cursor === null ? null : (JSON.parse(cursor) as [string, string]);
    const found = await this.q<{ id: string; recorded_at: string }>([
      'SELECT m.id, m.recorded_at FROM memories m WHERE ',
      STALE_MEMORY_SQL,
      ' AND ',
      scopeSql(readScope(p), 'm'),
      at ? sql(' AND (m.recorded_at, m.id) > (?::bigint, ?)', at[0], at[1]) : '',
      sql(' ORDER BY m.recorded_at, m.id LIMIT ?', limit),
    ]);
    const last = found[found.length - 1];
    return { ids: found.map((r) => r.id), cursor: last ? JSON.stringify([String(last.recorded_at), last.id]) : cursor };
  }

  async liveCount(p: Principal): Promise<number> {
    const found = await this.q<{ n: string }>(['SELECT count(*) AS n FROM memories m WHERE ', STALE_MEMORY_SQL, ' AND ', scopeSql(readScope(p), 'm')]);
    return Number(found[0]?.n ?? 0);
  }

  async markStale(p: Principal): Promise<number> {
    const { text, values } = pgQuery(['UPDATE graph_indexed SET rules_version = 0 WHERE rules_version <> 0 AND memory_id IN (SELECT m.id FROM memories m WHERE ', scopeSql(readScope(p), 'm'), ')']);
    return inTransaction(this.conn, async (c) => (await c.query(text, values)).rowCount ?? 0);
  }

  async evidenceSplit(p: Principal, memories: { memoryId: string; lineageId: string }[]): Promise<EvidenceSplit[]> {
    readScope(p);
    if (memories.length === 0) return [];
    const found = await this.q<{ entity_id: string; here: string; elsewhere: string }>([
      'WITH here AS (SELECT entity_id, count(*) AS n FROM graph_evidence WHERE ',
      // By lineage first: graph_evidence is indexed by lineage, not by memory id.
      sql('lineage_id = ANY(?::text[]) AND memory_id = ANY(?::text[])', [...new Set(memories.map((m) => m.lineageId))], memories.map((m) => m.memoryId)),
      ' AND entity_id IS NOT NULL GROUP BY entity_id) SELECT h.entity_id, h.n AS here, (SELECT count(*) FROM graph_evidence g WHERE g.entity_id = h.entity_id) - h.n AS elsewhere FROM here h',
    ]);
    return found.map((r) => ({ entityId: r.entity_id, here: Number(r.here), elsewhere: Number(r.elsewhere) }));
  }

  async write(p: Principal, w: GraphWrite): Promise<GraphWriteResult> {
    readScope(p);
    const mine = (ns: string) => ns === p.namespace;
    return inTransaction(this.conn, async (c) => {
      // The replaced extraction's evidence goes before anything else, so the settle at the end sees only what is left.
      const replaced = await removeOwnEvidence(c, w.replaces ?? []);
      for (const e of w.upsertEntities.filter((x) => mine(x.namespace))) {
        await c.query(
          `INSERT INTO graph_entities (id, namespace, owner_id, agent_id, visibility, name, norm, type, first_seen, last_seen, mentions) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
           ON CONFLICT (id) DO UPDATE SET ${w.rebuild ? ENTITY_AS_GIVEN_SQL : ENTITY_MERGED_SQL}`,
          [e.id, e.namespace, e.ownerId, e.agentId, e.visibility, e.name, e.norm, e.type, toMs(e.firstSeen), toMs(e.lastSeen), e.mentions],
        );
      }
      for (const r of w.insertRelations.filter((x) => mine(x.namespace))) {
        await c.query(
          `INSERT INTO graph_relations (id, namespace, owner_id, agent_id, visibility, subject_id, predicate, object_id, valid_from, valid_to, recorded_at, superseded_by, confidence)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT DO NOTHING`,
          [r.id, r.namespace, r.ownerId, r.agentId, r.visibility, r.subjectId, r.predicate, r.objectId, toMs(r.validFrom), toMsOrNull(r.validTo), toMs(r.recordedAt), r.supersededBy, r.confidence],
        );
      }
      for (const x of w.closeRelations) await c.query('UPDATE graph_relations SET valid_to = $1, superseded_by = $2 WHERE id = $3 AND valid_to IS NULL', [toMs(x.validTo), x.supersededBy, x.id]);
      for (const e of w.evidence) {
        await c.query('INSERT INTO graph_evidence (entity_id, relation_id, lineage_id, memory_id, mention, norm) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING', [
          e.entityId, e.relationId, e.lineageId, e.memoryId, e.mention, e.norm,
        ]);
      }
      // A memory indexed again (re-index, or a second process) records the rules it was indexed under now.
      for (const i of w.indexed) {
        await c.query('INSERT INTO graph_indexed (memory_id, lineage_id, rules_version) VALUES ($1, $2, $3) ON CONFLICT (memory_id) DO UPDATE SET rules_version = EXCLUDED.rules_version', [
          i.memoryId, i.lineageId, w.rulesVersion,
        ]);
      }
      await retractOlderVersions(c, w.indexed);
      const settled = replaced.hit.length === 0 ? { entitiesRemoved: 0, relationsRemoved: 0 } : await settleEvidence(c, replaced.hit, w.rebuild !== true);
      return { mentionsRemoved: replaced.mentions, ...settled };
    });
  }
}

function rowToEntity(r: Row, aliases: string[]): EntityRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    norm: r.norm as string,
    type: r.type as string,
    aliases,
    firstSeen: toIso(Number(r.first_seen)),
    lastSeen: toIso(Number(r.last_seen)),
    mentions: r.mentions as number,
    namespace: r.namespace as string,
    ownerId: r.owner_id as string,
    agentId: (r.agent_id as string | null) ?? null,
    visibility: r.visibility as EntityRecord['visibility'],
  };
}

function rowToRelation(r: Row): RelationRecord {
  return {
    id: r.id as string,
    subjectId: r.subject_id as string,
    predicate: r.predicate as string,
    objectId: r.object_id as string,
    validFrom: toIso(Number(r.valid_from)),
    validTo: toIsoOrNull(r.valid_to as number | null),
    recordedAt: toIso(Number(r.recorded_at)),
    supersededBy: (r.superseded_by as string | null) ?? null,
    confidence: r.confidence as number,
    namespace: r.namespace as string,
    ownerId: r.owner_id as string,
    agentId: (r.agent_id as string | null) ?? null,
    visibility: r.visibility as RelationRecord['visibility'],
  };
}

async function count(c: pg.Pool | pg.PoolClient, text: string, values: unknown[]): Promise<number> {
  return Number((await c.query<{ n: number }>(text, values)).rows[0]?.n ?? 0);
}

type Hit = { entity_id: string | null; relation_id: string | null };
type Settled = { entitiesRemoved: number; relationsRemoved: number };

/** An entity written again takes the new name, type and count, and widens its sightings. */
const ENTITY_MERGED_SQL = `name = EXCLUDED.name, type = EXCLUDED.type, last_seen = greatest(graph_entities.last_seen, EXCLUDED.last_seen),
  first_seen = least(graph_entities.first_seen, EXCLUDED.first_seen), mentions = EXCLUDED.mentions`;
/** A rebuild's entity is what the rebuild found, whatever the stored row said (GraphWrite.rebuild). */
const ENTITY_AS_GIVEN_SQL = 'name = EXCLUDED.name, norm = EXCLUDED.norm, type = EXCLUDED.type, last_seen = EXCLUDED.last_seen, first_seen = EXCLUDED.first_seen, mentions = EXCLUDED.mentions';

/** The memory's own rows, the stale ones: current, not archived or expired (what `unindexed` would index). */
const STALE_MEMORY_SQL = "m.superseded_at IS NULL AND m.lifecycle NOT IN ('expired', 'archived')";

function staleWhere(q: StaleQuery): SqlPart | string {
  return q.all ? 'true' : sql('g.rules_version < ?', q.rulesVersion);
}

/** Deletes a relation and its evidence; 1 when it was there (two memories' hits can name one relation). */
async function dropRelation(c: pg.PoolClient, id: string): Promise<number> {
  await c.query('DELETE FROM graph_evidence WHERE relation_id = $1', [id]);
  await c.query(SPLICE_SUPERSEDED_SQL, [id]);
  return (await c.query('DELETE FROM graph_relations WHERE id = $1', [id])).rowCount ?? 0;
}

/**
 * After evidence went: relations and entities left with none go, surviving entities are recounted unless
 * `recount` is false (a rebuild's slice), as evidenceSettler for SQLite. Whether any evidence is left, not how
 * much: a name met thousands of times is settled at every slice of a re-index.
 */
async function settleEvidence(c: pg.PoolClient, hit: readonly Hit[], recount = true): Promise<Settled> {
  const out: Settled = { entitiesRemoved: 0, relationsRemoved: 0 };
  const { entities, relations } = distinctHits(hit);
  const none = (column: 'relation_id' | 'entity_id', id: string) => count(c, `SELECT count(*) AS n FROM (SELECT 1 FROM graph_evidence WHERE ${column} = $1 LIMIT 1) x`, [id]).then((n) => n === 0);
  for (const id of relations) if (await none('relation_id', id)) out.relationsRemoved += await dropRelation(c, id);
  for (const id of entities) {
    if (await none('entity_id', id)) {
      for (const r of await rows<{ id: string }>(c, 'SELECT id FROM graph_relations WHERE subject_id = $1 OR object_id = $1', [id])) out.relationsRemoved += await dropRelation(c, r.id);
      out.entitiesRemoved += (await c.query('DELETE FROM graph_entities WHERE id = $1', [id])).rowCount ?? 0;
    } else if (recount) {
      await c.query(RECOUNT_ENTITY_SQL, [id]);
    }
  }
  return out;
}

/**
 * A re-index takes these memories' own evidence out (see ownEvidenceRemover in the SQLite graph), in three
 * statements for the slice (a round trip each per memory doubled a re-index's time); the caller settles `hit`
 * once the new evidence is in. By lineage first: graph_evidence is indexed by lineage, not by memory id.
 */
async function removeOwnEvidence(c: pg.PoolClient, memories: NonNullable<GraphWrite['replaces']>): Promise<{ hit: Hit[]; mentions: number }> {
  if (memories.length === 0) return { hit: [], mentions: 0 };
  const where = 'lineage_id = ANY($1::text[]) AND memory_id = ANY($2::text[])';
  const params = [[...new Set(memories.map((m) => m.lineageId))], memories.map((m) => m.memoryId)];
  const hit = await rows<Hit>(c, `SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE ${where}`, params);
  const mentions = await count(c, `SELECT count(*) AS n FROM graph_evidence WHERE ${where} AND entity_id IS NOT NULL`, params);
  await c.query(`DELETE FROM graph_evidence WHERE ${where}`, params);
  return { hit, mentions };
}

/** A new version's extraction replaces the older versions' (see retractOlderVersions in the SQLite graph). */
async function retractOlderVersions(c: pg.PoolClient, indexed: GraphWrite['indexed']): Promise<void> {
  for (const i of indexed) {
    if (i.memoryId === i.lineageId) continue; // a first version: nothing older
    const hit = await rows<Hit>(c, 'SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE lineage_id = $1 AND memory_id <> $2', [i.lineageId, i.memoryId]);
    if (hit.length === 0) continue;
    await c.query('DELETE FROM graph_evidence WHERE lineage_id = $1 AND memory_id <> $2', [i.lineageId, i.memoryId]);
    await settleEvidence(c, hit);
  }
}

/**
 * Forget joins the graph here, as in graphPlace for SQLite: the memory's
 * evidence goes, then every relation and entity left without evidence, and
 * surviving entities take their name and count from the evidence that remains.
 */
export function graphPgPlace(): PgPlace {
  /** The lineage's evidence goes, then what it alone held up. */
  const dropEvidence = async (c: pg.PoolClient, lineageId: string) => {
    const hit = await rows<Hit>(c, 'SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE lineage_id = $1', [lineageId]);
    if (hit.length === 0) return;
    await c.query('DELETE FROM graph_evidence WHERE lineage_id = $1', [lineageId]);
    await settleEvidence(c, hit);
  };
  return {
    name: 'knowledge_graph',
    count: (c, _ids, lineageId) => count(c, 'SELECT (SELECT count(*) FROM graph_evidence WHERE lineage_id = $1) + (SELECT count(*) FROM graph_indexed WHERE lineage_id = $1) AS n', [lineageId]),
    remove: async (c, _ids, lineageId) => {
      await dropEvidence(c, lineageId);
      await c.query('DELETE FROM graph_indexed WHERE lineage_id = $1', [lineageId]);
    },
    // A version replaced under another scope takes its evidence with it now (see graphPlace in the SQLite graph).
    rescoped: dropEvidence,
  };
}
