import { z } from 'zod';
import { LIFECYCLES, MEMORY_TYPES, ORIGINS, VISIBILITIES, type Memory } from '../../domain/memory.ts';
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
export const asMemory = (r: MemoryRecord): Memory => r as Memory;
