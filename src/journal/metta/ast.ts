import { MnemosError } from '../../domain/errors.ts';

/**
 * The MeTTa atom tree. Plain immutable data so trees can be compared, hashed
 * and printed without a class hierarchy. A variable's `name` excludes the `$`.
 */
export interface MettaSymbol {
  readonly kind: 'symbol';
  readonly name: string;
}
export interface MettaVariable {
  readonly kind: 'variable';
  readonly name: string;
}
export interface MettaString {
  readonly kind: 'string';
  readonly value: string;
}
export interface MettaNumber {
  readonly kind: 'number';
  readonly value: number;
}
export interface MettaExpr {
  readonly kind: 'expr';
  readonly items: readonly MettaAtom[];
}
export type MettaAtom = MettaSymbol | MettaVariable | MettaString | MettaNumber | MettaExpr;

/** Characters that end a bare token (symbol, variable, number). */
export function isDelimiter(code: number): boolean {
  return code === 40 || code === 41 || code === 34 || code === 59 || isWhitespace(code); // ( ) " ;
}

export function isWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13); // space, \t \n \v \f \r
}

/** A token that reads back as a number; anything else bare is a symbol. */
export const NUMBER_RE = /^[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$/;

/** Cheap pre-check before NUMBER_RE: a number starts with a digit or a sign. */
export function mayBeNumber(token: string): boolean {
  const c = token.charCodeAt(0);
  return (c >= 48 && c <= 57) || c === 43 || c === 45;
}

/** Why `name` cannot be printed as a bare token, or null when it can. */
const DELIMITER_RE = /[ \t\n\v\f\r()";]/;

export function bareTokenProblem(name: string): string | null {
  if (name.length === 0) return 'is empty';
  if (!DELIMITER_RE.test(name)) return null;
  for (let i = 0; i < name.length; i++) {
    if (isDelimiter(name.charCodeAt(i))) return `contains the delimiter ${JSON.stringify(name[i])} at index ${i}`;
  }
  return null;
}

export function sym(name: string): MettaSymbol {
  const problem = bareTokenProblem(name);
  if (problem) throw new MnemosError('validation_failed', `symbol name ${JSON.stringify(name.slice(0, 80))} ${problem}; use a string atom for free text`);
  if (name.charCodeAt(0) === 36) throw new MnemosError('validation_failed', `symbol ${JSON.stringify(name)} starts with "$"; use variable() for variables`);
  if (mayBeNumber(name) && NUMBER_RE.test(name)) throw new MnemosError('validation_failed', `symbol ${JSON.stringify(name)} would read back as a number; use num()`);
  return { kind: 'symbol', name };
}

export function variable(name: string): MettaVariable {
  const problem = bareTokenProblem(name);
  if (problem) throw new MnemosError('validation_failed', `variable name ${JSON.stringify(name.slice(0, 80))} ${problem}`);
  return { kind: 'variable', name };
}

export function str(value: string): MettaString {
  return { kind: 'string', value };
}

export function num(value: number): MettaNumber {
  if (!Number.isFinite(value)) throw new MnemosError('validation_failed', `number ${value} is not finite; MeTTa text has no spelling for it`);
  return { kind: 'number', value: Object.is(value, -0) ? 0 : value };
}

export function expr(...items: MettaAtom[]): MettaExpr {
  return { kind: 'expr', items };
}

/** Iterative structural equality, so very deep trees cannot overflow the stack. */
export function atomsEqual(a: MettaAtom, b: MettaAtom): boolean {
  const work: Array<[MettaAtom, MettaAtom]> = [[a, b]];
  while (work.length > 0) {
    const [x, y] = work.pop()!;
    if (x.kind !== y.kind) return false;
    switch (x.kind) {
      case 'symbol':
      case 'variable':
        if (x.name !== (y as MettaSymbol | MettaVariable).name) return false;
        break;
      case 'string':
        if (x.value !== (y as MettaString).value) return false;
        break;
      case 'number':
        if (x.value !== (y as MettaNumber).value) return false;
        break;
      case 'expr': {
        const yi = (y as MettaExpr).items;
        if (x.items.length !== yi.length) return false;
        for (let i = 0; i < yi.length; i++) work.push([x.items[i]!, yi[i]!]);
        break;
      }
    }
  }
  return true;
}

/** The name when `atom` is a symbol, else undefined. */
export function symbolName(atom: MettaAtom | undefined): string | undefined {
  return atom?.kind === 'symbol' ? atom.name : undefined;
}

/** Head symbol name of an expression, else undefined. */
export function headName(atom: MettaAtom): string | undefined {
  return atom.kind === 'expr' ? symbolName(atom.items[0]) : undefined;
}
