import type Database from 'better-sqlite3';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso, toIsoOrNull, toMs, toMsOrNull } from '../../domain/time.ts';
import type { EntityRecord, EvidenceSplit, GraphStore, GraphWrite, GraphWriteResult, RelationRecord, StaleQuery } from '../../ports/lifecycle.ts';
import { scopeSql } from '../sql/scope-sql.ts';
import { distinctHits, RECOUNT_ENTITY_SQL, SPLICE_SUPERSEDED_SQL } from '../sql/graph-sql.ts';
import { writeWithRetry } from './connection.ts';
import type { DerivedPlace } from './places.ts';
import type { StatementCache } from './statements.ts';

/**
 * The knowledge graph in SQLite. Entities and relations carry the scope of
 * the memories that evidence them, so reads use the memories' read rule.
 * Aliases are not stored: they are the distinct surface forms in the
 * evidence, so forgetting a memory takes its aliases with it.
 */
type Row = Record<string, unknown>;

export class SqliteGraph implements GraphStore {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
  ) {}

  /** Cached statements: every hybrid search looks its query's names up here, and preparing cost more than the look-up. */
  private entities(where: string, params: unknown[]): EntityRecord[] {
    return this.statements.readTogether(() => {
      const rows = this.statements.get(`SELECT e.* FROM graph_entities e WHERE ${where}`).all(...params) as Row[];
      if (rows.length === 0) return [];
      const aliasStmt = this.statements.get('SELECT DISTINCT mention FROM graph_evidence WHERE entity_id = ? AND mention IS NOT NULL ORDER BY mention');
      return rows.map((r) => {
        const mentions = (aliasStmt.all(r.id) as { mention: string }[]).map((a) => a.mention).filter((m) => m !== r.name);
        return rowToEntity(r, mentions);
      });
    });
  }

  async findEntities(p: Principal, norms: string[]): Promise<EntityRecord[]> {
    if (norms.length === 0) return [];
    const s = scopeSql(readScope(p), 'e');
    const list = norms.map(() => '?').join(', ');
    return this.entities(`(e.norm IN (${list}) OR e.id IN (SELECT entity_id FROM graph_evidence WHERE norm IN (${list}))) AND ${s.sql}`, [...norms, ...norms, ...s.params]);
  }

  async allEntities(p: Principal): Promise<EntityRecord[]> {
    const s = scopeSql(readScope(p), 'e');
    const rows = this.db.prepare(`SELECT e.* FROM graph_entities e WHERE ${s.sql}`).all(...s.params) as Row[];
    // Alias norms in one pass: the resolver needs them for every entity.
    const aliases = new Map<string, string[]>();
    for (const a of this.db.prepare('SELECT DISTINCT entity_id, mention FROM graph_evidence WHERE entity_id IS NOT NULL AND mention IS NOT NULL').iterate() as Iterable<{ entity_id: string; mention: string }>) {
      const list = aliases.get(a.entity_id);
      if (list) list.push(a.mention);
      else aliases.set(a.entity_id, [a.mention]);
    }
    return rows.map((r) => rowToEntity(r, (aliases.get(r.id as string) ?? []).filter((m) => m !== r.name)));
  }

  async entity(p: Principal, id: string): Promise<EntityRecord | null> {
    const s = scopeSql(readScope(p), 'e');
    return this.entities(`e.id = ? AND ${s.sql}`, [id, ...s.params])[0] ?? null;
  }

  async relationsOf(p: Principal, entityIds: string[]): Promise<RelationRecord[]> {
    if (entityIds.length === 0) return [];
    const s = scopeSql(readScope(p), 'r');
    const list = entityIds.map(() => '?').join(', ');
    const rows = this.db
      .prepare(`SELECT r.* FROM graph_relations r WHERE (r.subject_id IN (${list}) OR r.object_id IN (${list})) AND ${s.sql} ORDER BY r.valid_from, r.id`)
      .all(...entityIds, ...entityIds, ...s.params) as Row[];
    return rows.map(rowToRelation);
  }

  async evidenceLineages(p: Principal, entityIds: string[], relationIds: string[] = []): Promise<string[]> {
    readScope(p);
    const out = new Set<string>();
    const byEntity = this.db.prepare('SELECT DISTINCT lineage_id FROM graph_evidence WHERE entity_id = ?');
    const byRelation = this.db.prepare('SELECT DISTINCT lineage_id FROM graph_evidence WHERE relation_id = ?');
    this.statements.readTogether(() => {
      for (const id of entityIds) for (const r of byEntity.all(id) as { lineage_id: string }[]) out.add(r.lineage_id);
      for (const id of relationIds) for (const r of byRelation.all(id) as { lineage_id: string }[]) out.add(r.lineage_id);
    });
    return [...out];
  }

  async unindexed(p: Principal, limit: number): Promise<string[]> {
    const s = scopeSql(readScope(p), 'm');
    const rows = this.db
      .prepare(
        `SELECT m.id FROM memories m WHERE m.superseded_at IS NULL AND m.lifecycle NOT IN ('expired', 'archived') AND ${s.sql} AND NOT EXISTS (SELECT 1 FROM graph_indexed g WHERE g.memory_id = m.id) ORDER BY m.rowid LIMIT ?`,
      )
      .all(...s.params, limit) as { id: string }[];
    return rows.map((r) => r.id);
  }

  async staleIndexed(p: Principal, q: StaleQuery & { after: string | null; limit: number }): Promise<string[]> {
    const s = scopeSql(readScope(p), 'm');
    const { sql, params } = staleWhere(q);
    return this.db
      .prepare(`SELECT m.id FROM graph_indexed g JOIN memories m ON m.id = g.memory_id WHERE ${sql} AND g.memory_id > ? AND ${STALE_MEMORY_SQL} AND ${s.sql} ORDER BY g.memory_id LIMIT ?`)
      .pluck()
      .all(...params, q.after ?? '', ...s.params, q.limit) as string[];
  }

  async staleIndexedCount(p: Principal, q: StaleQuery): Promise<number> {
    const s = scopeSql(readScope(p), 'm');
    const { sql, params } = staleWhere(q);
    return this.db.prepare(`SELECT count(*) FROM graph_indexed g JOIN memories m ON m.id = g.memory_id WHERE ${sql} AND ${STALE_MEMORY_SQL} AND ${s.sql}`).pluck().get(...params, ...s.params) as number;
  }

  async livePage(p: Principal, cursor: string | null, limit: number): Promise<{ ids: string[]; cursor: string | null }> {
    const s = scopeSql(readScope(p), 'm');
    // By rowid, as `unindexed`: the cursor is the last rowid (a memory forgotten since leaves no hole in it).
    const rows = this.db
      .prepare(`SELECT m.id, m.rowid AS r FROM memories m WHERE ${STALE_MEMORY_SQL} AND ${s.sql} AND m.rowid > ? ORDER BY m.rowid LIMIT ?`)
      .all(...s.params, Number(cursor ?? 0), limit) as { id: string; r: number }[];
    return { ids: rows.map((x) => x.id), cursor: rows.length === 0 ? cursor : String(rows[rows.length - 1]!.r) };
  }

  async liveCount(p: Principal): Promise<number> {
    const s = scopeSql(readScope(p), 'm');
    return this.db.prepare(`SELECT count(*) FROM memories m WHERE ${STALE_MEMORY_SQL} AND ${s.sql}`).pluck().get(...s.params) as number;
  }

  async markStale(p: Principal): Promise<number> {
    const s = scopeSql(readScope(p), 'm');
    const mark = this.db.prepare(`UPDATE graph_indexed SET rules_version = 0 WHERE rules_version <> 0 AND memory_id IN (SELECT m.id FROM memories m WHERE ${s.sql})`);
    return writeWithRetry(this.db, () => this.db.transaction(() => mark.run(...s.params).changes).immediate());
  }

  async evidenceSplit(p: Principal, memories: { memoryId: string; lineageId: string }[]): Promise<EvidenceSplit[]> {
    readScope(p);
    if (memories.length === 0) return [];
    const lineages = [...new Set(memories.map((m) => m.lineageId))];
    const ids = memories.map((m) => m.memoryId);
    // By lineage first: graph_evidence is indexed by lineage, not by memory id.
    const rows = this.db
      .prepare(
        `WITH here AS (SELECT entity_id, count(*) AS n FROM graph_evidence WHERE lineage_id IN (${lineages.map(() => '?').join(', ')}) AND memory_id IN (${ids.map(() => '?').join(', ')}) AND entity_id IS NOT NULL GROUP BY entity_id)
         SELECT h.entity_id AS entityId, h.n AS here, (SELECT count(*) FROM graph_evidence g WHERE g.entity_id = h.entity_id) - h.n AS elsewhere FROM here h`,
      )
      .all(...lineages, ...ids) as EvidenceSplit[];
    return rows;
  }

  async indexedIds(p: Principal): Promise<Set<string>> {
    const s = scopeSql(readScope(p), 'm');
    const rows = this.db.prepare(`SELECT g.memory_id AS id FROM graph_indexed g JOIN memories m ON m.id = g.memory_id WHERE ${s.sql}`).pluck().all(...s.params) as string[];
    return new Set(rows);
  }

  async write(p: Principal, w: GraphWrite): Promise<GraphWriteResult> {
    readScope(p);
    const upsert = this.db.prepare(
      `INSERT INTO graph_entities (id, namespace, owner_id, agent_id, visibility, name, norm, type, first_seen, last_seen, mentions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET ${w.rebuild ? ENTITY_AS_GIVEN_SQL : ENTITY_MERGED_SQL}`,
    );
    const rel = this.db.prepare(
      'INSERT OR IGNORE INTO graph_relations (id, namespace, owner_id, agent_id, visibility, subject_id, predicate, object_id, valid_from, valid_to, recorded_at, superseded_by, confidence) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const close = this.db.prepare('UPDATE graph_relations SET valid_to = ?, superseded_by = ? WHERE id = ? AND valid_to IS NULL');
    const ev = this.db.prepare('INSERT OR IGNORE INTO graph_evidence (entity_id, relation_id, lineage_id, memory_id, mention, norm) VALUES (?, ?, ?, ?, ?, ?)');
    // A memory indexed again (re-index, or a second process) records the rules it was indexed under now.
    const idx = this.db.prepare('INSERT INTO graph_indexed (memory_id, lineage_id, rules_version) VALUES (?, ?, ?) ON CONFLICT(memory_id) DO UPDATE SET rules_version = excluded.rules_version');
    const retract = olderVersionsRetractor(this.db);
    const replace = ownEvidenceRemover(this.db);
    const namespaceOk = (ns: string) => ns === p.namespace;
    const run = this.db.transaction((): GraphWriteResult => {
      // The replaced extraction's evidence goes before anything else, so the settle at the end sees only what is left.
      const replaced = replace(w.replaces ?? []);
      for (const e of w.upsertEntities) {
        if (!namespaceOk(e.namespace)) continue;
        upsert.run(e.id, e.namespace, e.ownerId, e.agentId, e.visibility, e.name, e.norm, e.type, toMs(e.firstSeen), toMs(e.lastSeen), e.mentions);
      }
      for (const r of w.insertRelations) {
        if (!namespaceOk(r.namespace)) continue;
        rel.run(r.id, r.namespace, r.ownerId, r.agentId, r.visibility, r.subjectId, r.predicate, r.objectId, toMs(r.validFrom), toMsOrNull(r.validTo), toMs(r.recordedAt), r.supersededBy, r.confidence);
      }
      for (const c of w.closeRelations) close.run(toMs(c.validTo), c.supersededBy, c.id);
      for (const e of w.evidence) ev.run(e.entityId, e.relationId, e.lineageId, e.memoryId, e.mention, e.norm);
      for (const i of w.indexed) idx.run(i.memoryId, i.lineageId, w.rulesVersion);
      retract(w.indexed);
      return { mentionsRemoved: replaced.mentions, ...replaced.settle(w.rebuild !== true) };
    });
    return writeWithRetry(this.db, () => run.immediate());
  }
}

