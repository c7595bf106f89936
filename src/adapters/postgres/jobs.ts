import type pg from 'pg';
import type { AuditDraft } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { readScope, type Principal } from '../../domain/principal.ts';
import { toIso, toIsoOrNull } from '../../domain/time.ts';
import type { ClaimResult, JobRecord, JobStore } from '../../ports/lifecycle.ts';
import { inTransaction, rows, withRetry, type PgConnection } from './connection.ts';
import type { PgPlace } from './places.ts';

type Row = Record<string, unknown>;

const RUNNING = "SELECT * FROM jobs WHERE namespace = $1 AND name = $2 AND status = 'running'";

/**
 * Jobs in PostgreSQL, the same rules as SqliteJobs: one running row per
 * (namespace, name), guarded by a partial unique index. A claimer locks the
 * running row with FOR UPDATE SKIP LOCKED: a row another process is claiming
 * right now is skipped, never waited for, and reported as busy.
 */
export class PgJobs implements JobStore {
  constructor(
    private readonly conn: PgConnection,
    private readonly appendAudit: (c: pg.PoolClient, p: Principal, draft: AuditDraft) => Promise<void>,
  ) {}

  private owner(p: Principal): void {
    if (!readScope(p).all) throw new MnemosError('forbidden', 'only an owner may run or inspect lifecycle jobs');
  }

  async claim(p: Principal, name: string, holder: string, leaseMs: number, now: number, holderDead: (holder: string) => boolean): Promise<ClaimResult> {
    this.owner(p);
    try {
      return await inTransaction(this.conn, async (c): Promise<ClaimResult> => {
        const [row] = await rows<Row>(c, `${RUNNING} FOR UPDATE SKIP LOCKED`, [p.namespace, name]);
        if (row) {
          const job = rowToJob(row);
          const expired = Number(row.lease_expires_at) < now;
          if (job.holder !== holder && !expired && !holderDead(job.holder)) return { busy: job };
          await c.query('UPDATE jobs SET holder = $1, lease_expires_at = $2, attempts = attempts + 1 WHERE id = $3', [holder, now + leaseMs, job.id]);
          return { claimed: { ...job, holder, leaseExpiresAt: toIso(now + leaseMs), attempts: job.attempts + 1 }, resumed: true };
        }
        const [locked] = await rows<Row>(c, RUNNING, [p.namespace, name]);
        if (locked) return { busy: rowToJob(locked) };
        const id = newId(now);
        const [created] = await rows<Row>(
          c,
          "INSERT INTO jobs (id, namespace, name, status, holder, lease_expires_at, attempts, started_at, state) VALUES ($1, $2, $3, 'running', $4, $5, 1, $6, '{}') RETURNING *",
          [id, p.namespace, name, holder, now + leaseMs, now],
        );
        return { claimed: rowToJob(created!), resumed: false };
      });
    } catch (err) {
      // Another process inserted the running row between our look-up and insert: it won.
      if (!MnemosError.is(err, 'conflict')) throw err;
      const [row] = await withRetry(this.conn.location, () => rows<Row>(this.conn.pool, RUNNING, [p.namespace, name]));
      if (!row) throw err;
      return { busy: rowToJob(row) };
    }
  }

  async checkpoint(p: Principal, jobId: string, holder: string, phase: string, state: Record<string, unknown>, leaseMs: number, now: number): Promise<void> {
    this.owner(p);
    const r = await withRetry(this.conn.location, () =>
      this.conn.pool.query("UPDATE jobs SET phase = $1, state = $2, lease_expires_at = $3 WHERE id = $4 AND holder = $5 AND status = 'running'", [
        phase,
        JSON.stringify(state),
        now + leaseMs,
        jobId,
        holder,
      ]),
    );
    if ((r.rowCount ?? 0) === 0) throw new MnemosError('conflict', `job ${jobId} lease was lost to another runner`, { jobId });
  }

