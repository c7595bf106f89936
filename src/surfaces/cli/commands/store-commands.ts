import { createHash } from 'node:crypto';
import { openStore } from '../../../adapters/open-store.ts';
import { MnemosError } from '../../../domain/errors.ts';
import { localOwner, type Principal } from '../../../domain/principal.ts';
import type { MemoryStore, WriteOp } from '../../../ports/store.ts';
import { analyze } from '../../../retrieval/text/analyze.ts';
import type { Command } from '../command.ts';
import { num, str } from './options.ts';

export interface MigrateResult {
  backend: string;
  location: string;
  schemaVersion: number;
}

export interface CopyResult {
  from: string;
  to: string;
  namespace: string;
  copied: number;
  unchanged: number;
  /** SHA-256 of both exports (every version, id order); equal means a lossless copy. */
  sourceDigest: string;
  targetDigest: string;
  verified: boolean;
}

/** Digest of a store's export: the same JSON lines `mnemos export` writes, hashed in order. */
export async function exportDigest(store: MemoryStore, p: Principal): Promise<{ digest: string; count: number }> {
  const h = createHash('sha256');
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const page = await store.scan(p, after, 1000);
    if (page.length === 0) return { digest: h.digest('hex'), count };
    for (const m of page) h.update(`${JSON.stringify(m)}\n`);
    count += page.length;
    after = page[page.length - 1]!.id;
  }
}

/**
 * Copies every stored version of one namespace (superseded and archived ones
 * too) from one store to another through the port: scan, then inserts that
 * keep the original ids, so it works between any two backends. Re-running is
 * idempotent (existing ids are unchanged). The target's audit log records
 * the copy as its own create entries; tombstones and pending previews stay.
 */
export async function copyStore(from: MemoryStore, to: MemoryStore, p: Principal, batch = 500): Promise<CopyResult> {
  let after: string | null = null;
  let copied = 0;
  let unchanged = 0;
  for (;;) {
    const page = await from.scan(p, after, batch);
    if (page.length === 0) break;
    const ops: WriteOp[] = page.map((memory) => ({ kind: 'insert', memory, onExistingSource: 'conflict', audit: { details: { copiedFrom: from.backend } } }));
    for (const r of await to.apply(p, ops)) {
      if (r.kind === 'insert' && r.status === 'created') copied++;
      else unchanged++;
    }
    after = page[page.length - 1]!.id;
  }
  const [a, b] = await Promise.all([exportDigest(from, p), exportDigest(to, p)]);
  return { from: from.location, to: to.location, namespace: p.namespace, copied, unchanged, sourceDigest: a.digest, targetDigest: b.digest, verified: a.digest === b.digest };
}

export const migrate: Command = {
  name: 'migrate',
  usage: 'migrate [--db path|url]',
  summary: 'apply pending schema migrations and print the schema version',
  async run(ctx) {
    // Opening a store applies its pending migrations (under a lock on every backend).
    const store = await openStore(ctx.db, { analyze });
    try {
      return { backend: store.backend, location: store.location, schemaVersion: await store.schemaVersion() } satisfies MigrateResult;
    } finally {
      await store.close();
    }
  },
  human: (r: MigrateResult) => `${r.backend} ${r.location}: schema version ${r.schemaVersion}`,
};

export const copy: Command = {
  name: 'copy',
  usage: 'copy --from <path|url> --to <path|url> [--namespace ns] [--batch 500]',
  summary: 'lossless copy of a namespace between any two stores (SQLite <-> PostgreSQL), verified by comparing exports',
  options: { from: { type: 'string' }, to: { type: 'string' }, batch: { type: 'string' } },
  async run(ctx) {
    const fromLoc = str(ctx, 'from');
    const toLoc = str(ctx, 'to');
    if (!fromLoc || !toLoc) throw new MnemosError('validation_failed', 'copy needs --from <db> and --to <db>', { field: fromLoc ? 'to' : 'from' });
    if (fromLoc === toLoc) throw new MnemosError('validation_failed', '--from and --to name the same store', { field: 'to' });
    const from = await openStore(fromLoc, { analyze });
    try {
      const to = await openStore(toLoc, { analyze });
      try {
        const r = await copyStore(from, to, localOwner(ctx.namespace), num(ctx, 'batch') ?? 500);
        return { ...r, exitCode: r.verified ? 0 : 8 };
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
  },
  human: (r: CopyResult) =>
    r.verified
      ? `copied ${r.copied} versions (${r.unchanged} already there) of namespace ${r.namespace}; exports match (sha256 ${r.targetDigest.slice(0, 16)})`
      : `COPY NOT VERIFIED: exports differ (source ${r.sourceDigest.slice(0, 16)}, target ${r.targetDigest.slice(0, 16)}); the target holds other memories or lost data`,
};
