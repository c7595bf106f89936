import { MnemosError } from '../domain/errors.ts';
import type { MettaAtom, MettaExpr } from './metta/ast.ts';
import { printAtom } from './metta/printer.ts';
import { BEGIN_PREFIX, END_PREFIX, isIdentifier } from './schema.ts';

/**
 * One MemoryCluster record: its id and its atoms in order. `lines` holds the
 * 1-based source line of each atom when the cluster was read from text, so
 * validation errors can point at the line to fix.
 */
export interface MemoryCluster {
  readonly id: string;
  readonly atoms: readonly MettaAtom[];
  readonly lines?: readonly number[];
}

export function makeCluster(id: string, atoms: readonly MettaAtom[]): MemoryCluster {
  return { id, atoms };
}

/** Canonical atom lines (no newline), in record order. */
export function canonicalAtomLines(cluster: MemoryCluster): string[] {
  return cluster.atoms.map(printAtom);
}

export function beginLine(id: string): string {
  return BEGIN_PREFIX + id;
}

export function endLine(id: string): string {
  return END_PREFIX + id;
}

/** The whole canonical record, every line newline-terminated; this is what gets appended. */
export function clusterText(cluster: MemoryCluster): string {
  return recordText(cluster.id, canonicalAtomLines(cluster));
}

export function recordText(id: string, atomLines: readonly string[]): string {
  let out = beginLine(id) + '\n';
  for (const line of atomLines) out += line + '\n';
  return out + endLine(id) + '\n';
}

/** The predicate name of an atom line (head symbol), or undefined. */
export function predicateOf(atom: MettaAtom): string | undefined {
  if (atom.kind !== 'expr') return undefined;
  const head = atom.items[0];
  return head?.kind === 'symbol' ? head.name : undefined;
}

/** Argument `i` (0 = subject) of an expression atom. */
export function argOf(atom: MettaAtom, i: number): MettaAtom | undefined {
  return atom.kind === 'expr' ? atom.items[i + 1] : undefined;
}

/** Symbol name of argument `i`, or undefined when it is not a symbol. */
export function symbolArg(atom: MettaAtom, i: number): string | undefined {
  const a = argOf(atom, i);
  return a?.kind === 'symbol' ? a.name : undefined;
}

/** Text of argument `i` when it is a symbol or a string (values like statuses may be either). */
export function textArg(atom: MettaAtom, i: number): string | undefined {
  const a = argOf(atom, i);
  if (a?.kind === 'symbol') return a.name;
  if (a?.kind === 'string') return a.value;
  return undefined;
}

export function argCount(atom: MettaAtom): number {
  return atom.kind === 'expr' ? Math.max(0, atom.items.length - 1) : 0;
}

export function asExpr(atom: MettaAtom): MettaExpr | undefined {
  return atom.kind === 'expr' ? atom : undefined;
}

/** Where an atom sits, for error messages: "line 12" or "atom 3". */
export function atomLocation(cluster: MemoryCluster, index: number): string {
  const line = cluster.lines?.[index];
  return line !== undefined ? `line ${line}` : `atom ${index + 1}`;
}

export function requireClusterId(value: unknown): string {
  if (typeof value !== 'string' || value.length === 0) throw new MnemosError('validation_failed', 'a cluster needs a non-empty string id');
  return value;
}

/** Ids declared in the cluster by id-declaring (unary) predicates, in order. */
export function declaredIds(cluster: MemoryCluster, unary: ReadonlySet<string>): string[] {
  const out: string[] = [];
  for (const atom of cluster.atoms) {
    const pred = predicateOf(atom);
    const id = symbolArg(atom, 0);
    if (pred !== undefined && id !== undefined && unary.has(pred) && argCount(atom) === 1) out.push(id);
  }
  return out;
}

/**
 * Every identifier an atom mentions as an argument, at any depth, each once,
 * in reading order. Only the atom's own predicate is left out: inside a nested
 * argument such as `(BeliefContent b (S a))` both `S` and `a` are mentions of
 * the belief's content, so the `id` query and the MM-index-id edges (which
 * must agree) both find them. Walks with an explicit stack; nesting is already
 * capped by the parser's depth limit.
 */
export function identifierArguments(atom: MettaAtom): string[] {
  if (atom.kind !== 'expr' || predicateOf(atom) === undefined) return [];
  const seen = new Set<string>();
  const stack: MettaAtom[] = [];
  for (let k = atom.items.length - 1; k >= 1; k--) stack.push(atom.items[k]!);
  while (stack.length > 0) {
    const a = stack.pop()!;
    if (a.kind === 'symbol') {
      if (isIdentifier(a.name)) seen.add(a.name);
    } else if (a.kind === 'expr') {
      for (let k = a.items.length - 1; k >= 0; k--) stack.push(a.items[k]!);
    }
  }
  return [...seen];
}
