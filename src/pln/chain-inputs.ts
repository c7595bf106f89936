import { headName } from '../journal/metta/ast.ts';
import type { ChainFact, ChainRule } from './chainer.ts';
import type { PlnPremise } from './promotion.ts';

/** Heads that mark a premise as an implication rule rather than a fact. */
export const IMPLICATION_HEADS = new Set(['Implication', '==>']);

/**
 * Splits promoted premises into chainer facts and rules. A premise whose
 * statement is `(Implication A B)` (or `(==> A B)`) is a rule A -> B; the rest
 * are facts. Each keeps its belief's numeric stamp, so a conclusion's stamp
 * names exactly the beliefs it rests on, and carries its EvidenceFor ids,
 * so two beliefs drawn from one observation are never combined as if
 * independent.
 */
export function chainInputs(premises: readonly PlnPremise[]): { facts: ChainFact[]; rules: ChainRule[] } {
  const facts: ChainFact[] = [];
  const rules: ChainRule[] = [];
  for (const p of premises) {
    const head = headName(p.statement);
    if (head !== undefined && IMPLICATION_HEADS.has(head) && p.statement.kind === 'expr' && p.statement.items.length === 3) {
      rules.push({ id: p.beliefId, premise: p.statement.items[1]!, conclusion: p.statement.items[2]!, tv: p.tv, stamp: [p.stamp], evidence: p.evidence });
    } else {
      facts.push({ id: p.beliefId, term: p.statement, tv: p.tv, stamp: [p.stamp], evidence: p.evidence });
    }
  }
  return { facts, rules };
}
