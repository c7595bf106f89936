import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { sha256Hex } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import { assertPrincipal, ROLES, withArticle, type Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { TokenRecord } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';
import { parseInput, storable } from './validate.ts';
import { assertStorableText } from '../domain/unicode.ts';

/** Prefix of every bearer secret, so a leaked one is recognisable in logs and scanners. */
export const TOKEN_PREFIX = 'mnemos_';

export const createTokenSchema = z
  .object({
    role: z.enum(ROLES).describe('owner sees everything in the namespace; agent and guest see only shared/public memories and their own'),
    label: storable(z.string().min(1).max(200)).optional(),
    agentId: storable(z.string().min(1).max(256)).optional().describe('the agent this token acts for (agents and their guests)'),
    principalId: storable(z.string().min(1).max(256)).optional().describe('id the token acts as (default: "owner" for owners, else the token id)'),
  })
  .strict();
export type CreateTokenInput = z.input<typeof createTokenSchema>;

export interface CreatedToken {
  /** The secret: shown once, never stored. */
  token: string;
  record: TokenRecord;
}

export async function createToken(ctx: ServiceContext, p: Principal, input: CreateTokenInput): Promise<CreatedToken> {
  const q = parseInput(createTokenSchema, input, 'token request');
  const id = `tok_${newId(ctx.now())}`;
  const token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  const principalId = q.principalId ?? (q.role === 'owner' ? 'owner' : id);
  if (q.principalId !== undefined) assertIdFree(q.role, principalId, p, await ctx.store.tokens.list(p));
  const record = await ctx.store.tokens.create(p, {
    id,
    hash: sha256Hex(token),
    role: q.role,
    namespace: p.namespace,
    principalId,
    agentId: q.agentId ?? null,
    label: q.label ?? null,
    createdAt: toIso(ctx.now()),
    revokedAt: null,
  });
  return { token, record };
}

/**
 * A principal id belongs to one role. Memories carry their writer's id, and
 * anyone acting as that id reads and changes them: a guest token created
 * with `--id owner` read, edited and forgot owner-only memories, and an
 * owner acting as a guest's id would hand that guest what the owner writes.
 * So a guest or agent may not take the owner's id ("owner", the creating
 * owner's, any owner token's) or the engine's (`mnemos-...`), and no token
 * may take an id another role's token has (revoked ones too: their writes
 * remain).
 */
function assertIdFree(role: Principal['role'], id: string, creator: Principal, tokens: readonly TokenRecord[]): void {
  const refuse = (why: string) => {
    throw new MnemosError('validation_failed', `--id ${id} cannot be given to ${withArticle(role)} token: ${why}`, { field: 'principalId' });
  };
  if (role !== 'owner' && (id === 'owner' || id === creator.id)) refuse("it is the owner's id, and whoever acts as it reads and changes the owner's memories");
  if (role !== 'owner' && id.startsWith('mnemos-')) refuse('ids starting with "mnemos-" are the engine\'s own');
  const other = tokens.find((t) => t.principalId === id && t.role !== role);
  if (other) refuse(`${other.id} (${other.role}${other.revokedAt ? ', revoked' : ''}) acts as it, and one id has one role: its memories would be read and changed by both`);
}

export function listTokens(ctx: ServiceContext, p: Principal): Promise<TokenRecord[]> {
  return ctx.store.tokens.list(p);
}

export async function revokeToken(ctx: ServiceContext, p: Principal, id: string): Promise<TokenRecord> {
  // From plain JavaScript anything can come: undefined reached the text checks as a TypeError.
  if (typeof id !== 'string' || id === '') throw new MnemosError('validation_failed', 'id: the id of the token to revoke (a string, as token list gives it)', { field: 'id' });
  // An id no store can hold: not_found on SQLite, a raw PostgreSQL error naming no field on the other backend.
  assertStorableText(id, 'id');
  const r = await ctx.store.tokens.revoke(p, id);
  if (!r) throw new MnemosError('not_found', `no token with id ${id} in namespace "${p.namespace}"`, { id });
  return r;
}

/** The principal a bearer secret stands for; `unauthorized` with the reason otherwise. */
export async function authenticate(ctx: ServiceContext, secret: string | undefined | null): Promise<Principal> {
  if (!secret) throw new MnemosError('unauthorized', 'missing bearer token: send "Authorization: Bearer <token>" (create one with `mnemos token create`)');
  if (typeof secret !== 'string' || !secret.startsWith(TOKEN_PREFIX)) throw new MnemosError('unauthorized', `malformed token: Mnemos tokens start with "${TOKEN_PREFIX}"`);
  const record = await ctx.store.tokens.findByHash(sha256Hex(secret));
  if (!record) throw new MnemosError('unauthorized', 'unknown or revoked token');
  const principal: Principal = { role: record.role, namespace: record.namespace, id: record.principalId, ...(record.agentId ? { agentId: record.agentId } : {}) };
  assertPrincipal(principal);
  return principal;
}
