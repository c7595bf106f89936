import { MnemosError } from '../domain/errors.ts';
import { contentHash } from '../domain/hash.ts';
import { newId } from '../domain/ids.ts';
import { initialLifecycle } from '../domain/lifecycle.ts';
import type { Memory } from '../domain/memory.ts';
import { assertMayClaim, defaultVisibility, type Principal } from '../domain/principal.ts';
import { normalizeIso, toIso } from '../domain/time.ts';
import type { MemoryFilter } from '../ports/store.ts';
import type { FilterInput, RememberParsed } from './inputs.ts';

/** Turns validated input into a complete first version of a memory. */
export function buildMemory(p: Principal, input: RememberParsed, now: number): Memory {
  const agentId = input.agentId ?? p.agentId ?? null;
  assertMayClaim(p, { readOnly: input.readOnly, origin: input.origin, labels: input.labels, agentId, sourceKey: input.key ?? null });
  const id = newId(now);
  const recordedAt = toIso(now);
  const validFrom = input.validFrom ? normalizeIso(input.validFrom) : recordedAt;
  const validTo = input.validTo ? normalizeIso(input.validTo) : null;
  // The schema compares the two only when both are given; validFrom defaults to now.
  if (validTo !== null && validTo < validFrom) {
    throw new MnemosError('validation_failed', `validTo (${validTo}) must not be before validFrom (${validFrom}${input.validFrom ? '' : ', which defaults to now'})`, { field: 'validTo' });
  }
  const expiresAt = input.expiresAt ? normalizeIso(input.expiresAt) : null;
  // A memory that would be hidden from its first moment is a mistake, not a memory (an export's records keep theirs).
  if (expiresAt !== null && expiresAt <= recordedAt) throw new MnemosError('validation_failed', `expiresAt (${expiresAt}) has already passed`, { field: 'expiresAt' });
  return {
    id,
    lineageId: id,
    version: 1,
    text: input.text,
    contentHash: contentHash(input.text),
    type: input.type,
    importance: input.importance,
    accessCount: 0,
    lastAccessedAt: null,
    emotionalValence: input.emotionalValence,
    salience: input.salience,
    lifecycle: initialLifecycle(input.type),
    validFrom,
    validTo,
    recordedAt,
    supersededAt: null,
    supersededBy: null,
    origin: input.origin,
    source: input.source,
    sourceKey: input.key ?? null,
    namespace: p.namespace,
    ownerId: p.id,
    agentId,
    sessionId: input.sessionId ?? input.source.sessionId ?? null,
    visibility: input.visibility ?? defaultVisibility(p),
    labels: input.labels,
    readOnly: input.readOnly,
    tags: input.tags,
    metadata: input.metadata,
    expiresAt,
  };
}

export function toStoreFilter(f: FilterInput): MemoryFilter {
  const out: MemoryFilter = {};
  if (f.types) out.types = f.types;
  if (f.tags) out.tags = f.tags;
  if (f.labels) out.labels = f.labels;
  if (f.lifecycles) out.lifecycles = f.lifecycles;
  if (f.since || f.until) out.valid = { ...(f.since ? { from: f.since } : {}), ...(f.until ? { to: f.until } : {}) };
  if (f.recordedSince || f.recordedUntil) out.recorded = { ...(f.recordedSince ? { from: f.recordedSince } : {}), ...(f.recordedUntil ? { to: f.recordedUntil } : {}) };
  if (f.asOf) out.asOf = f.asOf;
  if (f.knownAt) out.knownAt = f.knownAt;
  if (f.sessionId) out.sessionId = f.sessionId;
  if (f.agentId) out.agentId = f.agentId;
  if (f.minSalience !== undefined) out.minSalience = f.minSalience;
  return out;
}
