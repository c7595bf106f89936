import { z } from 'zod';
import { LIFECYCLES, MEMORY_TYPES, ORIGINS, VISIBILITIES, type Memory } from '../../domain/memory.ts';
import { MnemosError } from '../../domain/errors.ts';
import { isoTime, jsonRecord, storable } from '../validate.ts';
import { sourceRefSchema } from '../inputs.ts';

/** A complete memory as `export --format jsonl` writes it; importing it restores it exactly. */
export const memoryRecordSchema = z
  .object({
    id: z.string().min(1),
    lineageId: z.string().min(1),
    version: z.number().int().min(1),
    text: storable(z.string().min(1)),
    contentHash: z.string().regex(/^[0-9a-f]{64}$/),
    type: z.enum(MEMORY_TYPES),
    importance: z.number().min(0).max(1),
    accessCount: z.number().int().min(0),
    lastAccessedAt: isoTime.nullable(),
    emotionalValence: z.number().min(-1).max(1),
    salience: z.number().min(0).max(1),
    lifecycle: z.enum(LIFECYCLES),
    validFrom: isoTime,
    validTo: isoTime.nullable(),
    recordedAt: isoTime,
    supersededAt: isoTime.nullable(),
    supersededBy: z.string().nullable(),
    origin: z.enum(ORIGINS),
    source: sourceRefSchema,
    sourceKey: z.string().nullable(),
    namespace: z.string().min(1),
    ownerId: z.string().min(1),
    agentId: z.string().nullable(),
    sessionId: z.string().nullable(),
    visibility: z.enum(VISIBILITIES),
    labels: z.array(z.string()),
    readOnly: z.boolean(),
    tags: z.array(z.string()),
    metadata: jsonRecord,
    expiresAt: isoTime.nullable(),
  })
  .strict();

export function isMemoryRecord(value: unknown): boolean {
  const r = value as Record<string, unknown> | null;
  return !!r && typeof r === 'object' && typeof r.id === 'string' && typeof r.lineageId === 'string';
}

export type MemoryRecord = z.infer<typeof memoryRecordSchema>;

/**
 * What a record may not hold even though its fields each have the right
 * shape: states no version of Mnemos ever wrote, so the line was made or
 * damaged by hand and restoring it would leave a history that cannot be
 * read. States earlier versions did write are restored as they are, for an
 * export of any store must restore: a blank text (before 2026-11-30), a
 * correction over 200,000 characters, or a validity closed before it began
 * (before 2026-12-01). Throws validation_failed naming the field and `where`
 * (file and line, or cluster).
 */
export function assertRecordHolds(r: MemoryRecord, where: string, line?: number): void {
  const refuse = (field: string, why: string): never => {
    throw new MnemosError('validation_failed', `${where}: ${field} ${why}; nothing of the file was written`, { field, ...(line !== undefined ? { line } : {}) });
  };
  // A version is closed by a successor (supersededBy and supersededAt) or retired (supersededAt alone); never named a successor while current.
  if (r.supersededBy !== null && r.supersededAt === null) refuse('supersededBy', 'names a successor of a version that is not closed (supersededAt is null)');
  if (r.supersededBy === r.id) refuse('supersededBy', 'names the version itself');
}

/**
 * Two versions of one lineage under one version number (different ids): the
 * history of that memory cannot say which came first. Checked across one
 * file's records, before anything is written.
 */
export class LineageVersions {
  private readonly seen = new Map<string, string>();
  check(r: Pick<MemoryRecord, 'id' | 'lineageId' | 'version'>, where: string, line?: number): void {
    const k = `${r.lineageId}\0${r.version}`;
    const other = this.seen.get(k);
    if (other !== undefined && other !== r.id) {
      throw new MnemosError(
        'validation_failed',
        `${where}: version ${r.version} of lineage ${r.lineageId} is already memory ${other} in this file; a lineage numbers each version once; nothing of the file was written`,
        { field: 'version', ...(line !== undefined ? { line } : {}) },
      );
    }
    this.seen.set(k, r.id);
  }
}
export const asMemory = (r: MemoryRecord): Memory => r as Memory;
