import { createHash } from 'node:crypto';
import { openStore } from '../../../adapters/open-store.ts';
import { MnemosError } from '../../../domain/errors.ts';
import { localOwner, type Principal } from '../../../domain/principal.ts';
import type { LedgerFact } from '../../../lifecycle/ledger-rules.ts';
import type { MemoryStore, ScanPage, SnapshotReads, WriteOp } from '../../../ports/store.ts';
import { analyze } from '../../../retrieval/text/analyze.ts';
import { reportedFailure, type Command } from '../command.ts';
import { assertStoreExists } from '../store-location.ts';
import { progressLine } from '../progress-line.ts';
import { upgradeProgress } from '../upgrade-progress.ts';
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
  /** Versions the target held already and took the source's state of (closed since, consolidated, recalled). */
  updated: number;
  unchanged: number;
  /** Versions the target had forgotten: they stay forgotten there, and the copy is then not verified. */
  forgotten: number;
  /** SHA-256 of both exports (every version, id order); equal means a lossless copy. */
  sourceDigest: string;
  targetDigest: string;
  /** The canonical ledger's facts (pins and learned facts, every status), copied with their ids; equal when both stores list the same facts. */
  ledger: { copied: number; unchanged: number; verified: boolean };
  /**
   * The ledger's pending changes (every status) and the tombstones of
   * forgotten memories, restored as an import of an export restores them
   * (services/export-records.ts): without its tombstones, a target took back
   * a forgotten chunk on the next import of its note. `unchanged`: held there already.
   */
  restored: { ledgerPending: number; tombstones: number; unchanged: number };
  /** Both the memories and the ledger arrived whole. */
  verified: boolean;
}

/** Every status a ledger fact can have: a copy takes the history too. */
const ALL_FACTS = { status: ['active', 'superseded', 'retired'], limit: 10_000_000 };

async function allFacts(store: MemoryStore, p: Principal): Promise<LedgerFact[]> {
  return store.ledger ? store.ledger.list(p, ALL_FACTS) : [];
}

/** Facts as one comparable text, in id order. */
function factsDigest(facts: readonly LedgerFact[]): string {
  return createHash('sha256').update(JSON.stringify([...facts].sort((a, b) => (a.id < b.id ? -1 : 1)))).digest('hex');
}

/**
 * The ledger's facts of one namespace, with their ids, statuses and times,
 * oldest change first; facts the target has already are left alone. Pins
 * are what a user told the engine outright: a copy that left them behind
 * would lose them without a word. Open proposals (pending changes) stay.
 */
async function copyLedger(from: MemoryStore, to: MemoryStore, p: Principal): Promise<CopyResult['ledger']> {
  const facts = await allFacts(from, p);
  if (facts.length > 0 && !to.ledger) throw new MnemosError('unavailable', `the target store (${to.backend}) has no ledger, so the ${facts.length} ledger facts cannot be copied`);
  let copied = 0;
  let unchanged = 0;
  for (const fact of [...facts].sort((a, b) => (a.updatedAt < b.updatedAt ? -1 : a.updatedAt > b.updatedAt ? 1 : a.id < b.id ? -1 : 1))) {
    if (await to.ledger!.get(p, fact.id)) {
      unchanged++;
      continue;
    }
    try {
      await to.ledger!.write(p, [{ kind: 'insert', fact }]);
    } catch (err) {
      if ((err as MnemosError).code === 'conflict') {
        throw new MnemosError('conflict', `the target's ledger already has another active fact for "${fact.key}"; retire it there or copy into an empty store`, { key: fact.key }, { cause: err });
      }
      throw err;
    }
    copied++;
  }
  return { copied, unchanged, verified: factsDigest(facts) === factsDigest(await allFacts(to, p)) };
}

/** Digest of a store's export: the same JSON lines `mnemos export` writes, hashed in order. */
export async function exportDigest(store: MemoryStore, p: Principal): Promise<{ digest: string; count: number }> {
  return store.snapshot((scan) => digestOf(scan, p));
}

