import { canonicalJson } from '../domain/hash.ts';
import type { Memory } from '../domain/memory.ts';
import type { MemoryCluster } from './cluster.ts';
import { num, str, sym, type MettaAtom } from './metta/ast.ts';
import { SCHEMA_VERSION, isIdentifier } from './schema.ts';

/**
 * Engine memories as MemoryCluster records, one cluster per memory version.
 * The record stays readable by petta-memory (goals become Commitments with
 * CommitmentText, everything else an ObservedEvent; tags that are
 * identifiers also become About topics; lifecycle is HasStatus) and carries
 * the rest of the memory in Mnemos-specific atoms so memory-import.ts can
 * rebuild it exactly. Free text always travels as string atoms.
 */

export const MNEMOS_CLUSTER_TYPE = 'mnemos-memory';
export const MNEMOS_CLUSTER_SOURCE = 'mnemos';

export function clusterIdFor(memory: Pick<Memory, 'id'>): string {
  return `mc-${memory.id}`;
}

export function subjectIdFor(memory: Pick<Memory, 'id'>): string {
  return `m-${memory.id}`;
}

export function memoriesToClusters(memories: readonly Memory[]): MemoryCluster[] {
  return memories.map(memoryToCluster);
}

export function memoryToCluster(m: Memory): MemoryCluster {
  const c = sym(clusterIdFor(m));
  const s = sym(subjectIdFor(m));
  const isGoal = m.type === 'goal';
  const atoms: MettaAtom[] = [
    a('MemoryCluster', c),
    a('SchemaVersion', c, sym(SCHEMA_VERSION)),
    a('ClusterType', c, sym(MNEMOS_CLUSTER_TYPE)),
    a('ClusterOpenedAt', c, str(m.recordedAt)),
    a('ClusterSource', c, sym(MNEMOS_CLUSTER_SOURCE)),
    a('Contains', c, s),
    a(isGoal ? 'Commitment' : 'ObservedEvent', s),
    a(isGoal ? 'CommitmentText' : 'MemoryText', s, str(m.text)),
    a('MemoryType', s, sym(m.type)),
    a('MemoryId', s, str(m.id)),
    a('MemoryLineage', s, str(m.lineageId)),
    a('MemoryVersion', s, num(m.version)),
    a('ValidFrom', s, str(m.validFrom)),
    a('RecordedAt', s, str(m.recordedAt)),
  ];
  if (m.validTo !== null) atoms.push(a('ValidTo', s, str(m.validTo)));
  atoms.push(a('HasProvenance', s, sym(m.origin)));
  atoms.push(a('SourceRef', s, str(canonicalJson(m.source))));
  if (m.sourceKey !== null) atoms.push(a('SourceKey', s, str(m.sourceKey)));
  for (const tag of m.tags) atoms.push(a('Tag', s, str(tag)));
  for (const tag of m.tags) if (isIdentifier(tag)) atoms.push(a('About', s, sym(tag)));
  for (const label of m.labels) atoms.push(a('Label', s, str(label)));
  atoms.push(
    a('HasStatus', s, sym(m.lifecycle)),
    a('SalienceValue', s, num(m.salience)),
    a('Importance', s, num(m.importance)),
    a('EmotionalValence', s, num(m.emotionalValence)),
    a('Visibility', s, sym(m.visibility)),
  );
  if (Object.keys(m.metadata).length > 0) atoms.push(a('MemoryMetadata', s, str(canonicalJson(m.metadata))));
  return { id: c.name, atoms };
}

function a(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}
