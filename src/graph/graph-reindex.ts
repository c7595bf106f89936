import { MnemosError } from '../domain/errors.ts';
import type { Principal } from '../domain/principal.ts';
import type { EntityRecord, StaleQuery } from '../ports/lifecycle.ts';
import type { ServiceContext } from '../services/context.ts';
import { EXTRACTION_RULES_VERSION } from './extract-rules.ts';
import type { Extractor } from './extraction.ts';
import { emptyWrite, GraphIndexState, indexMemory, requireGraph, type IndexGraphResult } from './graph-index.ts';

/**
 * Indexing a memory again under the current extraction rules. A memory is
 * indexed once, so what older rules found in it ("Team Alice Smith" across a
 * heading's line break) stayed until it was edited or forgotten; each indexed
 * memory now records the rules version it was indexed under
 * (EXTRACTION_RULES_VERSION), and the stale ones are extracted again here:
 * by consolidation, a bounded number per run, and by `mnemos graph reindex`.
 */
export interface ReindexGraphResult extends IndexGraphResult {
  /** Entities left with no evidence from any memory once the old extraction went. */
  entitiesRemoved: number;
  /** Entity evidence rows (mentions) of the old extraction. */
  mentionsRemoved: number;
  /** Relations left with no evidence (or whose entity went). */
  relationsRemoved: number;
  /** The rules version the memories are now indexed under. */
  rulesVersion: number;
  /** Whether memories already indexed under the current rules were re-indexed too. */
  all: boolean;
}

export interface ReindexGraphOptions {
  /** At most this many memories (default: every stale one); not with `all`, which runs to the end. */
  limit?: number;
  /** Rebuild: index every current memory (indexed or not yet) as a fresh index would (rebuildState), current rules or not. */
  all?: boolean;
  extractor?: Extractor;
  /** Memories per transaction. */
  batch?: number;
  /** After each slice: memories re-indexed so far, of `total` (those stale when the run began, at most `limit`). */
  onProgress?: (done: number, total: number) => void | Promise<void>;
}

/**
 * Re-indexes stale memories of the caller's namespace, a slice per
 * transaction. Each slice replaces its memories' evidence with what the
 * current rules find: relations and entities only they held up go, other
 * memories' evidence stays as it is. Owner only, as consolidation (which
 * runs it too): it rewrites the namespace's graph, whose entities a guest's
 * memories share with others'.
 *
 * Stale memories alone resolve against the entities other memories hold up,
 * so a merge older rules made stays: the merged entity keeps the names other
 * memories' evidence gives it, and each slice resolves back into it. With
 * `all` the run is a rebuild (rebuildState): every memory resolves as in a
 * fresh index, and when it ends the graph is the one a fresh index of the
 * same memories makes.
 */
