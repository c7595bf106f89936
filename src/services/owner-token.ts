import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { authenticate, createToken } from './tokens.ts';
import { makeFolders } from '../runtime/make-folders.ts';

export interface OwnerTokenBootstrap {
  /** True when this call created the token (a fresh store). */
  created: boolean;
  path: string;
  /** The secret, when it was created now or is readable from `path`. */
  token: string | null;
  /**
   * Where a token the file already held was moved before the new one was
   * saved: the secret of another store or namespace served from the same
   * folder (shown once when it was made, kept nowhere else). Null when the
   * file was new or empty.
   */
  movedAside: string | null;
  /**
   * Why the file's secret was not given as `token` though the file holds one:
   * it no longer opens this namespace (revoked, or another store's or
   * namespace's). Null otherwise.
   */
  fileProblem: string | null;
  /** True when the token was created because every token of the namespace had been revoked. */
  replacedRevoked: boolean;
}

/**
 * First-run convenience for `npm start`: on a store with no live token in the
 * namespace (none yet, or every one revoked), create one owner token and save
 * it to `file` (mode 0600, owner read/write only). Later runs create nothing
 * and report where it is, or why the secret in the file no longer opens the
 * namespace: after the saved token was revoked, a start pointed at the file
 * as if it worked, and every request with it was refused.
 */
export async function ensureOwnerToken(ctx: ServiceContext, p: Principal, file: string): Promise<OwnerTokenBootstrap> {
  const path = resolve(file);
  const existing = await ctx.store.tokens.list(p);
  const live = existing.filter((t) => t.revokedAt === null);
  if (live.length > 0) {
    const saved = existsSync(path) ? readFileSync(path, 'utf8').trim() || null : null;
    const fileProblem = saved === null ? null : await whyNotOwner(ctx, p, saved);
    return { created: false, path, token: fileProblem === null ? saved : null, movedAside: null, fileProblem, replacedRevoked: false };
  }
  const { token } = await createToken(ctx, p, { role: 'owner', label: existing.length > 0 ? 'created by a start: every token was revoked' : 'created by the first start' });
  makeFolders(dirname(path));
  const movedAside = moveAside(path);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // writeFileSync's mode applies only when the file is new
  return { created: true, path, token, movedAside, fileProblem: null, replacedRevoked: existing.length > 0 };
}

/** Why `secret` does not open `p`'s namespace as an owner, or null when it does. */
async function whyNotOwner(ctx: ServiceContext, p: Principal, secret: string): Promise<string | null> {
  try {
    const who = await authenticate(ctx, secret);
    if (who.namespace !== p.namespace) return `holds a token of namespace "${who.namespace}", not "${p.namespace}"`;
    return who.role === 'owner' ? null : `holds a ${who.role} token, not an owner's`;
  } catch {
    return 'holds a token this store does not know or has revoked';
  }
}

/**
 * A first start of another store or namespace in the same folder (`--db`,
 * `--namespace`) finds the file holding the earlier store's owner token.
 * Overwriting it would lose that secret, so it is renamed beside the file
 * (a free name, never replacing anything) and the rename is reported.
 */
function moveAside(path: string): string | null {
  if (!existsSync(path) || readFileSync(path, 'utf8').trim() === '') return null;
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
  for (let n = 0; ; n++) {
    const aside = `${path}.replaced-${stamp}${n === 0 ? '' : `-${n}`}`;
    if (existsSync(aside)) continue;
    renameSync(path, aside);
    return aside;
  }
}
