import { MnemosError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import { scopeKey, type Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { EntityRecord, GraphStore, GraphWrite, RelationRecord } from '../ports/lifecycle.ts';
import type { ServiceContext } from '../services/context.ts';
import { EXTRACTION_RULES_VERSION, extractRules } from './extract-rules.ts';
import { isFunctional, withinNameLimits, type Extraction, type Extractor } from './extraction.ts';
import { normalizeName } from '../domain/name-keys.ts';
import { EntityIndex } from './entity-index.ts';
import { compatibleKinds, type Resolution } from './resolve.ts';

export function requireGraph(ctx: ServiceContext): GraphStore {
  if (!ctx.store.graph) throw new MnemosError('unsupported', `the ${ctx.store.backend} store has no knowledge graph yet`);
  return ctx.store.graph;
}

/**
 * Resolution state of one indexing run: entities per scope partition (a
 * memory's entities never resolve against another scope's), each scope's
 * keyed for resolution (entity-index.ts), plus the open relations of the
 * subjects seen so far. An entity of the state is changed through its
 * methods, which keep the scope's index in step.
 */
export class GraphIndexState {
  readonly byScope = new Map<string, EntityIndex<EntityRecord>>();
  readonly byId = new Map<string, EntityRecord>();
  readonly known = new Map<string, Set<string>>();
  readonly openRelations = new Map<string, RelationRecord[]>();
  readonly loadedSubjects = new Set<string>();
  /**
   * A re-index's entities that only the memories being re-indexed evidence,
   * by scope and name key: set aside, so they resolve nothing and are known
   * to no rule (a junk "Team Alice Smith" must not make "Smith" ambiguous),
   * yet a name found again takes its entity back, keeping its id.
   */
  readonly reclaimable = new Map<string, EntityRecord>();
  /**
   * Whether a subject's open relations are read from the store when first met. A rebuild reads none: the
   * stored ones are the old extraction's, and as in a fresh index only the relations it made itself are
   * found again or closed.
   */
  storedRelations = true;

  constructor(entities: EntityRecord[]) {
    for (const e of entities) this.addEntity(e);
  }

  addEntity(e: EntityRecord): void {
    this.byId.set(e.id, e);
    const k = scopeKey(e);
    const index = this.byScope.get(k);
    if (index) index.add(e);
    else this.byScope.set(k, new EntityIndex([e]));
    const known = this.known.get(k) ?? new Set<string>();
    addKnownNames(known, e);
    this.known.set(k, known);
  }

  /** Resolves a mention against the entities of scope `k`. */
  resolve(k: string, mention: { name: string; type: string }): Resolution {
    return this.byScope.get(k)?.resolve(mention) ?? { kind: 'new' };
  }

  /** Another surface form of an entity. */
  addAlias(e: EntityRecord, alias: string): void {
    const index = this.byScope.get(scopeKey(e));
    if (index) index.addAlias(e, alias);
    else e.aliases.push(alias);
  }

  /** A new display name for an entity (its name key stays). */
  rename(e: EntityRecord, name: string): void {
    const index = this.byScope.get(scopeKey(e));
    if (index) index.rename(e, name);
    else e.name = name;
  }

  /**
   * Sets these entities aside (see `reclaimable`); each scope they leave gathers its known names again from
   * the entities left, once for all of them (a slice of a whole-store re-index sets thousands aside).
   */
  setAside(entities: readonly EntityRecord[]): void {
    const scopes = new Set<string>();
    for (const e of entities) {
      const k = scopeKey(e);
      scopes.add(k);
      this.reclaimable.set(`${k}|${e.norm}`, e);
      this.byScope.get(k)?.remove(e);
    }
    for (const k of scopes) {
      const known = new Set<string>();
      for (const x of this.byScope.get(k)?.entities() ?? []) addKnownNames(known, x);
      this.known.set(k, known);
    }
  }
}

/** The name keys by which the extraction rules know an entity: its own and its aliases'. */
function addKnownNames(known: Set<string>, e: EntityRecord): void {
  known.add(e.norm);
  for (const a of e.aliases) known.add(normalizeName(a));
}

export interface IndexGraphResult {
  memories: number;
  entitiesCreated: number;
  mentions: number;
  relationsAdded: number;
  relationsClosed: number;
}

/** Extracts entities and relations from memories not yet indexed, a batch per transaction. */
export async function indexGraph(
  ctx: ServiceContext,
  p: Principal,
  opts: {
    limit: number;
    extractor?: Extractor;
    batch?: number;
    /** Current memories the caller already holds (consolidation). */
    current?: readonly Memory[];
    /** After each batch's transaction (the caller renews its lease). */
    onBatch?: () => Promise<void>;
  },
): Promise<IndexGraphResult> {
  const graph = requireGraph(ctx);
  const out: IndexGraphResult = { memories: 0, entitiesCreated: 0, mentions: 0, relationsAdded: 0, relationsClosed: 0 };
  let state: GraphIndexState | null = null;
  const batchSize = opts.batch ?? 500;
  // With the memories in hand and the fast path, one look-up of what is indexed replaces a query per batch.
  let todo: Memory[] | null = null;
  if (opts.current && graph.indexedIds) {
    const indexed = await graph.indexedIds(p);
    // Archived and expired memories are out of recall, so out of the graph until rescued.
    todo = opts.current.filter((m) => m.supersededAt === null && m.lifecycle !== 'expired' && m.lifecycle !== 'archived' && !indexed.has(m.id));
  }
  let offset = 0;
  while (out.memories < opts.limit) {
    const take = Math.min(batchSize, opts.limit - out.memories);
    const ids = todo ? todo.slice(offset, offset + take).map((m) => m.id) : await graph.unindexed(p, take);
    if (ids.length === 0) break;
    state ??= new GraphIndexState(await graph.allEntities(p));
    const memories = todo ? todo.slice(offset, offset + take) : await ctx.store.getMany(p, ids);
    offset += ids.length;
    const w = emptyWrite();
    const dirty = new Map<string, EntityRecord>();
    for (const m of memories) await indexMemory(graph, p, state, w, dirty, m, opts.extractor, out);
    // Ids the store did not return (forgotten meanwhile) are marked too, so they are not retried forever.
    for (const id of ids) if (!memories.some((m) => m.id === id)) w.indexed.push({ memoryId: id, lineageId: id });
    w.upsertEntities.push(...dirty.values());
    await graph.write(p, w);
    out.memories += ids.length;
    await opts.onBatch?.();
  }
  return out;
}

/** A write recording its memories under the current extraction rules. */
export function emptyWrite(): GraphWrite {
  return { upsertEntities: [], insertRelations: [], closeRelations: [], evidence: [], indexed: [], rulesVersion: EXTRACTION_RULES_VERSION };
}

/** One memory's extraction, resolved against `state`, added to `w`; the entities it touched go into `dirty` (to upsert). */
export async function indexMemory(
  graph: GraphStore,
  p: Principal,
  state: GraphIndexState,
  w: GraphWrite,
  dirty: Map<string, EntityRecord>,
  m: Memory,
  extractor: Extractor | undefined,
  out: IndexGraphResult,
): Promise<void> {
  const k = scopeKey(m);
  const known = state.known.get(k) ?? new Set<string>();
  const ex: Extraction = withinNameLimits(extractor ? mergeExtractions(extractRules(m.text, known), await extractor(m.text, known)) : extractRules(m.text, known));
  const resolved = new Map<string, EntityRecord>();
  for (const mention of ex.mentions) {
    // One memory is one mention of an entity, however many rules found it.
    const norm = normalizeName(mention.name);
    if (resolved.has(norm)) continue;
    // A gloss names the entity of the name it glosses: its spelling becomes that entity's alias.
    const glossed = mention.sameAs === undefined ? undefined : resolved.get(normalizeName(mention.sameAs));
    const e = glossed ? addSpelling(state, m, glossed, mention.name) : resolveOrCreate(state, m, mention.name, mention.type, out);
    resolved.set(norm, e);
    dirty.set(e.id, e);
    w.evidence.push({ entityId: e.id, relationId: null, lineageId: m.lineageId, memoryId: m.id, mention: mention.name, norm });
    out.mentions++;
  }
  for (const r of ex.relations) {
    const s = resolved.get(normalizeName(r.subject)) ?? resolveOrCreate(state, m, r.subject, 'name', out);
    const o = resolved.get(normalizeName(r.object)) ?? resolveOrCreate(state, m, r.object, 'name', out);
    dirty.set(s.id, s);
    dirty.set(o.id, o);
    await addRelation(graph, p, state, w, m, s.id, r.predicate, o.id, out);
  }
  w.indexed.push({ memoryId: m.id, lineageId: m.lineageId });
}

/** Another spelling of an entity met in this memory: one more evidence row, as a second rule's hit on it is, and an alias. */
function addSpelling(state: GraphIndexState, m: Memory, e: EntityRecord, name: string): EntityRecord {
  e.mentions++;
  if (e.name !== name && !e.aliases.includes(name)) state.addAlias(e, name);
  state.known.get(scopeKey(m))?.add(normalizeName(name));
  return e;
}

function resolveOrCreate(state: GraphIndexState, m: Memory, name: string, type: string, out: IndexGraphResult): EntityRecord {
  const k = scopeKey(m);
  const r = state.resolve(k, { name, type });
  const seen = m.validFrom;
  if (r.kind === 'match') {
    const e = state.byId.get(r.id)!;
    e.mentions++;
    if (seen > e.lastSeen) e.lastSeen = seen;
    if (seen < e.firstSeen) e.firstSeen = seen;
    if (e.name !== name && !e.aliases.includes(name)) state.addAlias(e, name);
    // A fuller name ("John Smith" after "Smith") becomes the display name.
    if (name.length > e.name.length && (type === 'person' || type === 'name')) {
      if (!e.aliases.includes(e.name)) state.addAlias(e, e.name);
      state.rename(e, name);
    }
    state.known.get(k)?.add(normalizeName(name));
    return e;
  }
  const back = reclaim(state, k, name, type, seen);
  if (back) return back;
  const e: EntityRecord = {
    id: newId(),
    name,
    norm: normalizeName(name),
    type,
    aliases: [],
    firstSeen: seen,
    lastSeen: seen,
    mentions: 1,
    namespace: m.namespace,
    ownerId: m.ownerId,
    agentId: m.agentId,
    visibility: m.visibility,
  };
  state.addEntity(e);
  out.entitiesCreated++;
  return e;
}

/**
 * A name a re-index set aside (GraphIndexState.reclaimable) found again: its entity comes back with this
 * sighting only, as a new one would (the old evidence is gone; the store recounts it from what remains).
 */
function reclaim(state: GraphIndexState, k: string, name: string, type: string, seen: string): EntityRecord | null {
  const key = `${k}|${normalizeName(name)}`;
  const e = state.reclaimable.get(key);
  if (!e || !compatibleKinds(e.type, type)) return null;
  state.reclaimable.delete(key);
  // Set aside, it is in no scope's index: changed here, it is keyed afresh as it is added back.
  Object.assign(e, { name, type, aliases: [], mentions: 1, firstSeen: seen, lastSeen: seen });
  state.addEntity(e);
  return e;
}

async function addRelation(
  graph: GraphStore,
  p: Principal,
  state: GraphIndexState,
  w: GraphWrite,
  m: Memory,
  subjectId: string,
  predicate: string,
  objectId: string,
  out: IndexGraphResult,
): Promise<void> {
  if (state.storedRelations && !state.loadedSubjects.has(subjectId)) {
    state.loadedSubjects.add(subjectId);
    const existing = (await graph.relationsOf(p, [subjectId])).filter((r) => r.subjectId === subjectId && r.validTo === null && scopeKey(r) === scopeKey(m));
    state.openRelations.set(subjectId, [...existing, ...(state.openRelations.get(subjectId) ?? [])]);
  }
  const open = state.openRelations.get(subjectId) ?? [];
  const same = open.find((r) => r.predicate === predicate && r.objectId === objectId && r.validTo === null);
  if (same) {
    w.evidence.push({ entityId: null, relationId: same.id, lineageId: m.lineageId, memoryId: m.id, mention: null, norm: null });
    return;
  }
  const rel: RelationRecord = {
    id: newId(),
    subjectId,
    predicate,
    objectId,
    validFrom: m.validFrom,
    validTo: null,
    recordedAt: m.recordedAt,
    supersededBy: null,
    confidence: 0.6,
    namespace: m.namespace,
    ownerId: m.ownerId,
    agentId: m.agentId,
    visibility: m.visibility,
  };
  if (isFunctional(predicate)) {
    for (const old of open) {
      if (old.predicate !== predicate || old.validTo !== null) continue;
      if (old.validFrom > rel.validFrom) {
        // Learned late about an earlier state: it held until the newer one began.
        if (rel.validTo === null || old.validFrom < rel.validTo) {
          rel.validTo = old.validFrom;
          rel.supersededBy = old.id;
        }
        continue;
      }
      // Contradicted: close the old relation at the new one's start instead of deleting it.
      old.validTo = rel.validFrom;
      old.supersededBy = rel.id;
      w.closeRelations.push({ id: old.id, validTo: rel.validFrom, supersededBy: rel.id });
      out.relationsClosed++;
    }
  }
  open.push(rel);
  state.openRelations.set(subjectId, open);
  w.insertRelations.push(rel);
  w.evidence.push({ entityId: null, relationId: rel.id, lineageId: m.lineageId, memoryId: m.id, mention: null, norm: null });
  out.relationsAdded++;
}

function mergeExtractions(a: Extraction, b: Extraction): Extraction {
  const seen = new Set(a.mentions.map((x) => `${x.type}|${x.name}`));
  const rel = new Set(a.relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`));
  return {
    mentions: [...a.mentions, ...b.mentions.filter((x) => !seen.has(`${x.type}|${x.name}`))],
    relations: [...a.relations, ...b.relations.filter((r) => !rel.has(`${r.subject}|${r.predicate}|${r.object}`))],
  };
}
