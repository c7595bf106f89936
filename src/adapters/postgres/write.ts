import type pg from 'pg';
import { actorOf, chainEntry, type AuditDraft, type AuditEntry } from '../../domain/audit.ts';
import { MnemosError } from '../../domain/errors.ts';
import { claimsHash } from '../../domain/memory-claims.ts';
import { sameScope, type Memory } from '../../domain/memory.ts';
import { canWrite, withArticle, type Principal } from '../../domain/principal.ts';
import { toIso, toMs } from '../../domain/time.ts';
import type { ForgetFootprint, WriteOp, WriteResult } from '../../ports/store.ts';
import { MEMORY_COLUMNS, memoryToRow, rowToMemory, retiredAt, supersededAtMs, type MemoryRow } from '../sql/rows.ts';
import { rows } from './connection.ts';
import { addToTermStats, termStatsSql } from './fts.ts';
import type { PgPlace } from './places.ts';
import { importanceMoved, keyHoldsOtherFields, mayForgetReadOnly, sourceHeldByOther } from '../sql/write-errors.ts';
import { packVectors, writeVectors } from './vectors.ts';
import { KnownRows } from './known-rows.ts';
import { restorePg } from './restore.ts';
import { MIRROR_COLUMNS, planMirror } from '../sql/mirror.ts';
import { checksForgotten, forgottenResult, forgottenSourceRows, forgottenSources, tombstoneVersionIds } from '../sql/forgotten-sources.ts';

const INSERT_COLUMNS = [...MEMORY_COLUMNS, 'terms'] as const;
const INSERT_SQL = `INSERT INTO memories (${INSERT_COLUMNS.join(', ')}) VALUES (${INSERT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')}) RETURNING row_no`;
const SELECT_COLUMNS = MEMORY_COLUMNS.join(', ');

type InsertOp = Extract<WriteOp, { kind: 'insert' }>;

/** See PgWriter.planBulk. */
export interface BulkPlan {
  inserts: InsertOp[];
  /** The inserts' memories that carry a current source key. */
  keyed: Memory[];
  /** One array per INSERT_COLUMNS entry. */
  columns: unknown[][];
}

/** A write-time vector as a batch op carries it (see withVectors in services/embeddings.ts). */
type OpVector = { model: string; vector: Float32Array } | undefined;

interface BatchContext {
  c: pg.PoolClient;
  p: Principal;
  now: number;
  at: string;
  head: { seq: number; hash: string } | null;
  /** Rows written by this batch; their terms join the BM25 statistics at the end. */
  written: string[];
  /** The inserts' look-ups, read at once (see KnownRows); null when each op looks up its own. */
  known: KnownRows | null;
  /** Whether the namespace has tombstones: looked up by the first insert that asks, set by a forget. */
  tombstones?: boolean;
}

/** Each column's SQL type, for the array parameters of the bulk insert. */
const COLUMN_TYPES: Record<(typeof INSERT_COLUMNS)[number], string> = {
  id: 'text', lineage_id: 'text', version: 'int', text: 'text', content_hash: 'text', type: 'text', importance: 'float8',
  access_count: 'int', last_accessed_at: 'int8', emotional_valence: 'float8', salience: 'float8', lifecycle: 'text',
  valid_from: 'int8', valid_to: 'int8', recorded_at: 'int8', superseded_at: 'int8', superseded_by: 'text', origin: 'text',
  source: 'text', source_key: 'text', namespace: 'text', owner_id: 'text', agent_id: 'text', session_id: 'text',
  visibility: 'text', labels: 'jsonb', read_only: 'int', tags: 'jsonb', metadata: 'text', expires_at: 'int8', doc_len: 'int', terms: 'text',
};

