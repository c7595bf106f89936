import type Database from 'better-sqlite3';
import type { AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso, toIsoOrNull } from '../../domain/time.ts';
import type { ClaimResult, JobRecord, JobStore } from '../../ports/lifecycle.ts';
import { writeWithRetry } from './connection.ts';
import type { DerivedPlace } from './places.ts';
import { rowToMemory, type MemoryRow } from '../sql/rows.ts';
import type { Memory } from '../../domain/memory.ts';

type Row = Record<string, unknown>;

/**
 * Jobs in the database: a row per run, at most one running per name and
 * namespace (a partial unique index), claimed and renewed in IMMEDIATE
 * transactions so two processes can never both hold the lease.
 */
export class SqliteJobs implements JobStore {
  constructor(
    private readonly db: Database.Database,
    private readonly appendAudit: (p: Principal, draft: AuditDraft) => void,
  ) {}

  private owner(p: Principal): void {
    if (!readScope(p).all) throw new MnemosError('forbidden', 'only an owner may run or inspect lifecycle jobs');
  }

  async claim(p: Principal, name: string, holder: string, leaseMs: number, now: number, holderDead: (holder: string) => boolean): Promise<ClaimResult> {
    this.owner(p);
    const run = this.db.transaction((): ClaimResult => {
      const row = this.db.prepare("SELECT * FROM jobs WHERE namespace = ? AND name = ? AND status = 'running'").get(p.namespace, name) as Row | undefined;
      if (row) {
        const job = rowToJob(row);
        const expired = (row.lease_expires_at as number) < now;
        if (job.holder !== holder && !expired && !holderDead(job.holder)) return { busy: job };
        this.db.prepare('UPDATE jobs SET holder = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE id = ?').run(holder, now + leaseMs, job.id);
        return { claimed: { ...job, holder, leaseExpiresAt: toIso(now + leaseMs), attempts: job.attempts + 1 }, resumed: true };
      }
      const id = newId(now);
      this.db
        .prepare("INSERT INTO jobs (id, namespace, name, status, holder, lease_expires_at, attempts, started_at, state) VALUES (?, ?, ?, 'running', ?, ?, 1, ?, '{}')")
        .run(id, p.namespace, name, holder, now + leaseMs, now);
      return { claimed: rowToJob(this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(id) as Row), resumed: false };
    });
    return writeWithRetry(this.db, () => run.immediate());
  }

  async checkpoint(p: Principal, jobId: string, holder: string, phase: string, state: Record<string, unknown>, leaseMs: number, now: number): Promise<void> {
    this.owner(p);
    const changed = await writeWithRetry(this.db, 
      () =>
        this.db
          .prepare("UPDATE jobs SET phase = ?, state = ?, lease_expires_at = ? WHERE id = ? AND holder = ? AND status = 'running'")
          .run(phase, JSON.stringify(state), now + leaseMs, jobId, holder).changes,
    );
    if (changed === 0) throw new MnemosError('conflict', `job ${jobId} lease was lost to another runner`, { jobId });
  }

  async finish(p: Principal, jobId: string, holder: string, status: 'done' | 'failed', report: Record<string, unknown>, now: number): Promise<JobRecord> {
    this.owner(p);
    const run = this.db.transaction(() => {
      const row = this.db.prepare("SELECT * FROM jobs WHERE id = ? AND holder = ? AND status = 'running'").get(jobId, holder) as Row | undefined;
      if (!row) throw new MnemosError('conflict', `job ${jobId} lease was lost to another runner`, { jobId });
      const counts = (report.counts as Record<string, unknown> | undefined) ?? {};
      this.appendAudit(p, { action: 'consolidate', memoryId: null, beforeHash: null, afterHash: null, details: { job: jobId, name: row.name, status, counts } });
      const head = this.db.prepare('SELECT max(seq) AS s FROM audit_log').get() as { s: number | null };
      this.db.prepare('UPDATE jobs SET status = ?, finished_at = ?, report = ?, watermark = ? WHERE id = ?').run(status, now, JSON.stringify(report), head.s ?? 0, jobId);
      return rowToJob(this.db.prepare('SELECT * FROM jobs WHERE id = ?').get(jobId) as Row);
    });
    return writeWithRetry(this.db, () => run.immediate());
  }

