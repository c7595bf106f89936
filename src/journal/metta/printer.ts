import { MnemosError } from '../../domain/errors.ts';
import { NUMBER_RE, bareTokenProblem, mayBeNumber, type MettaAtom } from './ast.ts';

/**
 * Canonical MeTTa text: single spaces, no comments, strings escaped so the
 * output is one line and valid UTF-8 (lone surrogates become \uXXXX), numbers
 * in JavaScript's shortest round-trip form. parse(print(t)) equals t for every
 * tree this function accepts; trees it cannot print that way are refused.
 * Iterative, so depth is bounded only by memory.
 */
export function printAtom(atom: MettaAtom): string {
  return printShallow(atom, 0);
}

/** Recursive fast path for ordinary trees; hands deep subtrees to the iterative printer. */
function printShallow(atom: MettaAtom, depth: number): string {
  switch (atom.kind) {
    case 'symbol':
      return printSymbol(atom.name);
    case 'string':
      return escapeString(atom.value);
    case 'number':
      return printNumber(atom.value);
    case 'variable':
      return printIterative(atom);
    case 'expr': {
      if (depth >= 64) return printIterative(atom);
      let out = '(';
      for (let i = 0; i < atom.items.length; i++) out += (i > 0 ? ' ' : '') + printShallow(atom.items[i]!, depth + 1);
      return out + ')';
    }
  }
}

function printIterative(atom: MettaAtom): string {
  const out: string[] = [];
  // Work items: an atom to print, or a literal string (closing paren / separator).
  const work: Array<MettaAtom | string> = [atom];
  while (work.length > 0) {
    const item = work.pop()!;
    if (typeof item === 'string') {
      out.push(item);
      continue;
    }
    switch (item.kind) {
      case 'symbol':
        out.push(printSymbol(item.name));
        break;
      case 'variable': {
        const problem = bareTokenProblem(item.name);
        if (problem) throw new MnemosError('validation_failed', `variable name ${JSON.stringify(item.name.slice(0, 80))} ${problem}`);
        out.push('$', item.name);
        break;
      }
      case 'string':
        out.push(escapeString(item.value));
        break;
      case 'number':
        out.push(printNumber(item.value));
        break;
      case 'expr': {
        out.push('(');
        work.push(')');
        for (let i = item.items.length - 1; i >= 0; i--) {
          work.push(item.items[i]!);
          if (i > 0) work.push(' ');
        }
        break;
      }
    }
  }
  return out.join('');
}

function printSymbol(name: string): string {
  const problem = bareTokenProblem(name);
  if (problem) throw new MnemosError('validation_failed', `symbol name ${JSON.stringify(name.slice(0, 80))} ${problem}; use a string atom for free text`);
  if (name.charCodeAt(0) === 36 || (mayBeNumber(name) && NUMBER_RE.test(name))) {
    throw new MnemosError('validation_failed', `symbol ${JSON.stringify(name.slice(0, 80))} would not read back as a symbol`);
  }
  return name;
}

export function printNumber(value: number): string {
  if (!Number.isFinite(value)) throw new MnemosError('validation_failed', `number ${value} is not finite; MeTTa text has no spelling for it`);
  return String(value === 0 ? 0 : value);
}

const SIMPLE_ESCAPES: Record<number, string> = { 34: '\\"', 92: '\\\\', 10: '\\n', 13: '\\r', 9: '\\t' };

/** Anything that needs an escape: quote, backslash, C0 controls, DEL, any surrogate half. */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u007f\ud800-\udfff]/;

export function escapeString(value: string): string {
  if (!NEEDS_ESCAPE.test(value)) return '"' + value + '"';
  let out = '"';
  let runStart = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    let rep: string | undefined = SIMPLE_ESCAPES[c];
    if (rep === undefined && (c < 0x20 || c === 0x7f)) rep = hex4(c);
    if (rep === undefined && c >= 0xd800 && c <= 0xdfff) {
      const next = value.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a proper pair: keep both halves raw
        continue;
      }
      rep = hex4(c);
    }
    if (rep !== undefined) {
      out += value.slice(runStart, i) + rep;
      runStart = i + 1;
    }
  }
  return out + value.slice(runStart) + '"';
}

function hex4(code: number): string {
  return '\\u' + code.toString(16).toUpperCase().padStart(4, '0');
}
