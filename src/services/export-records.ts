import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import { LEDGER_CATEGORIES, type LedgerFact } from '../lifecycle/ledger-rules.ts';
import type { LedgerPending } from '../ports/lifecycle.ts';
import type { RestoreRecord, StoredTombstone } from '../ports/store.ts';
import { VISIBILITIES } from '../domain/memory.ts';
import { isoTime, parseInput, storable } from './validate.ts';

/**
 * The lines of a JSONL export that are not memories: the canonical ledger's
 * facts (every status), its pending changes, and the tombstones forget
 * leaves. Each names its kind in `record` (a field no memory record has:
 * memoryRecordSchema is strict) and the version of its layout in `format`,
 * so an importer tells them from memories, and a file written by a later
 * layout is refused by name instead of read wrong. Keys are written in one
 * fixed order, so an export restored and exported again gives the same bytes.
 */
export const RECORD_FORMAT = 1;
export const RECORD_KINDS = ['ledger_fact', 'ledger_pending', 'tombstone'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

const text = storable(z.string());
const id = storable(z.string().min(1));
const hash = z.string().regex(/^[0-9a-f]{64}$/);
const header = { record: z.enum(RECORD_KINDS), format: z.literal(RECORD_FORMAT) };

const factSchema = z
  .object({
    ...header,
    id,
    key: id,
    value: text.min(1),
    statement: text,
    category: z.enum(LEDGER_CATEGORIES),
    confidence: z.number().min(0).max(1),
    mentions: z.number().int().min(0),
    source: z.enum(['owner pin', 'agent pin', 'learned']),
    status: z.enum(['active', 'retired', 'superseded']),
    validFrom: isoTime,
    validUntil: isoTime.nullable(),
    supersededBy: id.nullable(),
    updatedAt: isoTime,
    namespace: id,
    ownerId: id,
    agentId: id.nullable(),
    visibility: z.enum(['owner', 'shared', 'public']),
  })
  .strict();

const proposedSchema = z
  .object({
    value: text.min(1),
    statement: text,
    category: text,
    source: text,
    confidence: z.number().min(0).max(1),
    agentId: id.nullable(),
    ownerId: id,
    visibility: z.enum(VISIBILITIES),
  })
  .strict();

const pendingSchema = z
  .object({
    ...header,
    id,
    namespace: id,
    key: id,
    targetId: id,
    proposed: proposedSchema,
    proposer: id,
    createdAt: isoTime,
    status: z.enum(['pending', 'confirmed', 'rejected']),
  })
  .strict();

const tombstoneSchema = z
  .object({
    ...header,
    lineageId: id,
    namespace: id,
    ownerId: id,
    agentId: id.nullable(),
    visibility: z.enum(VISIBILITIES),
    versionIds: z.array(id),
    forgottenIds: z.array(id),
    contentHash: hash,
    forgottenAt: isoTime,
    actor: text.min(1),
    reason: text,
    sources: z.array(z.object({ ownerId: id, sourceDigest: hash, contentHash: hash }).strict()),
  })
  .strict();

export function factLine(f: LedgerFact): string {
  const { id, key, value, statement, category, confidence, mentions, source, status, validFrom, validUntil, supersededBy, updatedAt, namespace, ownerId, agentId, visibility } = f;
  return line({ record: 'ledger_fact', format: RECORD_FORMAT, id, key, value, statement, category, confidence, mentions, source, status, validFrom, validUntil, supersededBy, updatedAt, namespace, ownerId, agentId, visibility });
}

export function pendingLine(q: LedgerPending & { namespace: string }): string {
  const { value, statement, category, source, confidence, agentId, ownerId, visibility } = q.proposed;
  const proposed = { value, statement, category, source, confidence, agentId, ownerId, visibility };
  return line({ record: 'ledger_pending', format: RECORD_FORMAT, id: q.id, namespace: q.namespace, key: q.key, targetId: q.targetId, proposed, proposer: q.proposer, createdAt: q.createdAt, status: q.status });
}

export function tombstoneLine(t: StoredTombstone): string {
  const { lineageId, namespace, ownerId, agentId, visibility, versionIds, forgottenIds, contentHash, forgottenAt, actor, reason } = t;
  const sources = t.sources.map(({ ownerId: o, sourceDigest, contentHash: h }) => ({ ownerId: o, sourceDigest, contentHash: h }));
  return line({ record: 'tombstone', format: RECORD_FORMAT, lineageId, namespace, ownerId, agentId, visibility, versionIds, forgottenIds, contentHash, forgottenAt, actor, reason, sources });
}

const line = (o: Record<string, unknown>): string => `${JSON.stringify(o)}\n`;

/** Whether a parsed JSONL value is one of these records (it names its kind) rather than a memory. */
export function isExportRecord(value: unknown): value is { record: unknown } {
  return value !== null && typeof value === 'object' && !Array.isArray(value) && 'record' in value;
}

/**
 * Validates one such line for `p`'s import: its kind and layout first (a
 * later layout is named as such), then its fields. Only the namespace's
 * owner restores them; the record's namespace becomes the caller's, as a
 * memory record's does. Throws naming `where` (file and line).
 */
export function parseExportRecord(p: Principal, value: { record: unknown }, where: string, line: number): RestoreRecord {
  const v = value as Record<string, unknown>;
  if (!(RECORD_KINDS as readonly unknown[]).includes(v.record)) {
    throw new MnemosError('validation_failed', `${where}: unknown record "${String(v.record)}" (this version reads ${RECORD_KINDS.join(', ')}); nothing of the file was written`, { line, field: 'record' });
  }
  if (typeof v.format === 'number' && v.format > RECORD_FORMAT) {
    throw new MnemosError('validation_failed', `${where}: a ${String(v.record)} record of format ${v.format}, written by a later version of Mnemos (this one reads format ${RECORD_FORMAT}); upgrade Mnemos to import this file; nothing of the file was written`, { line, field: 'format' });
  }
  if (p.role !== 'owner') {
    throw new MnemosError('forbidden', `${where}: only the namespace's owner may restore ${String(v.record)} records (ledger facts, pending changes and tombstones); nothing of the file was written`, { line, field: 'record' });
  }
  const what = `${String(v.record)} record at ${where}`;
  // The line goes into the error's details too, as every other refusal of the file gives it.
  const parse = <S extends z.ZodType>(schema: S): z.output<S> => {
    try {
      return parseInput(schema, value, what);
    } catch (err) {
      if (err instanceof MnemosError) throw new MnemosError(err.code, `${err.message}; nothing of the file was written`, { ...err.details, line }, { cause: err });
      throw err;
    }
  };
  const refuse = (field: string, why: string): never => {
    throw new MnemosError('validation_failed', `${where}: ${field} ${why}; nothing of the file was written`, { line, field });
  };
  if (v.record === 'ledger_fact') {
    const { record: _r, format: _f, ...fact } = parse(factSchema);
    return { what: 'ledger_fact', fact: { ...fact, namespace: p.namespace } };
  }
  if (v.record === 'ledger_pending') {
    const { record: _r, format: _f, namespace: _n, ...pending } = parse(pendingSchema);
    return { what: 'ledger_pending', pending };
  }
  const { record: _r, format: _f, ...tombstone } = parse(tombstoneSchema);
  const listed = new Set(tombstone.versionIds);
  const stray = tombstone.forgottenIds.find((x) => !listed.has(x));
  if (stray !== undefined) refuse('forgottenIds', `names ${stray}, which versionIds does not list`);
  return { what: 'tombstone', tombstone: { ...tombstone, namespace: p.namespace } };
}

/**
 * One id for each record in a file: two lines restoring the same fact,
 * change or tombstone differently could not both be right.
 */
export class RecordIds {
  private readonly seen = new Map<string, number>();
  check(r: RestoreRecord, where: string, line: number): void {
    const key = r.what === 'ledger_fact' ? r.fact.id : r.what === 'ledger_pending' ? r.pending.id : r.tombstone.lineageId;
    const other = this.seen.get(`${r.what}\0${key}`);
    if (other !== undefined) throw new MnemosError('validation_failed', `${where}: ${r.what} ${key} is already on line ${other} of this file; nothing of the file was written`, { line, field: 'id' });
    this.seen.set(`${r.what}\0${key}`, line);
  }
}