  async last(p: Principal, name: string): Promise<JobRecord | null> {
    return (await this.list(p, name, 1))[0] ?? null;
  }

  async list(p: Principal, name: string, limit: number): Promise<JobRecord[]> {
    this.owner(p);
    return (this.db.prepare('SELECT * FROM jobs WHERE namespace = ? AND name = ? ORDER BY started_at DESC, id DESC LIMIT ?').all(p.namespace, name, limit) as Row[]).map(rowToJob);
  }

  async markExpired(p: Principal, lineageIds: string[], at: number, restart = false): Promise<void> {
    this.owner(p);
    const stmt = this.db.prepare(
      `INSERT INTO lifecycle_expired (lineage_id, namespace, expired_at) VALUES (?, ?, ?) ON CONFLICT(lineage_id) DO ${restart ? 'UPDATE SET expired_at = excluded.expired_at' : 'NOTHING'}`,
    );
    const run = this.db.transaction(() => {
      for (const id of lineageIds) stmt.run(id, p.namespace, at);
    });
    await writeWithRetry(this.db, () => run.immediate());
  }

  /** Rowid order reads the table sequentially; id order would read it at random when ids and rowids disagree. */
  async scanCurrent(p: Principal, cursor: string | null, limit: number): Promise<{ memories: Memory[]; cursor: string | null }> {
    this.owner(p);
    const rows = this.db
      // `+namespace` keeps the planner on the rowid range: with a namespace index it sorts the whole namespace for every page.
      .prepare('SELECT rowid AS _rowid, * FROM memories WHERE rowid > ? AND +namespace = ? AND superseded_at IS NULL ORDER BY rowid LIMIT ?')
      .all(cursor === null ? 0 : Number(cursor), p.namespace, limit) as (MemoryRow & { _rowid: number })[];
    return { memories: rows.map(rowToMemory), cursor: rows.length < limit ? null : String(rows[rows.length - 1]!._rowid) };
  }

  async dueForPurge(p: Principal, before: number, limit: number): Promise<string[]> {
    this.owner(p);
    return (this.db.prepare('SELECT lineage_id FROM lifecycle_expired WHERE namespace = ? AND expired_at <= ? ORDER BY expired_at LIMIT ?').all(p.namespace, before, limit) as { lineage_id: string }[]).map(
      (r) => r.lineage_id,
    );
  }
}

function rowToJob(r: Row): JobRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    namespace: r.namespace as string,
    status: r.status as JobRecord['status'],
    holder: r.holder as string,
    leaseExpiresAt: toIso(r.lease_expires_at as number),
    attempts: r.attempts as number,
    startedAt: toIso(r.started_at as number),
    finishedAt: toIsoOrNull(r.finished_at as number | null),
    phase: (r.phase as string | null) ?? null,
    state: JSON.parse(r.state as string),
    report: r.report ? JSON.parse(r.report as string) : null,
    watermark: (r.watermark as number | null) ?? null,
  };
}

/** The expiry ledger names forgotten lineages; a forget removes the row with the memory. */
export function expiryPlace(db: Database.Database): DerivedPlace {
  const count = db.prepare('SELECT count(*) AS n FROM lifecycle_expired WHERE lineage_id = ?');
  const del = db.prepare('DELETE FROM lifecycle_expired WHERE lineage_id = ?');
  return { name: 'expiry_ledger', count: (_r, _i, l) => (count.get(l) as { n: number }).n, remove: (_r, _i, l) => void del.run(l) };
}
