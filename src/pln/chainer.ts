import { MnemosError } from '../domain/errors.ts';
import { sym, type MettaAtom } from '../journal/metta/ast.ts';
import { printAtom } from '../journal/metta/printer.ts';
import { modusPonens, revision, simpleModusPonens } from './formulas.ts';
import type { Stv } from './truth.ts';
import { isGround, match, substitute } from './unify.ts';

/**
 * A small, bounded forward chainer. Facts are ground terms with a truth value
 * and a stamp (the set of evidence ids behind them); rules are implications
 * premise -> conclusion. Each (fact, rule) attempt costs one step and the run
 * stops at the step budget. A conclusion is drawn only when the fact's and
 * the rule's stamps are disjoint, and two truth values for one term are
 * revised only when their stamps are disjoint, so no piece of evidence is
 * ever counted twice; with overlapping stamps the more confident one stays.
 * Stamps name beliefs; two beliefs can still rest on the same observation
 * (both `EvidenceFor` one event), so inputs may also list their evidence ids,
 * carried through every derivation, and revision needs those disjoint too:
 * revision adds the two evidence counts, so one observation recorded as two
 * beliefs would otherwise be revised into a confidence it never earned.
 */

export interface ChainFact {
  id: string;
  term: MettaAtom;
  tv: Stv;
  stamp: readonly number[];
  /** Ids of the journal evidence behind it (EvidenceFor); overlapping evidence blocks revision like overlapping stamps. */
  evidence?: readonly string[];
}

export interface ChainRule {
  id: string;
  premise: MettaAtom;
  conclusion: MettaAtom;
  tv: Stv;
  /** The not-premise -> conclusion rule; absent means PeTTaChainer's (0.2, 0.2) fallback. */
  complement?: Stv;
  stamp: readonly number[];
  /** As ChainFact.evidence. */
  evidence?: readonly string[];
}

export interface ChainOptions {
  maxSteps: number;
  /** Cap on distinct terms held, so a generative rule cannot exhaust memory. Default 10,000. */
  maxFacts?: number;
  /** `total-mp` (with complement, PeTTaChainer's default) or `simple-mp`. */
  formula?: 'total-mp' | 'simple-mp';
}

export interface ChainAnswer {
  term: MettaAtom;
  tv: Stv;
  proof: MettaAtom;
  stamp: number[];
  bindings: Record<string, MettaAtom>;
}

export interface ChainResult {
  answers: ChainAnswer[];
  steps: number;
  /** True when the step budget or fact cap stopped the run before the agenda emptied. */
  budgetExhausted: boolean;
  /** Distinct terms known at the end (premises and conclusions). */
  known: number;
}

interface Known {
  term: MettaAtom;
  tv: Stv;
  proof: MettaAtom;
  stamp: number[];
  evidence: string[];
}

export function chain(query: MettaAtom, facts: readonly ChainFact[], rules: readonly ChainRule[], options: ChainOptions): ChainResult {
  if (!Number.isInteger(options.maxSteps) || options.maxSteps < 0) throw new MnemosError('validation_failed', `maxSteps must be a non-negative integer, got ${options.maxSteps}`);
  const maxFacts = options.maxFacts ?? 10_000;
  const mp = options.formula === 'simple-mp' ? (f: Stv, r: ChainRule) => simpleModusPonens(f, r.tv) : (f: Stv, r: ChainRule) => modusPonens(f, r.tv, r.complement);
  const known = new Map<string, Known>();
  const agenda: string[] = [];
  let full = false;

  const offer = (k: Known): void => {
    const key = printAtom(k.term);
    const existing = known.get(key);
    if (!existing) {
      if (known.size >= maxFacts) {
        full = true;
        return;
      }
      known.set(key, k);
      agenda.push(key);
      return;
    }
    if (independent(existing, k)) {
      known.set(key, {
        term: existing.term,
        tv: revision(existing.tv, k.tv),
        proof: expr('revision-proof', existing.proof, k.proof),
        stamp: union(existing.stamp, k.stamp),
        evidence: unionIds(existing.evidence, k.evidence),
      });
      agenda.push(key);
    } else if (k.tv.c > existing.tv.c) {
      known.set(key, k);
      agenda.push(key);
    }
  };

  for (const f of facts) {
    if (!isGround(f.term)) throw new MnemosError('validation_failed', `fact ${f.id} has variables; facts must be ground terms`);
    offer({ term: f.term, tv: f.tv, proof: sym(f.id), stamp: normalise(f.stamp), evidence: unionIds([], f.evidence ?? []) });
  }

  let steps = 0;
  let exhausted = false;
  outer: for (let next = 0; next < agenda.length; next++) {
    const key = agenda[next]!;
    const fact = known.get(key)!;
    for (const rule of rules) {
      if (steps >= options.maxSteps) {
        exhausted = true;
        break outer;
      }
      steps++;
      const bindings = match(rule.premise, fact.term);
      if (bindings === null || !disjoint(fact.stamp, rule.stamp)) continue;
      const conclusion = substitute(rule.conclusion, bindings);
      if (!isGround(conclusion)) continue;
      offer({
        term: conclusion,
        tv: mp(fact.tv, rule),
        proof: expr('rule-proof', sym(rule.id), fact.proof),
        stamp: union(fact.stamp, rule.stamp),
        evidence: unionIds(fact.evidence, rule.evidence ?? []),
      });
    }
  }

  const answers: ChainAnswer[] = [];
  for (const k of known.values()) {
    const b = match(query, k.term);
    if (b !== null) answers.push({ term: k.term, tv: k.tv, proof: k.proof, stamp: k.stamp, bindings: Object.fromEntries(b) });
  }
  answers.sort((a, b) => b.tv.c - a.tv.c || (printAtom(a.term) < printAtom(b.term) ? -1 : 1));
  return { answers, steps, budgetExhausted: exhausted || full, known: known.size };
}

function expr(head: string, ...args: MettaAtom[]): MettaAtom {
  return { kind: 'expr', items: [sym(head), ...args] };
}

function normalise(stamp: readonly number[]): number[] {
  return [...new Set(stamp)].sort((a, b) => a - b);
}

export function disjoint(a: readonly number[], b: readonly number[]): boolean {
  const set = new Set(a);
  return !b.some((x) => set.has(x));
}

function union(a: readonly number[], b: readonly number[]): number[] {
  return normalise([...a, ...b]);
}

/** Two truth values for one term may be revised only when neither their beliefs nor their evidence overlap. */
function independent(a: Known, b: Known): boolean {
  return disjoint(a.stamp, b.stamp) && disjointIds(a.evidence, b.evidence);
}

function disjointIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length === 0 || b.length === 0) return true;
  const set = new Set(a);
  return !b.some((x) => set.has(x));
}

function unionIds(a: readonly string[], b: readonly string[]): string[] {
  return [...new Set([...a, ...b])].sort();
}
