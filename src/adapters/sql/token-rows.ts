import { timingSafeEqual } from 'node:crypto';
import { MnemosError } from '../../domain/errors.ts';
import { readScope, type Principal, type Role } from '../../domain/principal.ts';
import type { TokenRecord } from '../../ports/store.ts';

/** The tokens table as both SQL backends store it, and the rules both apply to it. */
export interface TokenRow {
  id: string;
  hash: string;
  role: string;
  namespace: string;
  principal_id: string;
  agent_id: string | null;
  label: string | null;
  created_at: string;
  revoked_at: string | null;
}

export function tokenRecord(r: TokenRow): TokenRecord {
  return { id: r.id, role: r.role as Role, namespace: r.namespace, principalId: r.principal_id, agentId: r.agent_id, label: r.label, createdAt: r.created_at, revokedAt: r.revoked_at };
}

export function assertTokenOwner(p: Principal, what: string): void {
  if (!readScope(p).all) throw new MnemosError('forbidden', `only an owner may ${what}`);
}

/** The index look-up narrows to one row; the final comparison is constant-time. */
export function matchToken(row: TokenRow | undefined, hash: string): TokenRecord | null {
  if (!row) return null;
  const a = Buffer.from(row.hash, 'hex');
  const b = Buffer.from(hash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b) ? tokenRecord(row) : null;
}
