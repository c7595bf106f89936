import { rowToFact, rowToPending } from '../sql/rows.ts';
import type pg from 'pg';
import { actorOf, type AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { sha256Hex } from '../../domain/hash.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toMs, toMsOrNull } from '../../domain/time.ts';
import type { LedgerFact } from '../../lifecycle/ledger-rules.ts';
import type { LedgerPending, LedgerStore, LedgerWrite } from '../../ports/lifecycle.ts';
import { pgQuery, sql } from '../sql/placeholders.ts';
import { scopeSql, type SqlPart } from '../sql/scope-sql.ts';
import { inTransaction, rows, withRetry, type PgConnection } from './connection.ts';

type Row = Record<string, unknown>;
/** Patchable fields and their columns; nothing else can reach the SET clause. */
const COLUMN: Record<string, string> = { confidence: 'confidence', mentions: 'mentions', status: 'status', validUntil: 'valid_until', supersededBy: 'superseded_by', updatedAt: 'updated_at' };

/** The canonical ledger in PostgreSQL, the same rules as SqliteLedger; every change is audited in the memories' chain. */
export class PgLedger implements LedgerStore {
  constructor(
    private readonly conn: PgConnection,
    private readonly appendAudit: (c: pg.PoolClient, p: Principal, draft: AuditDraft) => Promise<void>,
  ) {}

  private async q<T>(parts: (string | SqlPart)[]): Promise<T[]> {
    const { text, values } = pgQuery(parts);
    return withRetry(this.conn.location, () => rows<T>(this.conn.pool, text, values));
  }

  async list(p: Principal, opts: { status?: string[]; key?: string; limit?: number }): Promise<LedgerFact[]> {
    const status = opts.status && opts.status.length ? opts.status : ['active'];
    const found = await this.q<Row>([
      'SELECT f.* FROM ledger_facts f WHERE ',
      sql('f.status = ANY(?::text[])', status),
      opts.key ? sql(' AND f.key = ?', opts.key) : '',
      ' AND ',
      scopeSql(readScope(p), 'f'),
      ' ORDER BY f.updated_at DESC ',
      sql('LIMIT ?', opts.limit ?? 1000),
    ]);
    return found.map(rowToFact);
  }

  async version(): Promise<number> {
    const [row] = await this.q<{ version: string }>(['SELECT version FROM ledger_version']);
    return Number(row!.version);
  }

  async get(p: Principal, id: string): Promise<LedgerFact | null> {
    const [row] = await this.q<Row>(['SELECT f.* FROM ledger_facts f WHERE ', sql('f.id = ?', id), ' AND ', scopeSql(readScope(p), 'f')]);
    return row ? rowToFact(row) : null;
  }

  async keyHolder(p: Principal, key: string): Promise<{ id: string; source: string } | null> {
    readScope(p);
    const [row] = await this.q<{ id: string; source: string }>([sql("SELECT id, source FROM ledger_facts WHERE namespace = ? AND key = ? AND status = 'active'", p.namespace, key)]);
    return row ?? null;
  }

  async pending(p: Principal, id?: string): Promise<LedgerPending[]> {
    const s = readScope(p);
    const found = await this.q<Row>([
      sql('SELECT * FROM ledger_pending WHERE namespace = ?', s.namespace),
      s.all ? '' : sql(' AND proposer = ?', actorOf(p)),
      id ? sql(' AND id = ?', id) : " AND status = 'pending'",
      ' ORDER BY created_at',
    ]);
    return found.map(rowToPending);
  }

  async write(p: Principal, ops: LedgerWrite[]): Promise<void> {
    readScope(p);
    await inTransaction(this.conn, async (c) => {
      for (const op of ops) {
        if (op.kind === 'insert') {
          const f = op.fact;
          if (f.namespace !== p.namespace) throw new MnemosError('forbidden', "a ledger fact must belong to the caller's namespace");
          try {
            await c.query(
              'INSERT INTO ledger_facts (id, namespace, owner_id, agent_id, visibility, key, value, statement, category, confidence, mentions, source, status, valid_from, valid_until, superseded_by, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)',
              [f.id, f.namespace, f.ownerId, f.agentId, f.visibility, f.key, f.value, f.statement, f.category, f.confidence, f.mentions, f.source, f.status, toMs(f.validFrom), toMsOrNull(f.validUntil), f.supersededBy, toMs(f.updatedAt)],
            );
          } catch (err) {
            if ((err as { code?: string }).code === '23505') throw new MnemosError('conflict', 'another active fact already holds this key', {}, { cause: err });
            throw err;
          }
          await this.appendAudit(c, p, { action: 'pin', memoryId: f.id, beforeHash: null, afterHash: sha256Hex(f.value), details: { op: 'add', key: f.key, source: f.source, confidence: f.confidence } });
        } else if (op.kind === 'patch') {
          const sets = Object.entries(op.set).filter(([k, v]) => v !== undefined && COLUMN[k] !== undefined);
          const values = sets.map(([k, v]) => (k === 'validUntil' || k === 'updatedAt' ? toMsOrNull(v as string | null) : v));
          const [row] = await rows<{ key: string; value: string }>(c, 'SELECT key, value FROM ledger_facts WHERE id = $1 AND namespace = $2 FOR UPDATE', [op.id, p.namespace]);
          if (!row) throw new MnemosError('not_found', `no ledger fact ${op.id}`, { id: op.id });
          if (sets.length > 0) {
            try {
              await c.query(`UPDATE ledger_facts SET ${sets.map(([k], i) => `${COLUMN[k]} = $${i + 1}`).join(', ')} WHERE id = $${sets.length + 1}`, [...values, op.id]);
            } catch (err) {
              if ((err as { code?: string }).code === '23505') throw new MnemosError('conflict', 'another active fact already holds this key', {}, { cause: err });
              throw err;
            }
          }
          await this.appendAudit(c, p, { action: 'pin', memoryId: op.id, beforeHash: sha256Hex(row.value), afterHash: sha256Hex(row.value), details: { op: op.op, key: row.key, ...op.set } });
        } else if (op.kind === 'pending') {
          const q = op.pending;
          await c.query('INSERT INTO ledger_pending (id, namespace, key, target_id, proposed, proposer, created_at, status) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
            q.id, p.namespace, q.key, q.targetId, JSON.stringify(q.proposed), q.proposer, toMs(q.createdAt), q.status,
          ]);
          await this.appendAudit(c, p, { action: 'pin', memoryId: q.id, beforeHash: null, afterHash: sha256Hex(q.proposed.value), details: { op: 'propose', key: q.key, target: q.targetId } });
        } else {
          const r = await c.query("UPDATE ledger_pending SET status = $1 WHERE id = $2 AND namespace = $3 AND status = 'pending'", [op.status, op.pendingId, p.namespace]);
          if ((r.rowCount ?? 0) === 0) throw new MnemosError('conflict', `pending change ${op.pendingId} is not pending any more`, { id: op.pendingId });
          await this.appendAudit(c, p, { action: 'pin', memoryId: op.pendingId, beforeHash: null, afterHash: null, details: { op: op.status === 'confirmed' ? 'confirm' : 'reject' } });
        }
      }
    });
  }
}