function rowToEntity(r: Row, aliases: string[]): EntityRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    norm: r.norm as string,
    type: r.type as string,
    aliases,
    firstSeen: toIso(r.first_seen as number),
    lastSeen: toIso(r.last_seen as number),
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
    validFrom: toIso(r.valid_from as number),
    validTo: toIsoOrNull(r.valid_to as number | null),
    recordedAt: toIso(r.recorded_at as number),
    supersededBy: (r.superseded_by as string | null) ?? null,
    confidence: r.confidence as number,
    namespace: r.namespace as string,
    ownerId: r.owner_id as string,
    agentId: (r.agent_id as string | null) ?? null,
    visibility: r.visibility as RelationRecord['visibility'],
  };
}

type Hit = { entity_id: string | null; relation_id: string | null };

/** An entity written again takes the new name, type and count, and widens its sightings. */
const ENTITY_MERGED_SQL = 'name = excluded.name, type = excluded.type, last_seen = max(last_seen, excluded.last_seen), first_seen = min(first_seen, excluded.first_seen), mentions = excluded.mentions';
/** A rebuild's entity is what the rebuild found, whatever the stored row said (GraphWrite.rebuild). */
const ENTITY_AS_GIVEN_SQL = 'name = excluded.name, norm = excluded.norm, type = excluded.type, last_seen = excluded.last_seen, first_seen = excluded.first_seen, mentions = excluded.mentions';

