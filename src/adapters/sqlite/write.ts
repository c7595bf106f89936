import type Database from 'better-sqlite3';
import { actorOf, chainEntry, type AuditDraft, type AuditEntry } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { claimsHash } from '../../domain/memory-claims.ts';
import { sameScope, type Memory } from '../../domain/memory.ts';
import { canWrite, withArticle, type Principal } from '../../domain/principal.ts';
import { toIso, toMs } from '../../domain/time.ts';
import type { ForgetFootprint, WriteOp, WriteResult } from '../../ports/store.ts';
import { MEMORY_COLUMNS, memoryToRow, rowToMemory, retiredAt, supersededAtMs, type MemoryRow } from '../sql/rows.ts';
import type { DerivedPlace } from './places.ts';
import { importanceMoved, keyHoldsOtherFields, mayForgetReadOnly, sourceHeldByOther } from '../sql/write-errors.ts';
import { MIRROR_COLUMNS, planMirror } from '../sql/mirror.ts';
import { checksForgotten, forgottenResult, forgottenSources, forgottenSourceRows, tombstoneVersionIds } from '../sql/forgotten-sources.ts';
import { vectorToBytes } from '../vector-scan.ts';
import { restoreSqlite } from './restore.ts';

/**
 * Applies a batch of write operations in the caller's transaction. Every
 * change appends its audit entry in the same transaction, so the log and the
 * data can never disagree about what happened.
 */
export class SqliteWriter {
  private readonly insertMemory: Database.Statement;
  private readonly insertFts: Database.Statement;
  private readonly logRows: Database.Statement;
  private readonly byId: Database.Statement;
  private readonly currentBySource: Database.Statement;
  private readonly heldByOther: Database.Statement;
  private readonly insertVector: Database.Statement;
  private readonly insertAudit: Database.Statement;
  private readonly auditHead: Database.Statement;
  private setLifecycle: Database.Statement | undefined;
  private touchRow: Database.Statement | undefined;
  private lifecycleRow: Database.Statement | undefined;
  private closeVersion: Database.Statement | undefined;
  private anyTombstone: Database.Statement | undefined;
  private forgottenId: Database.Statement | undefined;
  private forgottenKey: Database.Statement | undefined;

