import { randomBytes } from 'node:crypto';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { toIso } from '../domain/time.ts';
import type { PendingChange } from '../ports/store.ts';
import type { ServiceContext } from './context.ts';

/**
 * Two-step changes (forget, edit): the preview stores what it showed under a
 * random token; only the same principal can confirm it, once, before it
 * expires. The store keeps a hash of the token, never the token itself.
 */
export async function issuePreview(ctx: ServiceContext, p: Principal, kind: string, payload: Record<string, unknown>): Promise<{ token: string; expiresAt: string }> {
  const token = `${kind}_${randomBytes(24).toString('base64url')}`;
  const expiresAt = toIso(ctx.now() + ctx.config.previewTtlMs);
  await ctx.store.pending.put(p, { token, kind, expiresAt, payload }, ctx.now());
  return { token, expiresAt };
}

export async function redeemPreview(ctx: ServiceContext, p: Principal, kind: string, token: string): Promise<PendingChange> {
  if (typeof token !== 'string' || !token.startsWith(`${kind}_`)) {
    throw new MnemosError('invalid_token', `that is not ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} confirmation token; run the ${kind} preview first and pass the token it returns`, { field: 'token' });
  }
  // The engine's clock set the expiry (issuePreview), so it checks it: with an injected clock behind the wall clock every confirm failed.
  const change = await ctx.store.pending.take(p, token, kind, ctx.now());
  if (!change) throw new MnemosError('invalid_token', `the ${kind} token is unknown, already used, expired, or was issued to someone else; preview again`, { field: 'token' });
  return change;
}
