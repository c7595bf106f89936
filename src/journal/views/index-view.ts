import { argOf, identifierArguments, predicateOf, symbolArg, type MemoryCluster } from '../cluster.ts';
import { sym, type MettaAtom } from '../metta/ast.ts';
import { printAtom } from '../metta/printer.ts';
import { STATUS_PREDICATES, UNARY_PREDICATES } from '../schema.ts';
import type { JournalSnapshot } from '../snapshot.ts';
import { joinBounded, type BoundedText } from './bounded.ts';

/**
 * The MM-index view: derived retrieval edges, never written back to the
 * journal. Id edges cover every identifier argument at any depth (see
 * identifierArguments), the same set the `id` query matches, so recall
 * through the index equals direct query recall.
 * Superseded status events get no status edge.
 */
export function indexAtoms(snapshot: JournalSnapshot, cluster: MemoryCluster): MettaAtom[] {
  const c = sym(cluster.id);
  const out: MettaAtom[] = [edge('MM-index', c)];
  const ids = new Set<string>();
  for (const atom of cluster.atoms) {
    for (const id of identifierArguments(atom)) ids.add(id);
  }
  for (const id of ids) out.push(edge('MM-index-id', sym(id), c));

  const eventSubject = new Map<string, MettaAtom>();
  for (const atom of cluster.atoms) {
    if (predicateOf(atom) === 'StatusSubject' && argOf(atom, 1)) eventSubject.set(symbolArg(atom, 0) ?? '', argOf(atom, 1)!);
  }
  for (const atom of cluster.atoms) {
    const pred = predicateOf(atom);
    const subject = argOf(atom, 0);
    const object = argOf(atom, 1);
    if (pred === undefined || subject?.kind !== 'symbol') continue;
    if (UNARY_PREDICATES.has(pred) && object === undefined) out.push(edge('MM-index-type', sym(pred), subject, c));
    if (object === undefined) continue;
    if (pred === 'About') out.push(edge('MM-index-about', object, subject, c));
    else if (pred === 'EpistemicRole') out.push(edge('MM-index-role', object, subject, c));
    else if (STATUS_PREDICATES.has(pred)) out.push(edge('MM-index-status', object, subject, c));
    else if (pred === 'StatusValue' && !snapshot.isSuperseded(subject.name)) {
      out.push(edge('MM-index-status', object, eventSubject.get(subject.name) ?? subject, c));
    }
  }
  return out;
}

export function indexView(snapshot: JournalSnapshot, options: { maxChars?: number; clusters?: Iterable<MemoryCluster> } = {}): string {
  return indexViewBounded(snapshot, options).text;
}

/** `indexView` with how many lines it holds and whether the budget cut it. */
export function indexViewBounded(snapshot: JournalSnapshot, options: { maxChars?: number; clusters?: Iterable<MemoryCluster> } = {}): BoundedText {
  return joinBounded(indexLines(snapshot, options.clusters ?? snapshot.clusters()), options.maxChars);
}

/**
 * Every edge names its cluster, so a repeated edge can only come from a
 * repeated atom in one cluster (two identical About lines): it is listed
 * once, as the prototype does, instead of spending the budget twice.
 */
function* indexLines(snapshot: JournalSnapshot, clusters: Iterable<MemoryCluster>): Iterable<string> {
  for (const cluster of clusters) {
    const seen = new Set<string>();
    for (const atom of indexAtoms(snapshot, cluster)) {
      const line = printAtom(atom);
      if (seen.has(line)) continue;
      seen.add(line);
      yield line;
    }
  }
}

function edge(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}
