import type pg from 'pg';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toMs, toMsOrNull } from '../../domain/time.ts';
import type { AuditDraft } from '../../domain/audit.ts';
import type { RestoreRecord, SnapshotReads, WriteResult } from '../../ports/store.ts';
import { rowToFact, rowToPending } from '../sql/rows.ts';
import { numbered } from '../sql/placeholders.ts';
import {
  activeKeyTaken,
  assertMayRestore,
  factsPageSql,
  heldElsewhere,
  pendingPageSql,
  restoreAudit,
  restoreId,
  tombstoneIdsSql,
  tombstoneOverHeld,
  tombstonesOf,
  tombstonesPageSql,
  tombstoneSourcesSql,
} from '../sql/restore-rows.ts';
import { rows } from './connection.ts';

type Row = Record<string, unknown>;
/** Ids ordered bytewise, as SQLite orders them: both backends write one file. */
const C = ' COLLATE "C"';

/** The ledger and tombstone pages of an export, read on the snapshot's client inside its repeatable-read transaction. */
export function pgSnapshotReads(c: pg.PoolClient): SnapshotReads {
  // readScope validates the principal; only the owner's export carries these (a guest's holds memories alone).
  const ownerOnly = (p: Principal): boolean => {
    readScope(p);
    return p.role === 'owner';
  };
  const q = (text: string, values: unknown[]) => rows<Row>(c, numbered(text), values);
  return {
    async ledgerFacts(p, afterId, limit) {
      return ownerOnly(p) ? (await q(factsPageSql(C), [p.namespace, afterId ?? '', limit])).map(rowToFact) : [];
    },
    async ledgerPending(p, afterId, limit) {
      return ownerOnly(p) ? (await q(pendingPageSql(C), [p.namespace, afterId ?? '', limit])).map(rowToPending) : [];
    },
    async tombstones(p, afterLineageId, limit) {
      if (!ownerOnly(p)) return [];
      const found = await q(tombstonesPageSql(C), [p.namespace, afterLineageId ?? '', limit]);
      if (found.length === 0) return [];
      const lineages = found.map((r) => r.lineage_id);
      const ids = await q(tombstoneIdsSql(lineages.length), lineages);
      const sources = await q(tombstoneSourcesSql(lineages.length), [p.namespace, ...lineages]);
      return tombstonesOf(found, ids, sources);
    },
  };
}

/**
 * Restores one export record on the writer's transaction client
 * (postgres/write.ts), the same rules as restoreSqlite; `audit` appends to
 * the batch's chain.
 */
export async function restorePg(c: pg.PoolClient, p: Principal, r: RestoreRecord, audit: (d: AuditDraft) => Promise<void>): Promise<WriteResult> {
  assertMayRestore(p, r);
  const id = restoreId(r);
  // Held here already: left as this store has it (it may have moved on since the export), unless another namespace holds it.
  const keep = (held: Row): WriteResult => {
    if (held.namespace !== p.namespace) throw heldElsewhere(r);
    return { kind: 'restore', what: r.what, id, status: 'unchanged' };
  };
  if (r.what === 'ledger_fact') {
    const [held] = await rows<Row>(c, 'SELECT namespace FROM ledger_facts WHERE id = $1', [id]);
    if (held) return keep(held);
    const f = r.fact;
    try {
      await c.query(
        'INSERT INTO ledger_facts (id, namespace, owner_id, agent_id, visibility, key, value, statement, category, confidence, mentions, source, status, valid_from, valid_until, superseded_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)',
        [f.id, p.namespace, f.ownerId, f.agentId, f.visibility, f.key, f.value, f.statement, f.category, f.confidence, f.mentions, f.source, f.status, toMs(f.validFrom), toMsOrNull(f.validUntil), f.supersededBy, toMs(f.updatedAt)],
      );
    } catch (err) {
      if ((err as { code?: string }).code === '23505') throw activeKeyTaken(f.key, err);
      throw err;
    }
  } else if (r.what === 'ledger_pending') {
    const [held] = await rows<Row>(c, 'SELECT namespace FROM ledger_pending WHERE id = $1', [id]);
    if (held) return keep(held);
    const pc = r.pending;
    await c.query('INSERT INTO ledger_pending (id, namespace, key, target_id, proposed, proposer, created_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
      pc.id, p.namespace, pc.key, pc.targetId, JSON.stringify(pc.proposed), pc.proposer, toMs(pc.createdAt), pc.status,
    ]);
  } else {
    const [held] = await rows<Row>(c, 'SELECT namespace FROM tombstones WHERE lineage_id = $1', [id]);
    if (held) return keep(held);
    const t = r.tombstone;
    if (t.forgottenIds.length > 0) {
      const [stored] = await rows<{ id: string }>(c, 'SELECT id FROM memories WHERE id = ANY($1::text[]) LIMIT 1', [t.forgottenIds]);
      if (stored) throw tombstoneOverHeld(t, stored.id);
      if ((await rows(c, 'SELECT 1 FROM tombstone_ids WHERE id = ANY($1::text[]) LIMIT 1', [t.forgottenIds])).length > 0) throw heldElsewhere(r);
    }
    await c.query('INSERT INTO tombstones (lineage_id, namespace, owner_id, agent_id, visibility, version_ids, content_hash, forgotten_at, actor, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)', [
      t.lineageId, p.namespace, t.ownerId, t.agentId, t.visibility, JSON.stringify(t.versionIds), t.contentHash, t.forgottenAt, t.actor, t.reason,
    ]);
    if (t.forgottenIds.length > 0) await c.query('INSERT INTO tombstone_ids (id, lineage_id) SELECT unnest($1::text[]), $2', [t.forgottenIds, t.lineageId]);
    if (t.sources.length > 0) {
      await c.query(
        'INSERT INTO tombstone_sources (namespace, owner_id, source_digest, content_hash, lineage_id) SELECT $1, o, d, h, $2 FROM unnest($3::text[], $4::text[], $5::text[]) AS s(o, d, h) ON CONFLICT DO NOTHING',
        [p.namespace, t.lineageId, t.sources.map((s) => s.ownerId), t.sources.map((s) => s.sourceDigest), t.sources.map((s) => s.contentHash)],
      );
    }
  }
  await audit(restoreAudit(r));
  return { kind: 'restore', what: r.what, id, status: 'created' };
}