type Settled = { entitiesRemoved: number; relationsRemoved: number };

/** The memory's own rows, the stale ones: current, not archived or expired (what `unindexed` would index). */
const STALE_MEMORY_SQL = "m.superseded_at IS NULL AND m.lifecycle NOT IN ('expired', 'archived')";

function staleWhere(q: StaleQuery): { sql: string; params: unknown[] } {
  return q.all ? { sql: '1 = 1', params: [] } : { sql: 'g.rules_version < ?', params: [q.rulesVersion] };
}

/**
 * After evidence went: every relation and entity left without evidence goes
 * (a relation leaving the chain of closures it was in), and surviving
 * entities take their name, count and sightings from the evidence that
 * remains, unless `recount` is false (a rebuild's slice: GraphWrite.rebuild).
 * Shared by forget and by a new version's extraction.
 */
function evidenceSettler(db: Database.Database): (hit: readonly Hit[], recount?: boolean) => Settled {
  // Whether any is left, not how many: a name met thousands of times is settled at every slice of a re-index.
  const relLeft = db.prepare('SELECT EXISTS (SELECT 1 FROM graph_evidence WHERE relation_id = ?) AS n');
  const entLeft = db.prepare('SELECT EXISTS (SELECT 1 FROM graph_evidence WHERE entity_id = ?) AS n');
  const delRelation = db.prepare('DELETE FROM graph_relations WHERE id = ?');
  const relationsOfEntity = db.prepare('SELECT id FROM graph_relations WHERE subject_id = ? OR object_id = ?');
  const delEntity = db.prepare('DELETE FROM graph_entities WHERE id = ?');
  const unlinkSuperseded = db.prepare(SPLICE_SUPERSEDED_SQL.replaceAll('$1', '@id'));
  const rename = db.prepare(RECOUNT_ENTITY_SQL.replaceAll('$1', '@id'));
  const out: Settled = { entitiesRemoved: 0, relationsRemoved: 0 };
  const dropRelation = (id: string) => {
    db.prepare('DELETE FROM graph_evidence WHERE relation_id = ?').run(id);
    unlinkSuperseded.run({ id });
    // Counted by what was deleted: two memories' hits can name one relation or entity.
    out.relationsRemoved += delRelation.run(id).changes;
  };
  return (hit, recount = true) => {
    out.entitiesRemoved = 0;
    out.relationsRemoved = 0;
    // Each once: a re-index slice's memories name the same few entities hundreds of times, and a recount reads all their evidence.
    const { entities, relations } = distinctHits(hit);
    for (const id of relations) if ((relLeft.get(id) as { n: number }).n === 0) dropRelation(id);
    for (const id of entities) {
      if ((entLeft.get(id) as { n: number }).n === 0) {
        for (const r of relationsOfEntity.all(id, id) as { id: string }[]) dropRelation(r.id);
        out.entitiesRemoved += delEntity.run(id).changes;
      } else if (recount) rename.run({ id });
    }
    return { ...out };
  };
}