async function digestOf(scan: ScanPage, p: Principal): Promise<{ digest: string; count: number }> {
  const h = createHash('sha256');
  let after: string | null = null;
  let count = 0;
  for (;;) {
    const page = await scan(p, after, 1000);
    if (page.length === 0) return { digest: h.digest('hex'), count };
    for (const m of page) h.update(`${JSON.stringify(m)}\n`);
    count += page.length;
    after = page[page.length - 1]!.id;
  }
}

/**
 * Copies every stored version of one namespace (superseded and archived ones
 * too) from one store to another through the port: scan, then inserts that
 * keep the original ids, so it works between any two backends; then the
 * ledger's facts (copyLedger). Re-running is idempotent, and brings the
 * target up to date: a version it holds takes the source's state (closing,
 * lifecycle, importance, access statistics) through a `mirror` op. The target's audit log records the copy as its own entries;
 * pending previews stay; the ledger's pending changes and the tombstones go too (copyRestores). Vectors, the knowledge graph and
 * the built-in model are derived from the memories and are rebuilt there
 * (by writes with an embedder, `mnemos embed --backfill` and consolidation).
 */
/** How far a copy has got: versions read from the source so far, then the checks. */
export type CopyProgress = { phase: 'copying'; versions: number } | { phase: 'verifying' | 'ledger' };

export async function copyStore(from: MemoryStore, to: MemoryStore, p: Principal, batch = 500, onProgress?: (x: CopyProgress) => void): Promise<CopyResult> {
  // The source is read from one snapshot, and its digest taken from the same one: page by page during
  // writes, a version and its successor read before and after an update failed the copy as a key conflict.
  const { counts, sourceDigest, restored } = await from.snapshot(async (scan, reads) => {
    const counts = await copyPages(scan, to, p, batch, from.backend, onProgress);
    // After the memories, as an import writes them: a version restored on purpose is not in its tombstone's list.
    const restored = await copyRestores(reads, to, p, batch);
    onProgress?.({ phase: 'verifying' });
    return { counts, sourceDigest: await digestOf(scan, p), restored };
  });
  const b = await exportDigest(to, p);
  onProgress?.({ phase: 'ledger' });
  const ledger = await copyLedger(from, to, p);
  return { from: from.location, to: to.location, namespace: p.namespace, ...counts, sourceDigest: sourceDigest.digest, targetDigest: b.digest, ledger, restored, verified: sourceDigest.digest === b.digest && ledger.verified };
}

/** The source's pending changes and tombstones, a page at a time, each page one write of the target. */
async function copyRestores(reads: SnapshotReads, to: MemoryStore, p: Principal, batch: number): Promise<CopyResult['restored']> {
  const n = { ledgerPending: 0, tombstones: 0, unchanged: 0 };
  const apply = async (ops: WriteOp[]) => {
    for (const r of ops.length ? await to.apply(p, ops) : []) {
      if (r.kind !== 'restore') continue;
      if (r.status === 'unchanged') n.unchanged++;
      else if (r.what === 'tombstone') n.tombstones++;
      else n.ledgerPending++;
    }
  };
  for (let after: string | null = null; ; ) {
    const page = await reads.ledgerPending(p, after, batch);
    if (page.length === 0) break;
    await apply(page.map((pending) => ({ kind: 'restore', record: { what: 'ledger_pending', pending } })));
    after = page[page.length - 1]!.id;
  }
  for (let after: string | null = null; ; ) {
    const page = await reads.tombstones(p, after, batch);
    if (page.length === 0) break;
    await apply(page.map((tombstone) => ({ kind: 'restore', record: { what: 'tombstone', tombstone: { ...tombstone, namespace: p.namespace } } })));
    after = page[page.length - 1]!.lineageId;
  }
  return n;
}

