import type Database from 'better-sqlite3';
import type { AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { assertTokenOwner as assertOwner, matchToken, tokenRecord as toRecord, type TokenRow } from '../sql/token-rows.ts';
import type { TokenRecord, TokenStore } from '../../ports/store.ts';
import { writeWithRetry } from './connection.ts';
import type { StatementCache } from './statements.ts';

/**
 * Bearer tokens in SQLite. Only SHA-256 hashes are stored; creation and
 * revocation write their audit entry in the same transaction as the row.
 */
export class SqliteTokens implements TokenStore {
  constructor(
    private readonly db: Database.Database,
    private readonly statements: StatementCache,
    private readonly appendAudit: (p: Principal, draft: AuditDraft) => void,
  ) {}

  async create(p: Principal, t: TokenRecord & { hash: string }): Promise<TokenRecord> {
    assertOwner(p, 'create tokens');
    if (t.namespace !== p.namespace) throw new MnemosError('forbidden', `an owner of namespace "${p.namespace}" cannot create tokens for "${t.namespace}"`);
    const run = this.db.transaction(() => {
      this.db
        .prepare('INSERT INTO tokens (id, hash, role, namespace, principal_id, agent_id, label, created_at, revoked_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL)')
        .run(t.id, t.hash, t.role, t.namespace, t.principalId, t.agentId, t.label, t.createdAt);
      this.appendAudit(p, { action: 'token', memoryId: null, beforeHash: null, afterHash: null, details: { op: 'create', tokenId: t.id, role: t.role, principalId: t.principalId } });
    });
    await writeWithRetry(this.db, () => run.immediate());
    const { hash: _hash, ...record } = t;
    return { ...record, revokedAt: null };
  }

  async list(p: Principal): Promise<TokenRecord[]> {
    assertOwner(p, 'list tokens');
    const rows = this.db.prepare('SELECT * FROM tokens WHERE namespace = ? ORDER BY created_at DESC, id DESC').all(p.namespace) as TokenRow[];
    return rows.map(toRecord);
  }

  async revoke(p: Principal, id: string): Promise<TokenRecord | null> {
    assertOwner(p, 'revoke tokens');
    const run = this.db.transaction(() => {
      const row = this.db.prepare('SELECT * FROM tokens WHERE id = ? AND namespace = ?').get(id, p.namespace) as TokenRow | undefined;
      if (!row) return null;
      if (row.revoked_at !== null) return toRecord(row);
      const at = new Date().toISOString();
      this.db.prepare('UPDATE tokens SET revoked_at = ? WHERE id = ?').run(at, id);
      this.appendAudit(p, { action: 'token', memoryId: null, beforeHash: null, afterHash: null, details: { op: 'revoke', tokenId: id } });
      return toRecord({ ...row, revoked_at: at });
    });
    return writeWithRetry(this.db, () => run.immediate());
  }

  async findByHash(hash: string): Promise<TokenRecord | null> {
    // Every HTTP request authenticates: preparing this statement cost more than running it.
    const row = this.statements.get('SELECT * FROM tokens WHERE hash = ? AND revoked_at IS NULL').get(hash) as TokenRow | undefined;
    return matchToken(row, hash);
  }
}