/**
 * A re-index takes a memory's own evidence out (its lineage's other versions are the retractor's): the rows
 * go at once, and `settle`, called once the new evidence is in, removes what nothing holds up any more.
 */
function ownEvidenceRemover(db: Database.Database): (memories: NonNullable<GraphWrite['replaces']>) => { mentions: number; settle: (recount: boolean) => Settled } {
  const touched = db.prepare('SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE lineage_id = ? AND memory_id = ?');
  const mentions = db.prepare('SELECT count(*) FROM graph_evidence WHERE lineage_id = ? AND memory_id = ? AND entity_id IS NOT NULL').pluck();
  const del = db.prepare('DELETE FROM graph_evidence WHERE lineage_id = ? AND memory_id = ?');
  const settle = evidenceSettler(db);
  return (memories) => {
    const hit: Hit[] = [];
    let n = 0;
    for (const m of memories) {
      hit.push(...(touched.all(m.lineageId, m.memoryId) as Hit[]));
      n += mentions.get(m.lineageId, m.memoryId) as number;
      del.run(m.lineageId, m.memoryId);
    }
    return { mentions: n, settle: (recount) => (hit.length === 0 ? { entitiesRemoved: 0, relationsRemoved: 0 } : settle(hit, recount)) };
  };
}

/**
 * A new version's extraction replaces the older versions': their evidence
 * goes, with what it alone held up. A corrected "Marco Rossi works at
 * Globex" kept Marco's job at Globex, evidenced by the new text, and search
 * returned the new text for Marco.
 */
