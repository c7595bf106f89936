import { MnemosError } from '../domain/errors.ts';
import { isStv, stv, type Stv } from './truth.ts';

/**
 * PLN truth-value formulas (shared/reference/formulas.md). Pure functions,
 * written in the same operation order as the originals so results match
 * bit for bit (the pinned vector gives 0.7600000000000001, not 0.76).
 */

/** PeTTaChainer's fallback for a missing not-A -> B rule. */
export const DEFAULT_COMPLEMENT: Stv = { s: 0.2, c: 0.2 };

/** Evidence horizon of revision. */
export const REVISION_K = 800;

/**
 * Modus ponens with complement (TotalMpFormula): from A (as, ac), A->B (s1, c1)
 * and not-A->B (s0, c0), derive B.
 */
export function modusPonens(fact: Stv, rule: Stv, complement: Stv = DEFAULT_COMPLEMENT): Stv {
  given({ fact, rule, complement });
  const as = fact.s;
  const strength = rule.s * as + complement.s * (1 - as);
  const confidence = as * Math.min(rule.c, fact.c) + (1 - as) * Math.min(complement.c, fact.c);
  return stv(clampUnit(strength), clampUnit(confidence));
}

/** Simple modus ponens: no complement term. */
export function simpleModusPonens(fact: Stv, rule: Stv): Stv {
  given({ fact, rule });
  return stv(clampUnit(rule.s * fact.s), clampUnit(fact.s * Math.min(rule.c, fact.c)));
}

export function and(a: Stv, b: Stv): Stv {
  given({ a, b });
  return stv(a.s * b.s, Math.min(a.c, b.c));
}

export function or(a: Stv, b: Stv): Stv {
  given({ a, b });
  return stv(clampUnit(a.s + b.s - a.s * b.s), Math.min(a.c, b.c));
}

export function not(a: Stv): Stv {
  given({ a });
  return stv(1 - a.s, a.c);
}

/** Evidence count behind a confidence: n = c·K / (1 - min(c, 0.9999)). */
export function evidenceCount(c: number, k: number = REVISION_K): number {
  return (c * k) / (1 - Math.min(c, 0.9999));
}

/** Revision of two truth values for the same statement from disjoint evidence. */
export function revision(a: Stv, b: Stv, k: number = REVISION_K): Stv {
  given({ a, b });
  if (!(Number.isFinite(k) && k > 0)) throw new MnemosError('validation_failed', `the evidence horizon k must be a positive number, got ${k}`);
  const n1 = evidenceCount(a.c, k);
  const n2 = evidenceCount(b.c, k);
  const n = n1 + n2;
  if (n === 0) return stv((a.s + b.s) / 2, 0);
  return stv(clampUnit((a.s * n1 + b.s * n2) / n), clampUnit(n / (n + k)));
}

/**
 * Evidence counts projected to a truth value: s = support / total, c = total / (total + 2).
 * The reverse is never done: counts are not inferred from a truth value.
 */
export function evidenceToStv(support: number, opposition: number): Stv {
  if (!(support >= 0) || !(opposition >= 0) || !Number.isFinite(support) || !Number.isFinite(opposition)) {
    throw new MnemosError('validation_failed', `evidence counts must be finite and non-negative, got (${support}, ${opposition})`);
  }
  const total = support + opposition;
  if (total === 0) return stv(0.5, 0);
  // Two counts near the largest double overflow their sum: the proportion is scale-free and the confidence is 1 by then.
  if (!Number.isFinite(total)) return stv(support / 2 / (support / 2 + opposition / 2), 1);
  return stv(support / total, total / (total + 2));
}

/** patham9 PLN weights: w = c / (1 - c) and back. */
export function confidenceToWeight(c: number): number {
  return c / (1 - Math.min(c, 0.9999));
}

export function weightToConfidence(w: number): number {
  return w / (w + 1);
}

/** patham9 PLN revision: weight-averaged frequency, summed weights. */
export function weightRevision(a: Stv, b: Stv): Stv {
  given({ a, b });
  const w1 = confidenceToWeight(a.c);
  const w2 = confidenceToWeight(b.c);
  const w = w1 + w2;
  if (w === 0) return stv((a.s + b.s) / 2, 0);
  return stv(clampUnit((w1 * a.s + w2 * b.s) / w), clampUnit(weightToConfidence(w)));
}

/**
 * Inputs outside [0, 1] gave numbers that looked like truth values (a
 * confidence of 2 revised to 0.99995) or NaN in a chained answer: refused,
 * naming the argument.
 */
function given(args: Record<string, Stv>): void {
  for (const [name, tv] of Object.entries(args)) {
    if (!isStv(tv)) throw new MnemosError('validation_failed', `${name} must be a truth value with strength and confidence in [0, 1], got ${describe(tv)}`, { field: name });
  }
}

function describe(tv: unknown): string {
  const v = tv as Partial<Stv> | null;
  return typeof v === 'object' && v !== null ? `(${String(v.s)}, ${String(v.c)})` : String(tv);
}

/** Guards against 1.0000000000000002 from rounding; anything really outside [0, 1] still fails in stv(). */
function clampUnit(x: number): number {
  if (x > 1 && x < 1 + 1e-12) return 1;
  if (x < 0 && x > -1e-12) return 0;
  return x;
}