  async finish(p: Principal, jobId: string, holder: string, status: 'done' | 'failed', report: Record<string, unknown>, now: number): Promise<JobRecord> {
    this.owner(p);
    return inTransaction(this.conn, async (c) => {
      const [row] = await rows<Row>(c, "SELECT * FROM jobs WHERE id = $1 AND holder = $2 AND status = 'running' FOR UPDATE", [jobId, holder]);
      if (!row) throw new MnemosError('conflict', `job ${jobId} lease was lost to another runner`, { jobId });
      const counts = (report.counts as Record<string, unknown> | undefined) ?? {};
      await this.appendAudit(c, p, { action: 'consolidate', memoryId: null, beforeHash: null, afterHash: null, details: { job: jobId, name: row.name, status, counts } });
      const [done] = await rows<Row>(c, 'UPDATE jobs SET status = $1, finished_at = $2, report = $3, watermark = (SELECT seq FROM audit_head) WHERE id = $4 RETURNING *', [
        status,
        now,
        JSON.stringify(report),
        jobId,
      ]);
      return rowToJob(done!);
    });
  }

  async last(p: Principal, name: string): Promise<JobRecord | null> {
    return (await this.list(p, name, 1))[0] ?? null;
  }

  async list(p: Principal, name: string, limit: number): Promise<JobRecord[]> {
    this.owner(p);
    const found = await withRetry(this.conn.location, () =>
      rows<Row>(this.conn.pool, 'SELECT * FROM jobs WHERE namespace = $1 AND name = $2 ORDER BY started_at DESC, id DESC LIMIT $3', [p.namespace, name, limit]),
    );
    return found.map(rowToJob);
  }

  async markExpired(p: Principal, lineageIds: string[], at: number, restart = false): Promise<void> {
    this.owner(p);
    if (lineageIds.length === 0) return;
    const onConflict = restart ? 'ON CONFLICT (lineage_id) DO UPDATE SET expired_at = EXCLUDED.expired_at' : 'ON CONFLICT DO NOTHING';
    await withRetry(this.conn.location, () =>
      this.conn.pool.query(`INSERT INTO lifecycle_expired (lineage_id, namespace, expired_at) SELECT unnest($1::text[]), $2, $3 ${onConflict}`, [lineageIds, p.namespace, at]),
    );
  }

  async dueForPurge(p: Principal, before: number, limit: number): Promise<string[]> {
    this.owner(p);
    const found = await withRetry(this.conn.location, () =>
      rows<{ lineage_id: string }>(this.conn.pool, 'SELECT lineage_id FROM lifecycle_expired WHERE namespace = $1 AND expired_at <= $2 ORDER BY expired_at LIMIT $3', [p.namespace, before, limit]),
    );
    return found.map((r) => r.lineage_id);
  }
}

function rowToJob(r: Row): JobRecord {
  return {
    id: r.id as string,
    name: r.name as string,
    namespace: r.namespace as string,
    status: r.status as JobRecord['status'],
    holder: r.holder as string,
    leaseExpiresAt: toIso(Number(r.lease_expires_at)),
    attempts: r.attempts as number,
    startedAt: toIso(Number(r.started_at)),
    finishedAt: toIsoOrNull(r.finished_at as number | null),
    phase: (r.phase as string | null) ?? null,
    state: JSON.parse(r.state as string),
    report: r.report ? JSON.parse(r.report as string) : null,
    watermark: (r.watermark as number | null) ?? null,
  };
}

/** The expiry ledger names forgotten lineages; a forget removes the row with the memory. */
export function expiryPgPlace(): PgPlace {
  return {
    name: 'expiry_ledger',
    count: async (c, _ids, lineageId) => Number((await c.query<{ n: number }>('SELECT count(*) AS n FROM lifecycle_expired WHERE lineage_id = $1', [lineageId])).rows[0]?.n ?? 0),
    remove: async (c, _ids, lineageId) => void (await c.query('DELETE FROM lifecycle_expired WHERE lineage_id = $1', [lineageId])),
  };
}