export async function reindexGraph(ctx: ServiceContext, p: Principal, opts: ReindexGraphOptions = {}): Promise<ReindexGraphResult> {
  const { limit, batchSize } = checkReindex(p, opts);
  const graph = requireGraph(ctx);
  const q: StaleQuery = { rulesVersion: EXTRACTION_RULES_VERSION, all: opts.all === true };
  const out: ReindexGraphResult = {
    memories: 0,
    entitiesCreated: 0,
    entitiesRemoved: 0,
    mentions: 0,
    mentionsRemoved: 0,
    relationsAdded: 0,
    relationsClosed: 0,
    relationsRemoved: 0,
    rulesVersion: EXTRACTION_RULES_VERSION,
    all: q.all,
  };
  const total = opts.onProgress ? Math.min(limit, q.all ? await graph.liveCount(p) : await graph.staleIndexedCount(p, q)) : 0;
  // A rebuild first marks every indexed memory stale, in a transaction of its own: killed part-way, it leaves what
  // it had not reached stale, so the next consolidation (or rebuild) finds it (consolidate.ts rebuilds then).
  if (q.all) await graph.markStale(p);
  let state: GraphIndexState | null = q.all ? rebuildState(await graph.allEntities(p)) : null;
  // Paged by id, not by "still stale": a slice the store did not return must not come back. A rebuild pages
  // through every current memory, indexed or not, in the order a fresh index takes them (its cursor is the store's).
  let after: string | null = null;
  while (out.memories < limit) {
    let ids: string[];
    if (q.all) ({ ids, cursor: after } = await graph.livePage(p, after, batchSize));
    else {
      ids = await graph.staleIndexed(p, { ...q, after, limit: Math.min(batchSize, limit - out.memories) });
      after = ids[ids.length - 1] ?? after;
    }
    if (ids.length === 0) break;
    // Forgotten meanwhile: the forget took their graph traces and their indexed rows.
    const memories = await ctx.store.getMany(p, ids);
    if (memories.length === 0) continue;
    state ??= new GraphIndexState(await graph.allEntities(p));
    const own = memories.map((m) => ({ memoryId: m.id, lineageId: m.lineageId }));
    // A rebuild set every entity aside when it began.
    if (!q.all) setAsideOwnEvidence(state, await graph.evidenceSplit(p, own));
    const w = { ...emptyWrite(), replaces: own, ...(q.all ? { rebuild: true } : {}) };
    const dirty = new Map<string, EntityRecord>();
    for (const m of memories) await indexMemory(graph, p, state, w, dirty, m, opts.extractor, out);
    w.upsertEntities.push(...dirty.values());
    const removed = await graph.write(p, w);
    out.memories += memories.length;
    out.entitiesRemoved += removed.entitiesRemoved;
    out.mentionsRemoved += removed.mentionsRemoved;
    out.relationsRemoved += removed.relationsRemoved;
    await opts.onProgress?.(out.memories, Math.max(total, out.memories));
    // A rebuild keeps its state to the end: what it set aside may be found again in any later slice, and the
    // relations it made are all the ones it finds again or closes.
    if (q.all) continue;
    // What the write removed is gone from the store: entities set aside and not found again, relations the
    // settle dropped or reopened. The relations are read again when next needed.
    for (const e of state.reclaimable.values()) state.byId.delete(e.id);
    state.reclaimable.clear();
    state.openRelations.clear();
    state.loadedSubjects.clear();
  }
  return out;
}

/**
 * The state a rebuild starts from: every entity of the namespace set aside and no stored relation read, so each
 * memory, taken in the order a fresh index takes it (GraphStore.livePage), resolves as in a fresh index, against
 * what the rebuild has found so far. An entity found again under the name key its row has takes its id back
 * (`reclaimable`); the people an older rule had merged into it come back as new entities with new ids, and every
 * relation is made anew. Until its slice comes, a memory's old evidence still points at the old entities and
 * relations (the write's settle removes each once nothing holds it up), so a run killed part-way leaves a graph
 * part old, part new, and the next rebuild, starting over, converges on the same graph.
 */
function rebuildState(entities: EntityRecord[]): GraphIndexState {
  const state = new GraphIndexState(entities);
  state.setAside(entities);
  state.storedRelations = false;
  return state;
}

/** Who may re-index and with what options, checked before anything runs (or a lease is taken for it). */
export function checkReindex(p: Principal, opts: ReindexGraphOptions): { limit: number; batchSize: number } {
  if (p.role !== 'owner') throw new MnemosError('forbidden', 'only the owner can re-index the knowledge graph');
  const limit = opts.limit ?? Number.MAX_SAFE_INTEGER;
  if (!(Number.isInteger(limit) && limit >= 1)) throw new MnemosError('validation_failed', 'limit must be a whole number of at least 1', { field: 'limit' });
  // A rebuild stopped part-way leaves the graph part old, part new (rebuildState).
  if (opts.all === true && opts.limit !== undefined) throw new MnemosError('validation_failed', 'limit cannot be combined with all: a rebuild runs to the end', { field: 'limit' });
  const batchSize = opts.batch ?? 500;
  // A slice's ids are bound as statement parameters (SQLite takes at most 32,766 a statement).
  if (!(Number.isInteger(batchSize) && batchSize >= 1 && batchSize <= 5000)) throw new MnemosError('validation_failed', 'batch must be a whole number from 1 to 5000', { field: 'batch' });
  return { limit, batchSize };
}

/**
 * The state as if the slice's own evidence were already gone: an entity only
 * these memories evidence is set aside, and the others count only the
 * evidence of other memories (the slice's own comes back as it is found).
 */
function setAsideOwnEvidence(state: GraphIndexState, split: readonly { entityId: string; here: number; elsewhere: number }[]): void {
  const aside: EntityRecord[] = [];
  for (const s of split) {
    const e = state.byId.get(s.entityId);
    if (!e) continue; // made by another process after the run loaded its entities
    if (s.elsewhere === 0) aside.push(e);
    else e.mentions = s.elsewhere;
  }
  state.setAside(aside);
}
