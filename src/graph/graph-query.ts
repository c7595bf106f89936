import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import { normalizeIso } from '../domain/time.ts';
import { isoTime, parseInput } from '../services/validate.ts';
import type { Principal } from '../domain/principal.ts';
import { LIVE_LIFECYCLES } from '../domain/lifecycle.ts';
import type { EntityRecord, RelationRecord } from '../ports/lifecycle.ts';
import type { ServiceContext } from '../services/context.ts';
import { requireGraph } from './graph-index.ts';
import { unspacedPieces } from './uncased-names.ts';
import { normalizeName } from '../domain/name-keys.ts';
import { NAME_WORD_BREAK } from './names.ts';

export interface RelationView {
  id: string;
  subject: string;
  predicate: string;
  object: string;
  validFrom: string;
  validTo: string | null;
  supersededBy: string | null;
  /** Holds at the "as of" time (now when none was given). */
  holds: boolean;
}

export interface EntityView {
  entity: EntityRecord;
  relations: RelationView[];
  neighbours: { id: string; name: string; type: string }[];
  /** Current memories that evidence the entity, newest first. */
  memoryIds: string[];
}

function holdsAt(r: Pick<RelationRecord, 'validFrom' | 'validTo' | 'recordedAt'>, t: string): boolean {
  return r.validFrom <= t && (r.validTo === null || r.validTo > t);
}

const asOfField = z.object({ asOf: isoTime });

/** Every visible entity matching a name, with its relations as of a time (valid time). */
export async function entityView(ctx: ServiceContext, p: Principal, name: string, asOf?: string): Promise<{ name: string; asOf: string | null; entities: EntityView[] }> {
  if (typeof name !== 'string' || name.trim() === '') throw new MnemosError('validation_failed', 'give the name of an entity', { field: 'name' });
  // Parsed as a field, so the error names asOf (details.field said "(input)").
  const t = asOf === undefined ? new Date(ctx.now()).toISOString() : normalizeIso(parseInput(asOfField, { asOf }, 'as-of time').asOf);
  const graph = requireGraph(ctx);
  const entities = await graph.findEntities(p, [normalizeName(name)]);
  const views: EntityView[] = [];
  for (const e of entities) {
    const rels = await graph.relationsOf(p, [e.id]);
    const otherIds = [...new Set(rels.flatMap((r) => [r.subjectId, r.objectId]).filter((id) => id !== e.id))];
    const others = new Map<string, EntityRecord>();
    for (const id of otherIds) {
      const o = await graph.entity(p, id);
      if (o) others.set(id, o);
    }
    const nameOf = (id: string) => (id === e.id ? e.name : (others.get(id)?.name ?? null));
    const relations: RelationView[] = [];
    for (const r of rels) {
      const subject = nameOf(r.subjectId);
      const object = nameOf(r.objectId);
      if (subject === null || object === null) continue; // the other end is not visible to this caller
      const holds = holdsAt(r, t);
      if (asOf && r.validFrom > t) continue;
      relations.push({ id: r.id, subject, predicate: r.predicate, object, validFrom: r.validFrom, validTo: r.validTo, supersededBy: r.supersededBy, holds });
    }
    const memoryIds = await currentMemoryIds(ctx, p, await graph.evidenceLineages(p, [e.id]), 50);
    views.push({ entity: e, relations, neighbours: [...others.values()].map((o) => ({ id: o.id, name: o.name, type: o.type })), memoryIds });
  }
  return { name, asOf: asOf ?? null, entities: views };
}

/** Current, live, visible versions of these lineages, in the given order. */
async function currentMemoryIds(ctx: ServiceContext, p: Principal, lineages: string[], limit: number): Promise<string[]> {
  const out: string[] = [];
  for (const l of lineages) {
    if (out.length >= limit) break;
    const versions = await ctx.store.lineage(p, l);
    const cur = versions.find((v) => v.supersededAt === null);
    if (cur && LIVE_LIFECYCLES.includes(cur.lifecycle)) out.push(cur.id);
  }
  return out;
}

/** Most keys one query looks up from its unspaced runs (uncased-names.ts): a 100-character Chinese query has about 2,000 pieces. */
const MAX_PIECES = 2000;

/**
 * Word n-grams (1..3) of a query, normalised like entity names, and, for
 * text written without spaces (Chinese, Japanese, Thai...), every piece of it
 * that could be a name: where a word starts is not written there.
 */
export function queryNorms(query: string): string[] {
  const words = query.split(NAME_WORD_BREAK).filter(Boolean);
  const out = new Set<string>();
  for (let i = 0; i < words.length; i++) {
    for (let len = 1; len <= 3 && i + len <= words.length; len++) {
      const n = normalizeName(words.slice(i, i + len).join(' '));
      if (n.length >= 2) out.add(n);
    }
  }
  for (const piece of unspacedPieces(query, MAX_PIECES)) out.add(piece);
  return [...out];
}

/**
 * The graph list for hybrid search: entities named in the query bring their
 * evidencing memories first (more matched entities rank higher), then the
 * memories of their one-hop neighbours. Returns current memory ids.
 */
export async function graphCandidates(ctx: ServiceContext, p: Principal, query: string, limit: number): Promise<string[]> {
  if (typeof query !== 'string') throw new MnemosError('validation_failed', 'the query must be text', { field: 'query' });
  if (!(Number.isInteger(limit) && limit >= 1 && limit <= 100_000)) throw new MnemosError('validation_failed', 'limit must be a whole number from 1 to 100000', { field: 'limit' });
  const graph = ctx.store.graph;
  if (!graph) return [];
  const norms = queryNorms(query);
  if (norms.length === 0) return [];
  const found = await graph.findEntities(p, norms);
  if (found.length === 0) return [];
  const direct = new Map<string, number>();
  for (const e of found) for (const l of await graph.evidenceLineages(p, [e.id])) direct.set(l, (direct.get(l) ?? 0) + 1);
  const rels = await graph.relationsOf(p, found.map((e) => e.id));
  const foundIds = new Set(found.map((e) => e.id));
  const now = new Date(ctx.now()).toISOString();
  const neighbourIds = [...new Set(rels.filter((r) => holdsAt(r, now)).flatMap((r) => [r.subjectId, r.objectId]).filter((id) => !foundIds.has(id)))];
  const relLineages = await graph.evidenceLineages(p, [], rels.map((r) => r.id));
  const hop = new Map<string, number>();
  for (const l of relLineages) if (!direct.has(l)) hop.set(l, (hop.get(l) ?? 0) + 2);
  for (const l of await graph.evidenceLineages(p, neighbourIds)) if (!direct.has(l)) hop.set(l, (hop.get(l) ?? 0) + 1);
  const ranked = [
    ...[...direct.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).map(([l]) => l),
    ...[...hop.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? 1 : -1)).map(([l]) => l),
  ];
  return currentMemoryIds(ctx, p, ranked, limit);
}
