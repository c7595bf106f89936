import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { createToken } from './tokens.ts';

export interface OwnerTokenBootstrap {
  /** True when this call created the token (a fresh store). */
  created: boolean;
  path: string;
  /** The secret, when it was created now or is readable from `path`. */
  token: string | null;
}

/**
 * First-run convenience for `npm start`: on a store with no tokens in the
 * namespace, create one owner token and save it to `file` (mode 0600, owner
 * read/write only). Later runs create nothing and report where it is.
 */
export async function ensureOwnerToken(ctx: ServiceContext, p: Principal, file: string): Promise<OwnerTokenBootstrap> {
  const path = resolve(file);
  const existing = await ctx.store.tokens.list(p);
  if (existing.length > 0) {
    const token = existsSync(path) ? readFileSync(path, 'utf8').trim() || null : null;
    return { created: false, path, token };
  }
  const { token } = await createToken(ctx, p, { role: 'owner', label: 'created by the first start' });
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // writeFileSync's mode applies only when the file is new
  return { created: true, path, token };
}
