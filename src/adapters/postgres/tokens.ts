import type pg from 'pg';
import type { AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import type { Principal } from '../../domain/principal.ts';
import { assertTokenOwner as assertOwner, matchToken, tokenRecord as toRecord, type TokenRow } from '../sql/token-rows.ts';
import type { TokenRecord, TokenStore } from '../../ports/store.ts';
import { inTransaction, rows, withRetry, type PgConnection } from './connection.ts';

/**
 * Bearer tokens in PostgreSQL, the same rules as SqliteTokens: only SHA-256
 * hashes are stored, and creation and revocation append their audit entry in
 * the same transaction as the row.
 */
export class PgTokens implements TokenStore {
  constructor(
    private readonly conn: PgConnection,
    private readonly appendAudit: (c: pg.PoolClient, p: Principal, draft: AuditDraft) => Promise<void>,
  ) {}

  async create(p: Principal, t: TokenRecord & { hash: string }): Promise<TokenRecord> {
    assertOwner(p, 'create tokens');
    if (t.namespace !== p.namespace) throw new MnemosError('forbidden', `an owner of namespace "${p.namespace}" cannot create tokens for "${t.namespace}"`);
    await inTransaction(this.conn, async (c) => {
      await c.query('INSERT INTO tokens (id, hash, role, namespace, principal_id, agent_id, label, created_at, revoked_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)', [
        t.id, t.hash, t.role, t.namespace, t.principalId, t.agentId, t.label, t.createdAt,
      ]);
      await this.appendAudit(c, p, { action: 'token', memoryId: null, beforeHash: null, afterHash: null, details: { op: 'create', tokenId: t.id, role: t.role, principalId: t.principalId } });
    });
    const { hash: _hash, ...record } = t;
    return { ...record, revokedAt: null };
  }

  async list(p: Principal): Promise<TokenRecord[]> {
    assertOwner(p, 'list tokens');
    const found = await withRetry(this.conn.location, () => rows<TokenRow>(this.conn.pool, 'SELECT * FROM tokens WHERE namespace = $1 ORDER BY created_at DESC, id DESC', [p.namespace]));
    return found.map(toRecord);
  }

  async revoke(p: Principal, id: string): Promise<TokenRecord | null> {
    assertOwner(p, 'revoke tokens');
    return inTransaction(this.conn, async (c) => {
      const [row] = await rows<TokenRow>(c, 'SELECT * FROM tokens WHERE id = $1 AND namespace = $2 FOR UPDATE', [id, p.namespace]);
      if (!row) return null;
      if (row.revoked_at !== null) return toRecord(row);
      const at = new Date().toISOString();
      await c.query('UPDATE tokens SET revoked_at = $1 WHERE id = $2', [at, id]);
      await this.appendAudit(c, p, { action: 'token', memoryId: null, beforeHash: null, afterHash: null, details: { op: 'revoke', tokenId: id } });
      return toRecord({ ...row, revoked_at: at });
    });
  }

  async findByHash(hash: string): Promise<TokenRecord | null> {
    const [row] = await withRetry(this.conn.location, () => rows<TokenRow>(this.conn.pool, 'SELECT * FROM tokens WHERE hash = $1 AND revoked_at IS NULL', [hash]));
    return matchToken(row, hash);
  }
}
