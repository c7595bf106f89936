import { sha256Hex } from '../../domain/hash.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso } from '../../domain/time.ts';
import type { PendingChange, PendingChanges } from '../../ports/store.ts';
import { rows, withRetry, type PgConnection } from './connection.ts';

/** Preview/confirm changes. Only the token's hash is stored; take is one atomic DELETE ... RETURNING, so a token works once even across processes. */
export class PgPending implements PendingChanges {
  constructor(private readonly conn: PgConnection) {}

  async put(p: Principal, change: Omit<PendingChange, 'namespace' | 'actor' | 'createdAt'>, now = Date.now()): Promise<void> {
    readScope(p);
    const subject = typeof change.payload.lineageId === 'string' ? change.payload.lineageId : null;
    // Expired changes can never be confirmed (take refuses them); without this sweep every unconfirmed preview stayed, a row per preview for good.
    // One statement, so the sweep and the insert need no transaction of their own.
    await withRetry(this.conn.location, () =>
      this.conn.pool.query(
        `WITH swept AS (DELETE FROM pending_changes WHERE expires_at COLLATE "C" < $9)
         INSERT INTO pending_changes (token_hash, kind, namespace, actor, subject_id, created_at, expires_at, payload) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
        [sha256Hex(change.token), change.kind, p.namespace, `${p.role}:${p.id}`, subject, toIso(Date.now()), change.expiresAt, JSON.stringify(change.payload), toIso(now)],
      ),
    );
  }

  async take(p: Principal, token: string, kind: string, now = Date.now()): Promise<PendingChange | null> {
    readScope(p);
    const [row] = await withRetry(this.conn.location, () =>
      rows<Record<string, string>>(this.conn.pool, 'DELETE FROM pending_changes WHERE token_hash = $1 AND kind = $2 AND namespace = $3 AND actor = $4 RETURNING *', [
        sha256Hex(token),
        kind,
        p.namespace,
        `${p.role}:${p.id}`,
      ]),
    );
    if (!row) return null;
    if (Date.parse(row.expires_at!) < now) return null;
    return { token, kind: row.kind!, namespace: row.namespace!, actor: row.actor!, createdAt: row.created_at!, expiresAt: row.expires_at!, payload: JSON.parse(row.payload!) };
  }
}