const AUDIT_COLUMNS = 'seq, at, actor, namespace, action, memory_id, before_hash, after_hash, details, prev_hash, hash';
const AUDIT_ARRAYS = (first: number): string =>
  ['int8', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text', 'text'].map((t, i) => `$${first + i}::${t}[]`).join(', ');

/**
 * The whole ingest fast path in one statement: the rows, their BM25
 * statistics, their vectors, their audit entries and the new chain head.
 * Values go as one array per column, unnested on the server (a 1,000-row
 * VALUES list has 32,000 parameters, which PostgreSQL spent more time
 * planning and binding than inserting), and one statement is one round trip
 * while holding the chain head lock that every writer queues for. The
 * vectors' foreign key and change-log trigger run at the end of the
 * statement, when the rows are there.
 */
const N_COLS = INSERT_COLUMNS.length;
/**
 * Memories per bulk statement. A PostgreSQL message may not exceed 1 GB, and
 * an import of a large file is one call (one transaction): chunks keep each
 * statement to a few megabytes, all in the caller's transaction.
 */
const BULK_CHUNK = 2000;
const BULK_WRITE_SQL = `WITH ins AS (
    INSERT INTO memories (${INSERT_COLUMNS.join(', ')}) SELECT * FROM unnest(${INSERT_COLUMNS.map((c, i) => `$${i + 1}::${COLUMN_TYPES[c]}[]`).join(', ')})
    RETURNING id, row_no, tsv, doc_len),
  ${termStatsSql('ins')},
  vec AS (INSERT INTO memory_vectors (memory_row, model, vector)
    SELECT ins.row_no, v.model, substring($${N_COLS + 5}::bytea FROM v.start FOR v.len)
    FROM unnest($${N_COLS + 1}::text[], $${N_COLS + 2}::text[], $${N_COLS + 3}::int[], $${N_COLS + 4}::int[]) AS v(id, model, start, len) JOIN ins ON ins.id = v.id
    ON CONFLICT (memory_row, model) DO UPDATE SET vector = excluded.vector),
  aud AS (INSERT INTO audit_log (${AUDIT_COLUMNS}) SELECT * FROM unnest(${AUDIT_ARRAYS(N_COLS + 6)})),
  head AS (UPDATE audit_head SET seq = $${N_COLS + 17}, hash = $${N_COLS + 18} WHERE one)
  SELECT count(*) AS written FROM ins`;

/**
 * Applies a batch of write operations on the caller's transaction client.
 * The same rules as the SQLite writer; every change appends its audit entry
 * in the same transaction. The chain head row is locked first (FOR UPDATE),
 * which serialises writers across processes: no forked chain, and the
 * source-key look-ups below always see the latest committed rows.
 */
export class PgWriter {
  constructor(
    private readonly analyze: (text: string) => string[],
    private readonly places: () => PgPlace[],
  ) {}

  /**
   * Must run inside a transaction. `plan` is planBulk's answer for these ops;
   * callers work it out before they open the transaction.
   */
  async applyAll(c: pg.PoolClient, p: Principal, ops: WriteOp[], now: number, plan: BulkPlan | null = this.planBulk(p, ops)): Promise<WriteResult[]> {
    const ctx: BatchContext = { c, p, now, at: toIso(now), head: null, written: [], known: null };
    const logged = ops.some((op) => op.kind !== 'touch');
    if (logged) ctx.head = await lockHead(c);
    // The bulk statement writes the chain head itself; the general path saves it at the end.
    const bulk = plan ? await this.bulkInsert(ctx, plan) : null;
    const out = bulk ?? [];
    // An export's ledger and tombstone records after its memories (restore ops) follow the bulk statement one by one.
    const tail = bulk ? ops.slice(plan!.inserts.length) : [];
    for (const op of tail) out.push(await this.applyOne(ctx, op));
    if (!bulk) {
      if (ops.filter((op) => op.kind === 'insert').length > 1) ctx.known = await KnownRows.read(c, ops);
      for (const op of ops) {
        // Other kinds of op change rows in ways the known set does not follow: from here on, each insert looks up its own.
        if (op.kind !== 'insert') ctx.known = null;
        out.push(await this.applyOne(ctx, op));
      }
    }
    await addToTermStats(c, ctx.written);
    if (logged && (!bulk || tail.length > 0)) await saveHead(c, ctx.head);
    return out;
  }

  /**
   * The part of the ingest fast path that needs no database: whether a batch
   * qualifies (plain inserts, distinct ids and keys, all writable) and its
   * rows as column arrays. Working this out before the transaction shortens
   * the time a writer holds the chain head lock that every writer queues for.
   */
  planBulk(p: Principal, ops: WriteOp[]): BulkPlan | null {
    // Inserts, then only restore ops (an import of an export: its memories, then its ledger and tombstones).
    const restores = ops.findIndex((op) => op.kind === 'restore');
    const inserts = (restores < 0 ? ops : ops.slice(0, restores)) as InsertOp[];
    if (inserts.length === 0 || !inserts.every((op) => op.kind === 'insert') || !ops.slice(inserts.length).every((op) => op.kind === 'restore')) return null;
    const mems = inserts.map((op) => op.memory);
    const keyed = mems.filter((m) => m.sourceKey !== null && m.supersededAt === null);
    // Keys written by guests and agents need the held-by-another-principal check of the one-by-one path.
    if (keyed.length > 0 && p.role !== 'owner') return null;
    const keys = new Set(keyed.map((m) => JSON.stringify([m.namespace, m.ownerId, m.sourceKey])));
    if (new Set(mems.map((m) => m.id)).size !== mems.length || keys.size !== keyed.length) return null;
    for (const m of mems) this.assertWritable(p, m);
    const columns: unknown[][] = INSERT_COLUMNS.map(() => []);
    for (const m of mems) {
      const terms = this.analyze(m.text);
      const row = memoryToRow(m, terms.length);
      for (let j = 0; j < row.length; j++) columns[j]!.push(row[j]);
      columns[row.length]!.push(terms.join(' '));
    }
    return { inserts, keyed, columns };
  }

  /**
   * The fast path for new memories (a batch, or one memory over HTTP): when
   * no id and no current source key of the plan exists yet, everything is
   * written by one statement (BULK_WRITE_SQL) after this look-up, instead of
   * several round trips per memory. Otherwise it returns null and the general
   * path gives the same results one op at a time.
   */
  private async bulkInsert(ctx: BatchContext, plan: BulkPlan): Promise<WriteResult[] | null> {
    const { inserts, keyed, columns } = plan;
    const mems = inserts.map((op) => op.memory);
    const sources = inserts.flatMap((op) => forgottenSources(op.memory, op.filePath));
    // Both look-ups use indexes: the primary key and the partial unique index on current source keys.
    // A forgotten id or source (with its text) also sends the batch to the general path, which answers it `forgotten`.
    const clash = await rows<{ n: number }>(
      ctx.c,
      `SELECT (SELECT count(*) FROM memories WHERE id = ANY($1::text[]))
            + (SELECT count(*) FROM memories m JOIN unnest($2::text[], $3::text[], $4::text[]) AS k(ns, ow, sk) ON m.namespace = k.ns AND m.owner_id = k.ow AND m.source_key = k.sk
               WHERE m.source_key IS NOT NULL AND m.superseded_at IS NULL)
            + (SELECT count(*) FROM tombstone_ids WHERE id = ANY($1::text[]))
            + (SELECT count(*) FROM tombstone_sources t JOIN unnest($5::text[], $6::text[], $7::text[], $8::text[]) AS k(ns, ow, sd, ch) ON t.namespace = k.ns AND t.owner_id = k.ow AND t.source_digest = k.sd AND t.content_hash = k.ch) AS n`,
      [
        mems.map((m) => m.id),
        keyed.map((m) => m.namespace),
        keyed.map((m) => m.ownerId),
        keyed.map((m) => m.sourceKey),
        sources.map((s) => s[0]),
        sources.map((s) => s[1]),
        sources.map((s) => s[2]),
        sources.map((s) => s[3]),
      ],
    );
    if ((clash[0]?.n ?? 0) > 0) return null;
    for (let at = 0; at < inserts.length; at += BULK_CHUNK) {
      const part = inserts.slice(at, at + BULK_CHUNK);
      const entries = part.map((op) => {
        const m = op.memory;
        const e = chainEntry(ctx.head, { action: 'create', memoryId: m.id, beforeHash: null, afterHash: m.contentHash, details: { lineageId: m.lineageId, type: m.type, origin: m.origin, ...op.audit?.details, claims: claimsHash(m) } }, {
          at: ctx.at,
          actor: actorOf(ctx.p),
          namespace: ctx.p.namespace,
        });
        ctx.head = { seq: e.seq, hash: e.hash };
        return e;
      });
      const withVector = part.filter((op) => op.vector);
      const packed = packVectors(withVector.map((op) => op.vector!.vector));
      const done = await rows<{ written: string }>(ctx.c, BULK_WRITE_SQL, [
        ...columns.map((c) => (part.length === inserts.length ? c : c.slice(at, at + BULK_CHUNK))),
        withVector.map((op) => op.memory.id),
        withVector.map((op) => op.vector!.model),
        packed.starts,
        packed.lengths,
        packed.bytes,
        ...auditArrays(entries),
        ctx.head!.seq,
        ctx.head!.hash,
      ]);
      if (Number(done[0]?.written) !== part.length) throw new MnemosError('internal', `the bulk write stored ${done[0]?.written} of ${part.length} memories`);
    }
    return mems.map((m) => ({ kind: 'insert', id: m.id, status: 'created' }));
  }

  /** For other parts of the adapter (tokens) that mutate and must log in the same chain. */
  async appendAudit(c: pg.PoolClient, p: Principal, draft: AuditDraft, now: number): Promise<void> {
    const ctx: BatchContext = { c, p, now, at: toIso(now), head: await lockHead(c), written: [], known: null };
    await this.audit(ctx, draft);
    await saveHead(c, ctx.head);
  }

  private async applyOne(ctx: BatchContext, op: WriteOp): Promise<WriteResult> {
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
        return { kind: 'forget', lineageId: op.lineageId, removed: await this.forget(ctx, op.lineageId, op.reason, op.readOnlyOfOthers === true) };
      case 'touch':
        return { kind: 'touch', count: await this.touch(ctx, op.ids, toMs(op.at)) };
      case 'mirror':
        return this.mirror(ctx, op.memory);
      case 'record':
        await this.audit(ctx, op.audit);
        return { kind: 'record' };
      case 'restore': {
        const result = await restorePg(ctx.c, ctx.p, op.record, (draft) => this.audit(ctx, draft));
        // A tombstone restored earlier in this batch holds for the inserts after it.
        if (op.record.what === 'tombstone') ctx.tombstones = true;
        return result;
      }
    }
  }

  private async byId(c: pg.PoolClient, id: string): Promise<MemoryRow | undefined> {
    return (await rows<MemoryRow>(c, `SELECT ${SELECT_COLUMNS} FROM memories WHERE id = $1`, [id]))[0];
  }

  private async insert(ctx: BatchContext, op: InsertOp): Promise<WriteResult> {
    const m = op.memory;
    this.assertWritable(ctx.p, m);
    const knownId = ctx.known?.id(m.id);
    const sameId = knownId !== undefined ? knownId : await this.byId(ctx.c, m.id);
    if (sameId) {
      if (sameId.content_hash === m.contentHash && sameId.namespace === m.namespace) return { kind: 'insert', id: m.id, status: 'unchanged' };
      throw new MnemosError('conflict', `a memory with id ${m.id} already exists with different content`, { id: m.id });
    }
    if (m.sourceKey !== null && m.supersededAt === null) {
      const known = ctx.known?.current(m.namespace, m.ownerId, m.sourceKey);
      const existing =
        known !== undefined
          ? (known ?? undefined)
          : (await rows<MemoryRow>(ctx.c, `SELECT ${SELECT_COLUMNS} FROM memories WHERE namespace = $1 AND owner_id = $2 AND source_key = $3 AND superseded_at IS NULL`, [m.namespace, m.ownerId, m.sourceKey]))[0];
      if (!existing && ctx.p.role !== 'owner') {
        const other = await rows(ctx.c, 'SELECT 1 FROM memories WHERE namespace = $1 AND source_key = $2 AND superseded_at IS NULL AND owner_id <> $3 LIMIT 1', [m.namespace, m.sourceKey, m.ownerId]);
        if (other.length > 0) throw sourceHeldByOther(m.sourceKey);
      }
      if (existing) {
        if (existing.content_hash === m.contentHash) {
          if (op.onExistingSource === 'conflict') {
            // A known row carries only its id and hash; a retry reads the row whole (only under a key it already holds).
            const whole = 'text' in existing ? existing : await this.byId(ctx.c, existing.id);
            const other = whole ? keyHoldsOtherFields(rowToMemory(whole), m) : null;
            if (other) throw other;
          }
          return { kind: 'insert', id: existing.id as string, status: 'unchanged' };
        }
        if (op.onExistingSource === 'conflict') {
          throw new MnemosError('conflict', `source key "${m.sourceKey}" was already used with different content; use a new key or update memory ${existing.id as string}`, {
            sourceKey: m.sourceKey,
            existingId: existing.id,
          });
        }
        if (op.onExistingSource === 'supersede') {
          // The source says again what was forgotten from it: what it said meanwhile is closed, nothing is written.
          if (checksForgotten(op)) {
            const gone = await this.forgottenLineage(ctx, m, op.filePath);
            if (gone !== null) {
              await this.retire(ctx, existing.id as string, 'its source holds forgotten text again');
              return forgottenResult(gone, existing.id as string);
            }
          }
          // A known row carries only its id and hash (a re-imported million lines would hold every row); read it whole.
          const whole = 'text' in existing ? existing : await this.byId(ctx.c, existing.id);
          if (!whole) throw new MnemosError('internal', `memory ${existing.id} vanished under the writer lock`);
          const prev = rowToMemory(whole);
          const next: Memory = { ...m, lineageId: prev.lineageId, version: prev.version + 1 };
          await this.update(ctx, prev.id, next, 'supersede', 'source changed', op.vector);
          return { kind: 'insert', id: next.id, status: 'superseded', previousId: prev.id };
        }
        return { kind: 'insert', id: existing.id as string, status: 'unchanged' };
      }
    }
    if (checksForgotten(op)) {
      const gone = await this.forgottenLineage(ctx, m, op.filePath);
      if (gone !== null) return forgottenResult(gone);
    } else await this.liftForgotten(ctx, m, op.filePath);
    await this.writeRow(ctx, m, op.vector);
    await this.audit(ctx, { action: 'create', memoryId: m.id, beforeHash: null, afterHash: m.contentHash, details: { lineageId: m.lineageId, type: m.type, origin: m.origin, ...op.audit?.details, claims: claimsHash(m) } });
    return { kind: 'insert', id: m.id, status: 'created' };
  }

  /** The forgotten lineage this new row would bring back (by its id, or its source key and text), or null. */
  private async forgottenLineage(ctx: BatchContext, m: Memory, filePath?: string): Promise<string | null> {
    const known = ctx.known?.forgotten(m, filePath);
    if (known !== undefined) return known;
    if (!(await this.hasTombstones(ctx))) return null;
    const sources = forgottenSources(m, filePath);
    const found = await rows<{ lineage_id: string }>(
      ctx.c,
      `SELECT t.lineage_id FROM tombstone_ids i JOIN tombstones t ON t.lineage_id = i.lineage_id WHERE i.id = $1 AND t.namespace = $2
       UNION ALL SELECT lineage_id FROM tombstone_sources WHERE namespace = $2 AND owner_id = $3 AND source_digest = ANY($4::text[]) AND content_hash = $5 LIMIT 1`,
      [m.id, m.namespace, m.ownerId, sources.map((s) => s[2]), m.contentHash],
    );
    return found[0]?.lineage_id ?? null;
  }

  /** Most namespaces never forget anything: one look per batch spares every insert its round trip. */
  private async hasTombstones(ctx: BatchContext): Promise<boolean> {
    ctx.tombstones ??= (await rows(ctx.c, 'SELECT 1 FROM tombstones WHERE namespace = $1 LIMIT 1', [ctx.p.namespace])).length > 0;
    return ctx.tombstones;
  }

  /** A restore on purpose: what it writes is no longer forgotten (its id, its source key with its text). */
  private async liftForgotten(ctx: BatchContext, m: Memory, filePath?: string): Promise<void> {
    if (!(await this.hasTombstones(ctx))) return;
    await ctx.c.query('DELETE FROM tombstone_ids WHERE id = $1', [m.id]);
    for (const source of forgottenSources(m, filePath)) await ctx.c.query('DELETE FROM tombstone_sources WHERE namespace = $1 AND owner_id = $2 AND source_digest = $3 AND content_hash = $4', source);
  }

  private async mirror(ctx: BatchContext, source: Memory): Promise<WriteResult> {
    const row = (await rows<MemoryRow>(ctx.c, `SELECT ${SELECT_COLUMNS} FROM memories WHERE id = $1 FOR UPDATE`, [source.id]))[0];
    if (!row) throw new MnemosError('not_found', `memory ${source.id} does not exist`, { id: source.id });
    const target = rowToMemory(row);
    this.assertWritable(ctx.p, target);
    const plan = planMirror(target, source);
    if (!plan.changed) return { kind: 'mirror', id: source.id, changed: false };
    await ctx.c.query(`UPDATE memories SET ${MIRROR_COLUMNS.map((c, i) => `${c} = $${i + 1}`).join(', ')} WHERE id = $${MIRROR_COLUMNS.length + 1}`, [...plan.values, source.id]);
    for (const a of plan.audits) await this.audit(ctx, { ...a, memoryId: source.id });
    return { kind: 'mirror', id: source.id, changed: true };
  }

  private async update(ctx: BatchContext, previousId: string, next: Memory, action: 'update' | 'supersede', reason?: string, vector?: OpVector): Promise<WriteResult> {
    const row = await this.byId(ctx.c, previousId);
    if (!row) throw new MnemosError('not_found', `memory ${previousId} does not exist`, { id: previousId });
    const prev = rowToMemory(row);
    this.assertWritable(ctx.p, prev);
    if (prev.readOnly) throw new MnemosError('read_only', `memory ${prev.id} is read-only (${prev.labels.join(', ') || 'protected'}) and cannot be changed`, { id: prev.id });
    if (prev.supersededAt !== null) {
      throw new MnemosError('conflict', `memory ${prev.id} was already replaced by ${prev.supersededBy ?? 'a newer version'}; edit the current version`, { id: prev.id, supersededBy: prev.supersededBy });
    }
    if (next.lineageId !== prev.lineageId || next.version !== prev.version + 1) throw new MnemosError('internal', 'a new version must continue the lineage of the one it replaces');
    await ctx.c.query('UPDATE memories SET superseded_at = $1, superseded_by = $2 WHERE id = $3', [supersededAtMs(prev, next), next.id, prev.id]);
    if (!sameScope(prev, next)) for (const place of this.places()) await place.rescoped?.(ctx.c, prev.lineageId);
    await this.writeRow(ctx, next, vector);
    await this.audit(ctx, {
      action,
      memoryId: next.id,
      beforeHash: prev.contentHash,
      afterHash: next.contentHash,
      details: { lineageId: prev.lineageId, previousId: prev.id, version: next.version, claims: claimsHash(next), ...(reason ? { reason } : {}) },
    });
    return { kind: 'update', id: next.id, previousId: prev.id };
  }

  private async lifecycle(ctx: BatchContext, op: Extract<WriteOp, { kind: 'lifecycle' }>): Promise<WriteResult> {
    const row = await this.byId(ctx.c, op.id);
    if (!row) throw new MnemosError('not_found', `memory ${op.id} does not exist`, { id: op.id });
    const m = rowToMemory(row);
    this.assertWritable(ctx.p, m);
    if (m.lifecycle !== op.from) throw new MnemosError('conflict', `memory ${op.id} is ${m.lifecycle}, not ${op.from}`, { id: op.id });
    if (op.fromImportance !== undefined && m.importance !== op.fromImportance) throw importanceMoved(op.id);
    // The checks above read without a row lock; repeated in the UPDATE, they hold against a concurrent move too.
    const moved = await ctx.c.query(
      'UPDATE memories SET lifecycle = $1, importance = coalesce($2::double precision, importance) WHERE id = $3 AND lifecycle = $4 AND ($5::double precision IS NULL OR importance = $5)',
      [op.to, op.importance ?? null, op.id, op.from, op.fromImportance ?? null],
    );
    if (moved.rowCount === 0) throw new MnemosError('conflict', `memory ${op.id} changed while this move was applied; read it again`, { id: op.id });
    await this.audit(ctx, { action: 'lifecycle', memoryId: op.id, beforeHash: m.contentHash, afterHash: m.contentHash, details: { from: op.from, to: op.to, reason: op.reason } });
    return { kind: 'lifecycle', id: op.id };
  }

  private async retire(ctx: BatchContext, id: string, reason: string, at?: string): Promise<WriteResult> {
    const row = await this.byId(ctx.c, id);
    if (!row) throw new MnemosError('not_found', `memory ${id} does not exist`, { id });
    const m = rowToMemory(row);
    this.assertWritable(ctx.p, m);
    if (m.readOnly) throw new MnemosError('read_only', `memory ${id} is read-only and cannot be retired`, { id });
    if (m.supersededAt !== null) return { kind: 'retire', id };
    await ctx.c.query('UPDATE memories SET superseded_at = $1 WHERE id = $2', [retiredAt(m, at, ctx.now), id]);
    await this.audit(ctx, { action: 'supersede', memoryId: id, beforeHash: m.contentHash, afterHash: null, details: { lineageId: m.lineageId, reason } });
    return { kind: 'retire', id };
  }

  private async touch(ctx: BatchContext, ids: string[], at: number): Promise<number> {
    // Access statistics are not content: they change no hash and write no audit entry.
    if (ids.length === 0) return 0;
    const r = await ctx.c.query('UPDATE memories SET access_count = access_count + 1, last_accessed_at = $1 WHERE id = ANY($2::text[]) AND namespace = $3', [at, ids, ctx.p.namespace]);
    return r.rowCount ?? 0;
  }

  /** Counts what a forget would remove, place by place. */
  async footprint(c: pg.Pool | pg.PoolClient, lineageId: string, namespace: string): Promise<ForgetFootprint | null> {
    const found = await rows<{ id: string; content_hash: string }>(c, 'SELECT id, content_hash FROM memories WHERE lineage_id = $1 AND namespace = $2 ORDER BY version', [lineageId, namespace]);
    if (found.length === 0) return null;
    const ids = found.map((r) => r.id);
    const places: Record<string, number> = {};
    for (const place of this.places()) places[place.name] = await place.count(c, ids, lineageId);
    return { lineageId, versionIds: ids, contentHashes: [...new Set(found.map((r) => r.content_hash))], places };
  }

  private async forget(ctx: BatchContext, lineageId: string, reason: string, readOnlyOfOthers: boolean): Promise<ForgetFootprint> {
    const fp = await this.footprint(ctx.c, lineageId, ctx.p.namespace);
    if (!fp) throw new MnemosError('not_found', `memory ${lineageId} does not exist`, { id: lineageId });
    const versions = (await rows<MemoryRow>(ctx.c, `SELECT ${SELECT_COLUMNS} FROM memories WHERE lineage_id = $1 AND namespace = $2 ORDER BY version FOR UPDATE`, [lineageId, ctx.p.namespace])).map(rowToMemory);
    const current = versions[versions.length - 1]!;
    this.assertWritable(ctx.p, current);
    if (versions.some((v) => v.readOnly) && !mayForgetReadOnly(ctx.p, versions, readOnlyOfOthers)) throw new MnemosError('read_only', `memory ${lineageId} is read-only (${current.labels.join(', ') || 'protected'}) and cannot be forgotten`, { id: lineageId });
    for (const place of this.places()) await place.remove(ctx.c, fp.versionIds, lineageId);
    const actor = actorOf(ctx.p);
    // A lineage restored on purpose and forgotten again has a tombstone already: it is renewed, listing both forgets' versions.
    const prior = (await rows<{ version_ids: string }>(ctx.c, 'SELECT version_ids FROM tombstones WHERE lineage_id = $1', [lineageId]))[0]?.version_ids;
    await ctx.c.query(
      `INSERT INTO tombstones (lineage_id, namespace, owner_id, agent_id, visibility, version_ids, content_hash, forgotten_at, actor, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (lineage_id) DO UPDATE SET namespace = EXCLUDED.namespace, owner_id = EXCLUDED.owner_id, agent_id = EXCLUDED.agent_id, visibility = EXCLUDED.visibility,
         version_ids = EXCLUDED.version_ids, content_hash = EXCLUDED.content_hash, forgotten_at = EXCLUDED.forgotten_at, actor = EXCLUDED.actor, reason = EXCLUDED.reason`,
      [lineageId, current.namespace, current.ownerId, current.agentId, current.visibility, tombstoneVersionIds(prior, fp.versionIds), current.contentHash, ctx.at, actor, reason],
    );
    const sources = forgottenSourceRows(versions, lineageId);
    if (sources.length > 0) {
      await ctx.c.query(
        'INSERT INTO tombstone_sources (namespace, owner_id, source_digest, content_hash, lineage_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[]) ON CONFLICT DO NOTHING',
        [0, 1, 2, 3, 4].map((i) => sources.map((r) => r[i])),
      );
    }
    ctx.tombstones = true;
    await ctx.c.query('INSERT INTO tombstone_ids (id, lineage_id) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING', [fp.versionIds, lineageId]);
    await this.audit(ctx, { action: 'forget', memoryId: lineageId, beforeHash: current.contentHash, afterHash: null, details: { reason, versionIds: fp.versionIds, contentHashes: fp.contentHashes, removed: fp.places } });
    return fp;
  }

  private async writeRow(ctx: BatchContext, m: Memory, vector: OpVector): Promise<void> {
    const terms = this.analyze(m.text);
    const [row] = await rows<{ row_no: number }>(ctx.c, INSERT_SQL, [...memoryToRow(m, terms.length), terms.join(' ')]);
    ctx.written.push(m.id);
    ctx.known?.wrote(m.id, { content_hash: m.contentHash, namespace: m.namespace }, m.namespace, m.ownerId, m.sourceKey);
    if (vector) await writeVectors(ctx.c, [{ row: row!.row_no, ...vector }]);
  }

  private assertWritable(p: Principal, m: Pick<Memory, 'namespace' | 'ownerId' | 'id'>): void {
    if (!canWrite(p, m)) {
      if (m.namespace !== p.namespace) throw new MnemosError('forbidden', `memory ${m.id} belongs to another namespace`, { id: m.id });
      throw new MnemosError('forbidden', `${withArticle(p.role)} may only change memories it wrote; memory ${m.id} belongs to ${m.ownerId}`, { id: m.id });
    }
  }

  private async audit(ctx: BatchContext, draft: AuditDraft): Promise<void> {
    const e: AuditEntry = chainEntry(ctx.head, draft, { at: ctx.at, actor: actorOf(ctx.p), namespace: ctx.p.namespace });
    await insertAudit(ctx.c, [e]);
    ctx.head = { seq: e.seq, hash: e.hash };
  }
}

