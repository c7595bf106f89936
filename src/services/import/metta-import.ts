import { MnemosError } from '../../domain/errors.ts';
import { contentHash } from '../../domain/hash.ts';
import type { Memory } from '../../domain/memory.ts';
import { assertMayClaim, type Principal } from '../../domain/principal.ts';
import { normalizeIso } from '../../domain/time.ts';
import type { WriteOp } from '../../ports/store.ts';
import { argOf, declaredIds, predicateOf, symbolArg, textArg, type MemoryCluster } from '../../journal/cluster.ts';
import { clustersToMemoryInputs, type JournalMemoryInput } from '../../journal/memory-import.ts';
import { parseClusters } from '../../journal/parse-clusters.ts';
import { UNARY_PREDICATES } from '../../journal/schema.ts';
import { clusterProblems, invalidCluster } from '../../journal/validate.ts';
import { buildMemory } from '../build-memory.ts';
import { EXTRA_PREDICATES } from '../export-metta.ts';
import { rememberSchema } from '../inputs.ts';
import { parseInput } from '../validate.ts';
import { assertRecordHolds, LineageVersions, memoryRecordSchema } from './memory-records.ts';

/**
 * `mnemos import --format metta`: MemoryCluster records to write operations.
 *
 * The whole file is parsed and every cluster checked against the record
 * rules (ids unique across the file) before anything is written, so a bad
 * record stops the import with its line and nothing lands.
 *
 * Two kinds of records:
 * - written by `export --format metta` (they carry MemoryId, lineage,
 *   version and RecordedAt): restored as the exact memory version, like a
 *   JSONL memory record, idempotent by memory id. That is what makes
 *   export -> import -> export give the same text;
 * - from any other petta-memory journal: each declared item with text
 *   becomes a new memory through the remember path, keyed by
 *   `metta:<cluster-id>#<subject-id>` so re-importing skips unchanged items
 *   and supersedes changed ones.
 */
export function mettaOps(p: Principal, text: string, path: string, now: number): WriteOp[] {
  let clusters: MemoryCluster[];
  try {
    clusters = parseClusters(text);
  } catch (err) {
    if (MnemosError.is(err)) throw new MnemosError(err.code, `${path}: ${err.message}`, err.details, { cause: err });
    throw err;
  }
  const declared = new Set<string>();
  for (const c of clusters) {
    const problems = clusterProblems(c, { isKnownId: (id) => declared.has(id) });
    if (problems.length > 0) {
      const e = invalidCluster(c.id, problems);
      throw new MnemosError('validation_failed', `${path}: ${e.message}`, e.details);
    }
    for (const id of declaredIds(c, UNARY_PREDICATES)) declared.add(id);
  }
  const ops: WriteOp[] = [];
  const versions = new LineageVersions();
  for (const c of clusters) {
    for (const input of clustersToMemoryInputs([c])) {
      const where = `${path}, cluster ${c.id}, ${input.journal.subjectId}`;
      if (isMnemosRecord(input)) {
        const memory = restoredMemory(p, c, input, where);
        versions.check(memory, where);
        ops.push({ kind: 'insert', memory, onExistingSource: 'conflict' });
      } else {
        const parsed = parseInput(rememberSchema, foreignInput(input), where);
        ops.push({ kind: 'insert', memory: buildMemory(p, parsed, now), onExistingSource: 'supersede' });
      }
    }
  }
  return ops;
}

function isMnemosRecord(input: JournalMemoryInput): boolean {
  const j = input.journal;
  return j.mnemosId !== undefined && j.lineageId !== undefined && j.version !== undefined && input.recordedAt !== null;
}

function restoredMemory(p: Principal, cluster: MemoryCluster, input: JournalMemoryInput, where: string): Memory {
  const extra = extrasOf(cluster, input.journal.subjectId);
  const record = {
    id: input.journal.mnemosId,
    lineageId: input.journal.lineageId,
    version: input.journal.version,
    text: input.text,
    contentHash: contentHash(input.text),
    type: input.type,
    importance: input.importance,
    accessCount: extra.accessCount ?? 0,
    lastAccessedAt: extra.lastAccessedAt ?? null,
    emotionalValence: input.emotionalValence,
    salience: input.salience,
    lifecycle: input.lifecycle,
    validFrom: input.validFrom,
    validTo: input.validTo,
    recordedAt: input.recordedAt,
    supersededAt: extra.supersededAt ?? null,
    supersededBy: extra.supersededBy ?? null,
    origin: input.origin,
    source: input.source,
    sourceKey: input.sourceKey,
    namespace: p.namespace,
    ownerId: extra.owner ?? p.id,
    agentId: extra.agent ?? null,
    sessionId: extra.session ?? null,
    visibility: input.visibility,
    labels: input.labels,
    readOnly: extra.readOnly === 'true',
    tags: input.tags,
    metadata: input.metadata,
    expiresAt: extra.expiresAt ?? null,
  };
  const memory = parseInput(memoryRecordSchema, record, `memory record at ${where}`) as Memory;
  assertRecordHolds(memory, where);
  assertMayClaim(p, memory);
  for (const k of ['validFrom', 'recordedAt'] as const) memory[k] = normalizeIso(memory[k]);
  return memory;
}

type Extras = { [K in keyof typeof EXTRA_PREDICATES]?: K extends 'accessCount' ? number : string };

function extrasOf(cluster: MemoryCluster, subject: string): Extras {
  const byPredicate = new Map<string, keyof typeof EXTRA_PREDICATES>(Object.entries(EXTRA_PREDICATES).map(([k, v]) => [v, k as keyof typeof EXTRA_PREDICATES]));
  const out: Record<string, string | number> = {};
  for (const atom of cluster.atoms) {
    const key = byPredicate.get(predicateOf(atom) ?? '');
    if (key === undefined || symbolArg(atom, 0) !== subject || key in out) continue;
    const o = argOf(atom, 1);
    if (key === 'accessCount') {
      if (o?.kind === 'number') out[key] = o.value;
    } else {
      const v = textArg(atom, 1);
      if (v !== undefined) out[key] = v;
    }
  }
  return out as Extras;
}

/** A record from another journal, as remember input keyed by its place in the journal. */
function foreignInput(input: JournalMemoryInput) {
  return {
    text: input.text,
    type: input.type,
    ...(input.validFrom ? { validFrom: input.validFrom } : {}),
    ...(input.validTo ? { validTo: input.validTo } : {}),
    origin: input.origin,
    source: input.source,
    ...(input.sourceKey ? { key: input.sourceKey } : {}),
    tags: input.tags,
    labels: input.labels,
    ...(input.salience !== undefined ? { salience: clampUnit(input.salience) } : {}),
    ...(input.importance !== undefined ? { importance: clampUnit(input.importance) } : {}),
    ...(input.visibility ? { visibility: input.visibility } : {}),
    metadata: { ...input.metadata, journal: input.journal },
  };
}

function clampUnit(x: number): number {
  return Math.min(1, Math.max(0, x));
}
