import { MnemosError } from '../domain/errors.ts';
import { num, sym, type MettaAtom } from '../journal/metta/ast.ts';

/**
 * Simple truth values: strength and confidence, both in [0, 1]. Plain
 * objects so formulas stay pure functions of numbers.
 */
export interface Stv {
  readonly s: number;
  readonly c: number;
}

export function stv(s: number, c: number): Stv {
  if (!unit(s) || !unit(c)) throw new MnemosError('validation_failed', `a truth value needs strength and confidence in [0, 1], got (${s}, ${c})`);
  return { s, c };
}

export function isStv(value: unknown): value is Stv {
  const v = value as Stv;
  return typeof v === 'object' && v !== null && unit(v.s) && unit(v.c);
}

function unit(x: number): boolean {
  return typeof x === 'number' && Number.isFinite(x) && x >= 0 && x <= 1;
}

/** `(STV s c)`, PeTTaChainer's spelling. */
export function stvAtom(tv: Stv, head = 'STV'): MettaAtom {
  return { kind: 'expr', items: [sym(head), num(tv.s), num(tv.c)] };
}
