import { chmodSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { createToken } from './tokens.ts';
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
    return { created: false, path, token, movedAside: null };
  }
  const { token } = await createToken(ctx, p, { role: 'owner', label: 'created by the first start' });
  makeFolders(dirname(path));
  const movedAside = moveAside(path);
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // writeFileSync's mode applies only when the file is new
  return { created: true, path, token, movedAside };
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