  constructor(
    private readonly db: Database.Database,
    private readonly analyze: (text: string) => string[],
    private readonly places: () => DerivedPlace[],
  ) {
    this.insertMemory = db.prepare(`INSERT INTO memories (${MEMORY_COLUMNS.join(', ')}) VALUES (${MEMORY_COLUMNS.map(() => '?').join(', ')})`);
    this.insertFts = db.prepare('INSERT INTO memories_fts (rowid, terms) VALUES (?, ?)');
    this.logRows = db.prepare('INSERT INTO memory_log (memory_rowid) SELECT value FROM json_each(?)');
    this.byId = db.prepare('SELECT rowid, * FROM memories WHERE id = ?');
    // The id and hash decide; the whole row (text, metadata...) is read only for a change. A re-import compares every line.
    this.currentBySource = db.prepare('SELECT id, content_hash FROM memories WHERE namespace = ? AND owner_id = ? AND source_key = ? AND superseded_at IS NULL');
    this.insertVector = db.prepare('INSERT OR REPLACE INTO memory_vectors (memory_rowid, model, vector) VALUES (?, ?, ?)');
    this.heldByOther = db.prepare('SELECT 1 FROM memories WHERE namespace = ? AND source_key = ? AND superseded_at IS NULL AND owner_id <> ? LIMIT 1');
    this.insertAudit = db.prepare(
      'INSERT INTO audit_log (seq, at, actor, namespace, action, memory_id, before_hash, after_hash, details, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    this.auditHead = db.prepare('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
  }

  /**
   * Full-text rows of this batch, written together at its end. FTS5 flushes
   * its pending terms to disk whenever a statement opens a savepoint (the
   * vector insert does: it fires the change-log trigger), so interleaving
   * them wrote, and then merged, a one-row segment per memory: the cost grew
   * with the index until ingest slowed threefold at 100k memories.
   */
  private pendingFts: { rowid: number | bigint; terms: string }[] = [];

  /** Must run inside a transaction. */
  applyAll(p: Principal, ops: WriteOp[], now: number): WriteResult[] {
    const ctx: BatchContext = { p, now, at: toIso(now), head: (this.auditHead.get() as { seq: number; hash: string } | undefined) ?? null };
    this.pendingFts = [];
    const results = ops.map((op) => this.applyOne(ctx, op));
    this.flushFts();
    return results;
  }

  /** Also logs the batch's new rows in memory_log (what keeps every process's keyword copy in step), in one statement. */
  private flushFts(): void {
    if (this.pendingFts.length === 0) return;
    for (const f of this.pendingFts) this.insertFts.run(f.rowid, f.terms);
    this.logRows.run(JSON.stringify(this.pendingFts.map((f) => Number(f.rowid))));
    this.pendingFts = [];
  }

  private applyOne(ctx: BatchContext, op: WriteOp): WriteResult {
    switch (op.kind) {
      case 'insert':
        return this.insert(ctx, op);
      case 'update':
        return this.update(ctx, op.previousId, op.next, op.action, op.reason, op.vector);
      case 'lifecycle':
        return this.lifecycle(ctx, op);
      case 'retire':
        return this.retire(ctx, op.id, op.reason, op.at);
      case 'forget':
        this.flushFts(); // a memory written earlier in this batch must be in the index before forget removes it from there
        return { kind: 'forget', lineageId: op.lineageId, removed: this.forget(ctx, op.lineageId, op.reason, op.readOnlyOfOthers === true) };
      case 'touch':
        return { kind: 'touch', count: this.touch(ctx, op.ids, toMs(op.at)) };
      case 'mirror':
        return this.mirror(ctx, op.memory);
      case 'record':
        this.audit(ctx, op.audit);
        return { kind: 'record' };
      case 'restore': {
        const result = restoreSqlite(this.db, ctx.p, op.record, (draft) => this.audit(ctx, draft));
        // A tombstone restored earlier in this batch holds for the inserts after it.
        if (op.record.what === 'tombstone') ctx.tombstones = true;
        return result;
      }
    }
  }

  private insert(ctx: BatchContext, op: Extract<WriteOp, { kind: 'insert' }>): WriteResult {
    const m = op.memory;
    this.assertWritable(ctx.p, m);
    const sameId = this.byId.get(m.id) as MemoryRow | undefined;
    if (sameId) {
      if (sameId.content_hash === m.contentHash && sameId.namespace === m.namespace) return { kind: 'insert', id: m.id, status: 'unchanged' };
      throw new MnemosError('conflict', `a memory with id ${m.id} already exists with different content`, { id: m.id });
    }
    if (m.sourceKey !== null && m.supersededAt === null) {
      const existing = this.currentBySource.get(m.namespace, m.ownerId, m.sourceKey) as { id: string; content_hash: string } | undefined;
      if (!existing && ctx.p.role !== 'owner' && this.heldByOther.get(m.namespace, m.sourceKey, m.ownerId)) throw sourceHeldByOther(m.sourceKey);
      if (existing) {
        if (existing.content_hash === m.contentHash) {
          const other = op.onExistingSource === 'conflict' ? keyHoldsOtherFields(rowToMemory(this.byId.get(existing.id) as MemoryRow), m) : null;
          if (other) throw other;
          return { kind: 'insert', id: existing.id, status: 'unchanged' };
        }
        if (op.onExistingSource === 'conflict') {
          throw new MnemosError('conflict', `source key "${m.sourceKey}" was already used with different content; use a new key or update memory ${existing.id}`, {
            sourceKey: m.sourceKey,
            existingId: existing.id,
          });
        }
        if (op.onExistingSource === 'supersede') {
          // The source says again what was forgotten from it: what it said meanwhile is closed, nothing is written.
          const gone = checksForgotten(op) ? this.forgottenLineage(ctx, m, op.filePath) : null;
          if (gone !== null) {
            this.retire(ctx, existing.id, 'its source holds forgotten text again');
            return forgottenResult(gone, existing.id);
          }
          const prev = rowToMemory(this.byId.get(existing.id) as MemoryRow);
          const next: Memory = { ...m, lineageId: prev.lineageId, version: prev.version + 1 };
          this.update(ctx, prev.id, next, 'supersede', 'source changed', op.vector);
          return { kind: 'insert', id: next.id, status: 'superseded', previousId: prev.id };
        }
        return { kind: 'insert', id: existing.id, status: 'unchanged' };
      }
    }
    if (checksForgotten(op)) {
      const gone = this.forgottenLineage(ctx, m, op.filePath);
      if (gone !== null) return forgottenResult(gone);
    } else this.liftForgotten(ctx, m, op.filePath);
    this.writeRow(m, op.vector);
    this.audit(ctx, { action: 'create', memoryId: m.id, beforeHash: null, afterHash: m.contentHash, details: { lineageId: m.lineageId, type: m.type, origin: m.origin, ...op.audit?.details, claims: claimsHash(m) } });
    return { kind: 'insert', id: m.id, status: 'created' };
  }

  /** The forgotten lineage this new row would bring back (by its id, or its source key and text), or null. */
  private forgottenLineage(ctx: BatchContext, m: Memory, filePath?: string): string | null {
    if (!this.hasTombstones(ctx)) return null;
    this.forgottenId ??= this.db.prepare('SELECT t.lineage_id FROM tombstone_ids i JOIN tombstones t ON t.lineage_id = i.lineage_id WHERE i.id = ? AND t.namespace = ?');
    const byId = this.forgottenId.get(m.id, m.namespace) as { lineage_id: string } | undefined;
    if (byId) return byId.lineage_id;
    this.forgottenKey ??= this.db.prepare('SELECT lineage_id FROM tombstone_sources WHERE namespace = ? AND owner_id = ? AND source_digest = ? AND content_hash = ? LIMIT 1');
    for (const source of forgottenSources(m, filePath)) {
      const byKey = this.forgottenKey.get(...source) as { lineage_id: string } | undefined;
      if (byKey) return byKey.lineage_id;
    }
    return null;
  }

  /** Most namespaces never forget anything: one look per batch spares every insert its tombstone look-ups. */
  private hasTombstones(ctx: BatchContext): boolean {
    ctx.tombstones ??= (this.anyTombstone ??= this.db.prepare('SELECT 1 FROM tombstones WHERE namespace = ? LIMIT 1')).get(ctx.p.namespace) !== undefined;
    return ctx.tombstones;
  }

  /** A restore on purpose: what it writes is no longer forgotten (its id, its source key with its text). */
  private liftForgotten(ctx: BatchContext, m: Memory, filePath?: string): void {
    if (!this.hasTombstones(ctx)) return;
    this.db.prepare('DELETE FROM tombstone_ids WHERE id = ?').run(m.id);
    for (const source of forgottenSources(m, filePath)) this.db.prepare('DELETE FROM tombstone_sources WHERE namespace = ? AND owner_id = ? AND source_digest = ? AND content_hash = ?').run(...source);
  }

  private update(ctx: BatchContext, previousId: string, next: Memory, action: 'update' | 'supersede', reason?: string, vector?: { model: string; vector: Float32Array }): WriteResult {
    const row = this.byId.get(previousId) as MemoryRow | undefined;
    if (!row) throw new MnemosError('not_found', `memory ${previousId} does not exist`, { id: previousId });
    const prev = rowToMemory(row);
    this.assertWritable(ctx.p, prev);
    if (prev.readOnly) throw new MnemosError('read_only', `memory ${prev.id} is read-only (${prev.labels.join(', ') || 'protected'}) and cannot be changed`, { id: prev.id });
    if (prev.supersededAt !== null) {
      throw new MnemosError('conflict', `memory ${prev.id} was already replaced by ${prev.supersededBy ?? 'a newer version'}; edit the current version`, { id: prev.id, supersededBy: prev.supersededBy });
    }
    if (next.lineageId !== prev.lineageId || next.version !== prev.version + 1) throw new MnemosError('internal', 'a new version must continue the lineage of the one it replaces');
    (this.closeVersion ??= this.db.prepare('UPDATE memories SET superseded_at = ?, superseded_by = ? WHERE id = ?')).run(supersededAtMs(prev, next), next.id, prev.id);
    if (!sameScope(prev, next)) for (const place of this.places()) place.rescoped?.(prev.lineageId);
    this.writeRow(next, vector);
    this.audit(ctx, {
      action,
      memoryId: next.id,
      beforeHash: prev.contentHash,
      afterHash: next.contentHash,
      details: { lineageId: prev.lineageId, previousId: prev.id, version: next.version, claims: claimsHash(next), ...(reason ? { reason } : {}) },
    });
    return { kind: 'update', id: next.id, previousId: prev.id };
  }

  private lifecycle(ctx: BatchContext, op: Extract<WriteOp, { kind: 'lifecycle' }>): WriteResult {
    // Only the columns this check needs: a consolidation sends tens of thousands of these.
    const row = (this.lifecycleRow ??= this.db.prepare('SELECT id, namespace, owner_id AS ownerId, lifecycle, importance, content_hash AS contentHash FROM memories WHERE id = ?')).get(op.id) as
      | { id: string; namespace: string; ownerId: string; lifecycle: string; importance: number; contentHash: string }
      | undefined;
    if (!row) throw new MnemosError('not_found', `memory ${op.id} does not exist`, { id: op.id });
    const m = row;
    this.assertWritable(ctx.p, m);
    if (m.lifecycle !== op.from) throw new MnemosError('conflict', `memory ${op.id} is ${m.lifecycle}, not ${op.from}`, { id: op.id });
    if (op.fromImportance !== undefined && m.importance !== op.fromImportance) throw importanceMoved(op.id);
    // Cached: a consolidation moves tens of thousands of memories in one run.
    (this.setLifecycle ??= this.db.prepare('UPDATE memories SET lifecycle = ?, importance = coalesce(?, importance) WHERE id = ?')).run(op.to, op.importance ?? null, op.id);
    this.audit(ctx, { action: 'lifecycle', memoryId: op.id, beforeHash: m.contentHash, afterHash: m.contentHash, details: { from: op.from, to: op.to, reason: op.reason } });
    return { kind: 'lifecycle', id: op.id };
  }

  private retire(ctx: BatchContext, id: string, reason: string, at?: string): WriteResult {
    const row = this.byId.get(id) as MemoryRow | undefined;
    if (!row) throw new MnemosError('not_found', `memory ${id} does not exist`, { id });
    const m = rowToMemory(row);
    this.assertWritable(ctx.p, m);
    if (m.readOnly) throw new MnemosError('read_only', `memory ${id} is read-only and cannot be retired`, { id });
    if (m.supersededAt !== null) return { kind: 'retire', id };
    this.db.prepare('UPDATE memories SET superseded_at = ? WHERE id = ?').run(retiredAt(m, at, ctx.now), id);
    this.audit(ctx, { action: 'supersede', memoryId: id, beforeHash: m.contentHash, afterHash: null, details: { lineageId: m.lineageId, reason } });
    return { kind: 'retire', id };
  }

  private mirror(ctx: BatchContext, source: Memory): WriteResult {
    const row = this.byId.get(source.id) as MemoryRow | undefined;
    if (!row) throw new MnemosError('not_found', `memory ${source.id} does not exist`, { id: source.id });
    const target = rowToMemory(row);
    this.assertWritable(ctx.p, target);
    const plan = planMirror(target, source);
    if (!plan.changed) return { kind: 'mirror', id: source.id, changed: false };
    this.db.prepare(`UPDATE memories SET ${MIRROR_COLUMNS.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`).run(...plan.values, source.id);
    for (const a of plan.audits) this.audit(ctx, { ...a, memoryId: source.id });
    return { kind: 'mirror', id: source.id, changed: true };
  }

  private touch(ctx: BatchContext, ids: string[], at: number): number {
    // Access statistics are not content: they change no hash and write no audit entry.
    // Every recall (each GET of a memory) touches: the statement is kept, as preparing it cost more than running it.
    const stmt = (this.touchRow ??= this.db.prepare('UPDATE memories SET access_count = access_count + 1, last_accessed_at = ? WHERE id = ? AND namespace = ?'));
    let n = 0;
    for (const id of ids) n += stmt.run(at, id, ctx.p.namespace).changes;
    return n;
  }

  /** Counts what a forget would remove, place by place. */
  footprint(lineageId: string, namespace: string): ForgetFootprint | null {
    const rows = this.db.prepare('SELECT rowid, id, content_hash FROM memories WHERE lineage_id = ? AND namespace = ? ORDER BY version').all(lineageId, namespace) as {
      rowid: number;
      id: string;
      content_hash: string;
    }[];
    if (rows.length === 0) return null;
    const places: Record<string, number> = {};
    for (const place of this.places()) places[place.name] = place.count(rows.map((r) => r.rowid), rows.map((r) => r.id), lineageId);
    return { lineageId, versionIds: rows.map((r) => r.id), contentHashes: [...new Set(rows.map((r) => r.content_hash))], places };
  }

  private forget(ctx: BatchContext, lineageId: string, reason: string, readOnlyOfOthers: boolean): ForgetFootprint {
    const fp = this.footprint(lineageId, ctx.p.namespace);
    if (!fp) throw new MnemosError('not_found', `memory ${lineageId} does not exist`, { id: lineageId });
    const versions = fp.versionIds.map((id) => rowToMemory(this.byId.get(id) as MemoryRow));
    const current = versions[versions.length - 1]!;
    this.assertWritable(ctx.p, current);
    if (versions.some((v) => v.readOnly) && !mayForgetReadOnly(ctx.p, versions, readOnlyOfOthers)) throw new MnemosError('read_only', `memory ${lineageId} is read-only (${current.labels.join(', ') || 'protected'}) and cannot be forgotten`, { id: lineageId });
    const rowids = (this.db.prepare('SELECT rowid FROM memories WHERE lineage_id = ? AND namespace = ?').all(lineageId, ctx.p.namespace) as { rowid: number }[]).map((r) => r.rowid);
    for (const place of this.places()) place.remove(rowids, fp.versionIds, lineageId);
    const actor = actorOf(ctx.p);
    // A lineage restored on purpose and forgotten again has a tombstone already: it is renewed, listing both forgets' versions.
    const prior = this.db.prepare('SELECT version_ids FROM tombstones WHERE lineage_id = ?').pluck().get(lineageId) as string | undefined;
    this.db
      .prepare(
        `INSERT INTO tombstones (lineage_id, namespace, owner_id, agent_id, visibility, version_ids, content_hash, forgotten_at, actor, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT(lineage_id) DO UPDATE SET namespace = excluded.namespace, owner_id = excluded.owner_id, agent_id = excluded.agent_id, visibility = excluded.visibility,
           version_ids = excluded.version_ids, content_hash = excluded.content_hash, forgotten_at = excluded.forgotten_at, actor = excluded.actor, reason = excluded.reason`,
      )
      .run(lineageId, current.namespace, current.ownerId, current.agentId, current.visibility, tombstoneVersionIds(prior, fp.versionIds), current.contentHash, ctx.at, actor, reason);
    const source = this.db.prepare('INSERT OR IGNORE INTO tombstone_sources (namespace, owner_id, source_digest, content_hash, lineage_id) VALUES (?, ?, ?, ?, ?)');
    for (const row of forgottenSourceRows(versions, lineageId)) source.run(...row);
    ctx.tombstones = true;
    const mark = this.db.prepare('INSERT OR IGNORE INTO tombstone_ids (id, lineage_id) VALUES (?, ?)');
    for (const id of fp.versionIds) mark.run(id, lineageId);
    this.audit(ctx, { action: 'forget', memoryId: lineageId, beforeHash: current.contentHash, afterHash: null, details: { reason, versionIds: fp.versionIds, contentHashes: fp.contentHashes, removed: fp.places } });
    return fp;
  }

  private writeRow(m: Memory, vector?: { model: string; vector: Float32Array }): void {
    const terms = this.analyze(m.text);
    const info = this.insertMemory.run(...memoryToRow(m, terms.length));
    this.pendingFts.push({ rowid: info.lastInsertRowid, terms: terms.join(' ') });
    if (vector) this.insertVector.run(info.lastInsertRowid, vector.model, vectorToBytes(vector.vector));
  }

  private assertWritable(p: Principal, m: Pick<Memory, 'namespace' | 'ownerId' | 'id'>): void {
    if (!canWrite(p, m)) {
      if (m.namespace !== p.namespace) throw new MnemosError('forbidden', `memory ${m.id} belongs to another namespace`, { id: m.id });
      throw new MnemosError('forbidden', `${withArticle(p.role)} may only change memories it wrote; memory ${m.id} belongs to ${m.ownerId}`, { id: m.id });
    }
  }

  private audit(ctx: BatchContext, draft: AuditDraft): void {
    const entry: AuditEntry = chainEntry(ctx.head, draft, { at: ctx.at, actor: actorOf(ctx.p), namespace: ctx.p.namespace });
    this.insertAudit.run(entry.seq, entry.at, entry.actor, entry.namespace, entry.action, entry.memoryId, entry.beforeHash, entry.afterHash, JSON.stringify(entry.details), entry.prevHash, entry.hash);
    ctx.head = { seq: entry.seq, hash: entry.hash };
  }

  /** For other parts of the adapter that mutate (pins, jobs) and must log in the same chain. */
  appendAudit(p: Principal, draft: AuditDraft, now: number): void {
    const ctx: BatchContext = { p, now, at: toIso(now), head: (this.auditHead.get() as { seq: number; hash: string } | undefined) ?? null };
    this.audit(ctx, draft);
  }
}

interface BatchContext {
  p: Principal;
  now: number;
  at: string;
  head: { seq: number; hash: string } | null;
  /** Whether the namespace has tombstones: looked up by the first insert that asks, set by a forget. */
  tombstones?: boolean;
}