async function copyPages(
  scan: ScanPage,
  to: MemoryStore,
  p: Principal,
  batch: number,
  backend: string,
  onProgress?: (x: CopyProgress) => void,
): Promise<{ copied: number; updated: number; unchanged: number; forgotten: number }> {
  let after: string | null = null;
  let copied = 0;
  let unchanged = 0;
  // Versions the target has forgotten stay forgotten there (sql/forgotten-sources.ts); the digests then differ.
  let forgotten = 0;
  let updated = 0;
  for (;;) {
    const page = await scan(p, after, batch);
    if (page.length === 0) break;
    // A version the target holds already is brought to the source's state (closed since, consolidated,
    // recalled): inserting it again answered "unchanged" and left the target with two current versions.
    const held = new Map((await to.getMany(p, page.map((m) => m.id))).map((m) => [m.id, m]));
    const ops: WriteOp[] = [];
    for (const memory of page) {
      const there = held.get(memory.id);
      if (!there) ops.push({ kind: 'insert', memory, onExistingSource: 'conflict', audit: { details: { copiedFrom: backend } } });
      else if (JSON.stringify(there) !== JSON.stringify(memory)) ops.push({ kind: 'mirror', memory });
      else unchanged++;
    }
    for (const r of ops.length ? await to.apply(p, ops) : []) {
      if (r.kind === 'insert' && r.status === 'created') copied++;
      else if (r.kind === 'insert' && r.status === 'forgotten') forgotten++;
      else if (r.kind === 'mirror' && r.changed) updated++;
      else unchanged++;
    }
    after = page[page.length - 1]!.id;
    onProgress?.({ phase: 'copying', versions: copied + updated + unchanged + forgotten });
  }
  return { copied, updated, unchanged, forgotten };
}

export const migrate: Command = {
  name: 'migrate',
  usage: 'migrate [--db path|url]',
  summary: 'apply pending schema migrations and print the schema version',
  async run(ctx) {
    // Opening a store applies its pending migrations (under a lock on every backend).
    const store = await openStore(ctx.db, { analyze, onProgress: upgradeProgress(ctx) });
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
    await assertStoreExists(fromLoc, '--from');
    const from = await openStore(fromLoc, { analyze, onProgress: upgradeProgress(ctx) });
    try {
      const to = await openStore(toLoc, { analyze, onProgress: upgradeProgress(ctx) });
      try {
        // Two spellings of one store (./a/../memory.db, a URL with ?lock_timeout=) pass the check above; the opened
        // stores' locations are resolved paths and URLs without our parameters or the password.
        if (to.location === from.location) throw new MnemosError('validation_failed', `--from and --to name the same store (${to.location})`, { field: 'to' });
        const line = progressLine(ctx);
        const r = await copyStore(from, to, localOwner(ctx.namespace), num(ctx, 'batch') ?? 500, (x) =>
          line?.show(x.phase === 'copying' ? `copying: ${x.versions} memory versions` : x.phase === 'verifying' ? 'copying: comparing the exports of both stores' : 'copying: the ledger', x.phase !== 'copying'),
        ).finally(() => line?.clear());
        if (r.verified) return { ...r, exitCode: 0 };
        const why = r.sourceDigest !== r.targetDigest ? 'the exports of the two stores differ' : 'the ledgers of the two stores differ';
        return { ...r, exitCode: 8, error: reportedFailure('corrupt', `copy not verified: ${why}`) };
      } finally {
        await to.close();
      }
    } finally {
      await from.close();
    }
  },
  human: (r: CopyResult) =>
    r.verified
      ? `copied ${r.copied} versions (${r.updated ? `${r.updated} brought up to date, ` : ''}${r.unchanged} already there) and ${r.ledger.copied} ledger facts (${r.ledger.unchanged} already there), ${r.restored.ledgerPending} pending changes and ${r.restored.tombstones} tombstones of namespace ${r.namespace}; exports and ledgers match (sha256 ${r.targetDigest.slice(0, 16)})`
      : r.sourceDigest !== r.targetDigest
        ? `COPY NOT VERIFIED: exports differ (source ${r.sourceDigest.slice(0, 16)}, target ${r.targetDigest.slice(0, 16)}); ${r.forgotten ? `${r.forgotten} versions were forgotten in the target and stay forgotten` : 'the target holds other memories or lost data'}`
        : 'COPY NOT VERIFIED: the ledgers differ; the target holds other ledger facts or lost some',
};
