import { MnemosError } from '../domain/errors.ts';
import { atomsEqual, type MettaAtom } from '../journal/metta/ast.ts';

/**
 * One-sided matching of a pattern (with $variables) against a ground term,
 * and substitution of bindings into a conclusion. A variable that appears
 * twice must bind to equal subterms. Both are iterative or depth-guarded so
 * hostile terms cannot overflow the stack.
 */

export type Bindings = Map<string, MettaAtom>;

export function match(pattern: MettaAtom, term: MettaAtom, bindings: Bindings = new Map()): Bindings | null {
  const out = new Map(bindings);
  const work: Array<[MettaAtom, MettaAtom]> = [[pattern, term]];
  while (work.length > 0) {
    const [p, t] = work.pop()!;
    if (p.kind === 'variable') {
      const bound = out.get(p.name);
      if (bound === undefined) out.set(p.name, t);
      else if (!atomsEqual(bound, t)) return null;
      continue;
    }
    if (p.kind !== t.kind) return null;
    if (p.kind === 'expr') {
      const items = (t as typeof p).items;
      if (items.length !== p.items.length) return null;
      for (let i = 0; i < items.length; i++) work.push([p.items[i]!, items[i]!]);
    } else if (!atomsEqual(p, t)) {
      return null;
    }
  }
  return out;
}

const MAX_SUBSTITUTE_DEPTH = 1000;

export function substitute(term: MettaAtom, bindings: Bindings, depth = 0): MettaAtom {
  if (depth > MAX_SUBSTITUTE_DEPTH) throw new MnemosError('limit_exceeded', `term nests deeper than ${MAX_SUBSTITUTE_DEPTH} levels`);
  if (term.kind === 'variable') return bindings.get(term.name) ?? term;
  if (term.kind !== 'expr') return term;
  return { kind: 'expr', items: term.items.map((i) => substitute(i, bindings, depth + 1)) };
}

/** True when the term contains no variables. */
export function isGround(term: MettaAtom): boolean {
  const work: MettaAtom[] = [term];
  while (work.length > 0) {
    const t = work.pop()!;
    if (t.kind === 'variable') return false;
    if (t.kind === 'expr') work.push(...t.items);
  }
  return true;
}