/** Audit entries go in as one array per column (see BULK_WRITE_SQL for why). */
async function insertAudit(c: pg.PoolClient, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await c.query(`INSERT INTO audit_log (${AUDIT_COLUMNS}) SELECT * FROM unnest(${AUDIT_ARRAYS(1)})`, auditArrays(entries));
}

function auditArrays(entries: AuditEntry[]): unknown[][] {
  const col = <T>(f: (e: AuditEntry) => T): T[] => entries.map(f);
  return [
    col((e) => e.seq), col((e) => e.at), col((e) => e.actor), col((e) => e.namespace), col((e) => e.action), col((e) => e.memoryId),
    col((e) => e.beforeHash), col((e) => e.afterHash), col((e) => JSON.stringify(e.details)), col((e) => e.prevHash), col((e) => e.hash),
  ];
}

/** Locks the chain head for the rest of the transaction: the cross-process writer lock. */
async function lockHead(c: pg.PoolClient): Promise<{ seq: number; hash: string } | null> {
  const r = (await rows<{ seq: number; hash: string | null }>(c, 'SELECT seq, hash FROM audit_head WHERE one FOR UPDATE'))[0];
  return r && r.seq > 0 && r.hash ? { seq: r.seq, hash: r.hash } : null;
}

async function saveHead(c: pg.PoolClient, head: { seq: number; hash: string } | null): Promise<void> {
  if (head) await c.query('UPDATE audit_head SET seq = $1, hash = $2 WHERE one', [head.seq, head.hash]);
}