function olderVersionsRetractor(db: Database.Database): (indexed: GraphWrite['indexed']) => void {
  const touched = db.prepare('SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE lineage_id = ? AND memory_id <> ?');
  const del = db.prepare('DELETE FROM graph_evidence WHERE lineage_id = ? AND memory_id <> ?');
  const settle = evidenceSettler(db);
  return (indexed) => {
    for (const i of indexed) {
      if (i.memoryId === i.lineageId) continue; // a first version: nothing older
      const hit = touched.all(i.lineageId, i.memoryId) as Hit[];
      if (hit.length === 0) continue;
      del.run(i.lineageId, i.memoryId);
      settle(hit);
    }
  };
}

/** Forget joins the graph here: the memory's evidence goes, then what it alone held up (evidenceSettler). */
export function graphPlace(db: Database.Database): DerivedPlace {
  const count = db.prepare('SELECT (SELECT count(*) FROM graph_evidence WHERE lineage_id = ?) + (SELECT count(*) FROM graph_indexed WHERE lineage_id = ?) AS n');
  const touched = db.prepare('SELECT DISTINCT entity_id, relation_id FROM graph_evidence WHERE lineage_id = ?');
  const delEvidence = db.prepare('DELETE FROM graph_evidence WHERE lineage_id = ?');
  const delIndexed = db.prepare('DELETE FROM graph_indexed WHERE lineage_id = ?');
  const settle = evidenceSettler(db);
  /** The lineage's evidence goes, then what it alone held up. */
  const dropEvidence = (lineageId: string) => {
    const hit = touched.all(lineageId) as Hit[];
    if (hit.length === 0) return;
    delEvidence.run(lineageId);
    settle(hit);
  };
  return {
    name: 'knowledge_graph',
    count: (_r, _ids, lineageId) => (count.get(lineageId, lineageId) as { n: number }).n,
    // Entities and relations carry the scope they were read in: a memory made owner-only kept showing a guest the
    // people and relations its public text had named until the next consolidation indexed the new version. The
    // new version is not indexed yet, so all the lineage's evidence is the older versions'.
    rescoped: dropEvidence,
    remove: (_r, _ids, lineageId) => {
      dropEvidence(lineageId);
      delIndexed.run(lineageId);
    },
  };
}
