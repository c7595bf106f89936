import { rowToFact, rowToPending } from '../sql/rows.ts';
import type Database from 'better-sqlite3';
import type { StatementCache } from './statements.ts';
import type { AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { sha256Hex } from '../../domain/hash.ts';
import { actorOf } from '../../domain/audit.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toMs, toMsOrNull } from '../../domain/time.ts';
import type { LedgerFact } from '../../lifecycle/ledger-rules.ts';
import type { LedgerPending, LedgerStore, LedgerWrite } from '../../ports/lifecycle.ts';
import { scopeSql } from '../sql/scope-sql.ts';
import { writeWithRetry } from './connection.ts';

type Row = Record<string, unknown>;
const COLUMN: Record<string, string> = { confidence: 'confidence', mentions: 'mentions', status: 'status', validUntil: 'valid_until', supersededBy: 'superseded_by', updatedAt: 'updated_at' };

/** The canonical ledger in SQLite; every change is audited in the memories' chain. */
export class SqliteLedger implements LedgerStore {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly appendAudit: (p: Principal, draft: AuditDraft) => void,
  ) {}

  async list(p: Principal, opts: { status?: string[]; key?: string; limit?: number }): Promise<LedgerFact[]> {
    const s = scopeSql(readScope(p), 'f');
    const status = opts.status && opts.status.length ? opts.status : ['active'];
    const params: unknown[] = [...status];
    let sql = `SELECT f.* FROM ledger_facts f WHERE f.status IN (${status.map(() => '?').join(', ')})`;
    if (opts.key) {
      sql += ' AND f.key = ?';
      params.push(opts.key);
    }
    sql += ` AND ${s.sql} ORDER BY f.updated_at DESC LIMIT ?`;
    // Cached: every search lists the ledger for exact hits, and preparing costs more than an empty query.
    return (this.statements.get(sql).all(...params, ...s.params, opts.limit ?? 1000) as Row[]).map(rowToFact);
  }

  async version(): Promise<number> {
    return (this.statements.get('SELECT version FROM ledger_version').get() as { version: number }).version;
  }

  async get(p: Principal, id: string): Promise<LedgerFact | null> {
    const s = scopeSql(readScope(p), 'f');
    const row = this.db.prepare(`SELECT f.* FROM ledger_facts f WHERE f.id = ? AND ${s.sql}`).get(id, ...s.params) as Row | undefined;
    return row ? rowToFact(row) : null;
  }

  async keyHolder(p: Principal, key: string): Promise<{ id: string; source: string } | null> {
    readScope(p);
    const row = this.db.prepare("SELECT id, source FROM ledger_facts WHERE namespace = ? AND key = ? AND status = 'active'").get(p.namespace, key) as { id: string; source: string } | undefined;
    return row ?? null;
  }

  async pending(p: Principal, id?: string): Promise<LedgerPending[]> {
    const s = readScope(p);
    let sql = 'SELECT * FROM ledger_pending WHERE namespace = ?';
    const params: unknown[] = [s.namespace];
    if (!s.all) {
      sql += ' AND proposer = ?';
      params.push(actorOf(p));
    }
    if (id) {
      sql += ' AND id = ?';
      params.push(id);
    } else sql += " AND status = 'pending'";
    return (this.db.prepare(`${sql} ORDER BY created_at`).all(...params) as Row[]).map(rowToPending);
  }

  async write(p: Principal, ops: LedgerWrite[]): Promise<void> {
    readScope(p);
    const insert = this.db.prepare(
      'INSERT INTO ledger_facts (id, namespace, owner_id, agent_id, visibility, key, value, statement, category, confidence, mentions, source, status, valid_from, valid_until, superseded_by, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    const run = this.db.transaction(() => {
      for (const op of ops) {
        if (op.kind === 'insert') {
          const f = op.fact;
          if (f.namespace !== p.namespace) throw new MnemosError('forbidden', 'a ledger fact must belong to the caller\'s namespace');
          insert.run(f.id, f.namespace, f.ownerId, f.agentId, f.visibility, f.key, f.value, f.statement, f.category, f.confidence, f.mentions, f.source, f.status, toMs(f.validFrom), toMsOrNull(f.validUntil), f.supersededBy, toMs(f.updatedAt));
          this.appendAudit(p, { action: 'pin', memoryId: f.id, beforeHash: null, afterHash: sha256Hex(f.value), details: { op: 'add', key: f.key, source: f.source, confidence: f.confidence } });
        } else if (op.kind === 'patch') {
          const sets = Object.entries(op.set).filter(([, v]) => v !== undefined);
          const values = sets.map(([k, v]) => (k === 'validUntil' || k === 'updatedAt' ? toMsOrNull(v as string | null) : v));
          const row = this.db.prepare('SELECT key, value FROM ledger_facts WHERE id = ? AND namespace = ?').get(op.id, p.namespace) as { key: string; value: string } | undefined;
          if (!row) throw new MnemosError('not_found', `no ledger fact ${op.id}`, { id: op.id });
          if (sets.length > 0) this.db.prepare(`UPDATE ledger_facts SET ${sets.map(([k]) => `${COLUMN[k]} = ?`).join(', ')} WHERE id = ?`).run(...values, op.id);
          this.appendAudit(p, { action: 'pin', memoryId: op.id, beforeHash: sha256Hex(row.value), afterHash: sha256Hex(row.value), details: { op: op.op, key: row.key, ...op.set } });
        } else if (op.kind === 'pending') {
          const q = op.pending;
          this.db
            .prepare('INSERT INTO ledger_pending (id, namespace, key, target_id, proposed, proposer, created_at, status) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
            .run(q.id, p.namespace, q.key, q.targetId, JSON.stringify(q.proposed), q.proposer, toMs(q.createdAt), q.status);
          this.appendAudit(p, { action: 'pin', memoryId: q.id, beforeHash: null, afterHash: sha256Hex(q.proposed.value), details: { op: 'propose', key: q.key, target: q.targetId } });
        } else {
          const changed = this.db.prepare("UPDATE ledger_pending SET status = ? WHERE id = ? AND namespace = ? AND status = 'pending'").run(op.status, op.pendingId, p.namespace).changes;
          if (changed === 0) throw new MnemosError('conflict', `pending change ${op.pendingId} is not pending any more`, { id: op.pendingId });
          this.appendAudit(p, { action: 'pin', memoryId: op.pendingId, beforeHash: null, afterHash: null, details: { op: op.status === 'confirmed' ? 'confirm' : 'reject' } });
        }
      }
    });
    try {
      await writeWithRetry(this.db, () => run.immediate());
    } catch (err) {
      if ((err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE') throw new MnemosError('conflict', 'another active fact already holds this key', {}, { cause: err });
      throw err;
    }
  }
}
