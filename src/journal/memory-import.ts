import { MnemosError } from '../domain/errors.ts';
import { LIFECYCLES, MEMORY_TYPES, ORIGINS, VISIBILITIES, type Lifecycle, type MemoryType, type Origin, type SourceRef, type Visibility } from '../domain/memory.ts';
import { argOf, atomLocation, predicateOf, symbolArg, textArg, type MemoryCluster } from './cluster.ts';
import type { MettaAtom } from './metta/ast.ts';
import { printAtom } from './metta/printer.ts';
import { SALIENCE_POINTS, namedSalience } from './salience-levels.ts';
import { UNARY_PREDICATES } from './schema.ts';

/**
 * MemoryCluster records back to memory inputs for the engine to store. Every
 * declared item (except the cluster itself) that carries text becomes one
 * input. Clusters written by memory-export.ts round-trip exactly; records from
 * other petta-memory journals map their declaration to a memory type, their
 * ClusterOpenedAt to the valid time and About atoms to tags.
 */

export interface JournalMemoryInput {
  text: string;
  type: MemoryType;
  validFrom: string;
  validTo: string | null;
  /** When the original store recorded it; null for foreign records. */
  recordedAt: string | null;
  origin: Origin;
  source: SourceRef;
  sourceKey: string | null;
  tags: string[];
  labels: string[];
  lifecycle?: Lifecycle;
  salience?: number;
  importance?: number;
  emotionalValence?: number;
  visibility?: Visibility;
  metadata: Record<string, unknown>;
  /** Where it came from in the journal. */
  journal: { clusterId: string; subjectId: string; declaredAs: string; mnemosId?: string; lineageId?: string; version?: number };
}

/** petta-memory declarations to memory types, for foreign records. */
const TYPE_OF_DECLARATION: Record<string, MemoryType> = {
  Commitment: 'goal',
  Decision: 'insight',
  Hypothesis: 'insight',
  DerivedBelief: 'fact',
  Boundary: 'preference',
  ObservedEvent: 'episode',
  SpeechEvent: 'episode',
  OpenQuestion: 'general',
  QuotedClaim: 'general',
  Artifact: 'general',
};

/** Text-bearing predicates, most specific first. */
const TEXT_PREDICATES = ['MemoryText', 'CommitmentText', 'QuestionText', 'ClaimText', 'RawUtterance', 'BoundaryName', 'ArtifactPath', 'BeliefContent', 'Said'];

export function clustersToMemoryInputs(clusters: readonly MemoryCluster[]): JournalMemoryInput[] {
  const out: JournalMemoryInput[] = [];
  for (const cluster of clusters) {
    const bySubject = new Map<string, Array<[number, MettaAtom]>>();
    const declared: Array<[string, string]> = [];
    let openedAt: string | undefined;
    cluster.atoms.forEach((atom, i) => {
      const pred = predicateOf(atom);
      const subject = symbolArg(atom, 0);
      if (pred === undefined || subject === undefined) return;
      if (pred === 'ClusterOpenedAt' && subject === cluster.id) openedAt = textArg(atom, 1);
      if (UNARY_PREDICATES.has(pred) && pred !== 'MemoryCluster' && argOf(atom, 1) === undefined) declared.push([subject, pred]);
      let list = bySubject.get(subject);
      if (!list) bySubject.set(subject, (list = []));
      list.push([i, atom]);
    });
    for (const [subject, declaredAs] of declared) {
      const input = toInput(cluster, subject, declaredAs, bySubject.get(subject) ?? [], openedAt);
      if (input) out.push(input);
    }
  }
  return out;
}

function toInput(cluster: MemoryCluster, subject: string, declaredAs: string, atoms: Array<[number, MettaAtom]>, openedAt: string | undefined): JournalMemoryInput | null {
  const first = (pred: string): [number, MettaAtom] | undefined => atoms.find(([, x]) => predicateOf(x) === pred);
  const text = (pred: string): string | undefined => {
    const hit = first(pred);
    return hit ? textArg(hit[1], 1) : undefined;
  };
  const all = (pred: string): string[] => atoms.filter(([, x]) => predicateOf(x) === pred).map(([, x]) => textArg(x, 1)).filter((v): v is string => v !== undefined);
  const number = (pred: string): number | undefined => {
    const o = first(pred) ? argOf(first(pred)![1], 1) : undefined;
    return o?.kind === 'number' ? o.value : undefined;
  };
  // A number, or a named level as the reference's records write it (`high`); an unknown word is refused, not read as 0.
  const salience = (): number | undefined => {
    const hit = first('SalienceValue');
    const o = hit ? argOf(hit[1], 1) : undefined;
    if (o === undefined || o.kind === 'number') return o?.value;
    const name = o.kind === 'symbol' ? o.name : o.kind === 'string' ? o.value : undefined;
    const level = name === undefined ? undefined : namedSalience(name);
    if (level !== undefined) return level;
    throw new MnemosError('validation_failed', `cluster ${cluster.id}, ${atomLocation(cluster, hit![0])}: SalienceValue of ${subject} must be a number from 0 to 1 or one of ${Object.keys(SALIENCE_POINTS).join(', ')}, got ${printAtom(o)}`);
  };
  const json = (pred: string): Record<string, unknown> | undefined => {
    const hit = first(pred);
    const raw = hit ? textArg(hit[1], 1) : undefined;
    if (raw === undefined) return undefined;
    try {
      const v: unknown = JSON.parse(raw);
      if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
    } catch {
      // reported below
    }
    throw new MnemosError('validation_failed', `cluster ${cluster.id}, ${atomLocation(cluster, hit![0])}: ${pred} of ${subject} must be a JSON object string`);
  };

  const textPred = TEXT_PREDICATES.find((p) => first(p) !== undefined);
  if (textPred === undefined) return null;
  const hit = first(textPred)!;
  const o = argOf(hit[1], 1)!;
  const body = o.kind === 'string' ? o.value : printAtom(o);
  const ours = first('MemoryType') !== undefined;
  const typeName = text('MemoryType');
  const type = ours && MEMORY_TYPES.includes(typeName as MemoryType) ? (typeName as MemoryType) : (TYPE_OF_DECLARATION[declaredAs] ?? 'general');
  const origin = text('HasProvenance');
  const lifecycle = text('HasStatus');
  const visibility = text('Visibility');
  const version = number('MemoryVersion');
  const tags = ours ? all('Tag') : all('About');
  return {
    text: body,
    type,
    validFrom: text('ValidFrom') ?? openedAt ?? '',
    validTo: text('ValidTo') ?? null,
    recordedAt: text('RecordedAt') ?? null,
    origin: ours && ORIGINS.includes(origin as Origin) ? (origin as Origin) : 'import',
    source: (json('SourceRef') as SourceRef | undefined) ?? { key: `${cluster.id}#${subject}` },
    sourceKey: ours ? (text('SourceKey') ?? null) : `metta:${cluster.id}#${subject}`,
    tags,
    labels: all('Label'),
    lifecycle: LIFECYCLES.includes(lifecycle as Lifecycle) ? (lifecycle as Lifecycle) : undefined,
    salience: salience(),
    importance: number('Importance'),
    emotionalValence: number('EmotionalValence'),
    visibility: VISIBILITIES.includes(visibility as Visibility) ? (visibility as Visibility) : undefined,
    metadata: json('MemoryMetadata') ?? {},
    journal: { clusterId: cluster.id, subjectId: subject, declaredAs, mnemosId: text('MemoryId'), lineageId: text('MemoryLineage'), ...(version !== undefined ? { version } : {}) },
  };
}
