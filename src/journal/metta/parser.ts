import { printNumber } from './printer.ts';
import { MnemosError, type ErrorCode } from '../../domain/errors.ts';
import { NUMBER_RE, isDelimiter, isWhitespace, mayBeNumber, type MettaAtom } from './ast.ts';

/**
 * MeTTa S-expression reader. It is iterative (an explicit stack instead of
 * recursion) and caps nesting depth, so hostile input such as 100k open
 * parentheses ends in a MnemosError instead of a stack overflow. The only
 * things it throws are MnemosErrors whose details carry line and column.
 */

export interface ParseOptions {
  /** Deepest allowed expression nesting. */
  maxDepth?: number;
  /** Longest accepted input, in UTF-16 code units. */
  maxInputChars?: number;
  /** Added to reported line numbers, for text cut out of a larger file. */
  lineOffset?: number;
  /**
   * Shares one immutable symbol atom per distinct name across calls. The
   * journal reader passes one per file, so the thousands of `About` heads of
   * a large journal are one object instead of thousands.
   */
  symbolCache?: Map<string, MettaAtom>;
}

export const DEFAULT_MAX_DEPTH = 512;
export const DEFAULT_MAX_INPUT_CHARS = 64 * 1024 * 1024;

const ESCAPES: Record<string, string> = { '"': '"', '\\': '\\', '/': '/', n: '\n', r: '\r', t: '\t', b: '\b', f: '\f' };

export function parseMetta(src: string, options: ParseOptions = {}): MettaAtom[] {
  return parseMettaRange(src, 0, src.length, options);
}

/**
 * Parses src[start, end) without copying it out first (the journal reader
 * parses each line of a large file in place). Reported lines count from the
 * start of `src`, plus `lineOffset`.
 */
export function parseMettaRange(src: string, start: number, end: number, options: ParseOptions = {}): MettaAtom[] {
  const maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
  const maxChars = options.maxInputChars ?? DEFAULT_MAX_INPUT_CHARS;
  if (end - start > maxChars) failAt(options, src, 'limit_exceeded', start + maxChars, `input is ${end - start} characters, over the limit of ${maxChars}`);

  const top: MettaAtom[] = [];
  const stack: MettaAtom[][] = [];
  const opens: number[] = [];
  let current = top;
  const n = end;
  let i = start;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (isWhitespace(c)) {
      i++;
    } else if (c === 59) {
      // ';' comment runs to the end of the line
      const nl = src.indexOf('\n', i);
      i = nl < 0 || nl >= n ? n : nl + 1;
    } else if (c === 40) {
      if (stack.length >= maxDepth) failAt(options, src, 'limit_exceeded', i, `expressions nest deeper than ${maxDepth} levels`);
      stack.push(current);
      opens.push(i);
      current = [];
      i++;
    } else if (c === 41) {
      if (stack.length === 0) failAt(options, src, 'validation_failed', i, `unexpected ")" with no open expression`);
      const items = current;
      current = stack.pop()!;
      opens.pop();
      current.push({ kind: 'expr', items });
      i++;
    } else if (c === 34) {
      const [value, after] = readString(src, i, n, options);
      current.push({ kind: 'string', value });
      i = after;
    } else {
      let j = i + 1;
      while (j < n && !isDelimiter(src.charCodeAt(j))) j++;
      current.push(tokenAtom(src, i, j, options));
      i = j;
    }
  }
  if (stack.length > 0) failAt(options, src, 'validation_failed', opens[opens.length - 1]!, `"(" is never closed`);
  return top;
}

/** Decodes bytes as strict UTF-8 first; invalid bytes are an error, never replaced. */
export function parseMettaBytes(bytes: Uint8Array, options: ParseOptions = {}): MettaAtom[] {
  return parseMetta(decodeUtf8Strict(bytes), options);
}

export function decodeUtf8Strict(bytes: Uint8Array, what = 'input'): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch (err) {
    throw new MnemosError('validation_failed', `${what} is not valid UTF-8; re-encode it as UTF-8`, { bytes: bytes.length }, { cause: err });
  }
}

/** Exactly one atom, e.g. one journal line. */
export function parseOneAtom(src: string, options: ParseOptions = {}): MettaAtom {
  const atoms = parseMetta(src, options);
  if (atoms.length !== 1) {
    throw new MnemosError('validation_failed', `line ${1 + (options.lineOffset ?? 0)}: expected exactly one atom, found ${atoms.length}`, {
      line: 1 + (options.lineOffset ?? 0),
      column: 1,
      found: atoms.length,
    });
  }
  return atoms[0]!;
}

function readString(src: string, start: number, n: number, options: ParseOptions): [string, number] {
  // Fast path: no escapes before the closing quote.
  const close = src.indexOf('"', start + 1);
  if (close >= 0 && close < n) {
    const body = src.slice(start + 1, close);
    if (body.indexOf('\\') < 0) return [body, close + 1];
  }
  const parts: string[] = [];
  let i = start + 1;
  let runStart = i;
  while (i < n) {
    const c = src.charCodeAt(i);
    if (c === 34) {
      parts.push(src.slice(runStart, i));
      return [parts.join(''), i + 1];
    }
    if (c !== 92) {
      i++;
      continue;
    }
    parts.push(src.slice(runStart, i));
    const e = i + 1 < n ? src[i + 1] : undefined;
    if (e === undefined) break;
    if (e === 'u') {
      const hex = src.slice(i + 2, Math.min(i + 6, n));
      if (!/^[0-9A-Fa-f]{4}$/.test(hex)) failAt(options, src, 'validation_failed', i, `"\\u" must be followed by 4 hex digits`);
      parts.push(String.fromCharCode(parseInt(hex, 16)));
      i += 6;
    } else {
      const mapped = ESCAPES[e];
      if (mapped === undefined) failAt(options, src, 'validation_failed', i, `unknown escape "\\${e}" in string (use \\\\ for a backslash)`);
      parts.push(mapped!);
      i += 2;
    }
    runStart = i;
  }
  return failAt(options, src, 'validation_failed', start, 'string is never terminated (missing closing ")');
}

/**
 * Numbers are kept as 64-bit floats and printed in their shortest form, so
 * `+5`, `007` and `1.50` are written back as 5, 7 and 1.5: the same value.
 * A token whose float prints as another decimal value is refused instead of
 * being written back as a neighbouring number: 9007199254740993 (in any
 * spelling, 9007199254740993.0 or 9007199254740993e0) became ...992, 1e-400
 * became 0, 0.30000000000000001 became 0.3.
 */
function precisionLost(token: string, value: number): string | null {
  const printed = printNumber(value);
  const a = decimalValue(token);
  const b = decimalValue(printed);
  if (a.negative === b.negative && a.digits === b.digits && a.exponent === b.exponent) return null;
  return `cannot be kept exactly by a 64-bit float (it would be written back as ${printed})`;
}

/** A decimal token's exact value: sign, significant digits without trailing zeros, and the power of ten they are scaled by. */
function decimalValue(token: string): { negative: boolean; digits: bigint; exponent: number } {
  const [, sign, int = '', frac = '', exp = '0'] = /^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$/.exec(token) ?? [];
  let digits = BigInt(int + frac || '0');
  let exponent = Number(exp) - frac.length;
  if (digits === 0n) return { negative: false, digits, exponent: 0 };
  while (digits % 10n === 0n) {
    digits /= 10n;
    exponent++;
  }
  return { negative: sign === '-', digits, exponent };
}

function tokenAtom(src: string, start: number, end: number, options: ParseOptions): MettaAtom {
  const token = src.slice(start, end);
  if (token.charCodeAt(0) === 36) {
    if (token.length === 1) failAt(options, src, 'validation_failed', start, 'a variable needs a name after "$"');
    return { kind: 'variable', name: token.slice(1) };
  }
  if (mayBeNumber(token) && NUMBER_RE.test(token)) {
    const value = Number(token);
    if (!Number.isFinite(value)) failAt(options, src, 'validation_failed', start, `number ${token.slice(0, 40)} is out of range`);
    const lost = precisionLost(token, value);
    if (lost) failAt(options, src, 'validation_failed', start, `number ${token.slice(0, 40)} ${lost}; write it as a string atom ("${token.slice(0, 40)}") to keep it exactly`);
    return { kind: 'number', value: value === 0 ? 0 : value };
  }
  const cache = options.symbolCache;
  if (cache === undefined) return { kind: 'symbol', name: token };
  let atom = cache.get(token);
  if (atom === undefined) {
    atom = { kind: 'symbol', name: token };
    if (cache.size < SYMBOL_CACHE_LIMIT) cache.set(token, atom);
  }
  return atom;
}

/** Symbols shared through a cache beyond this many distinct names are simply not cached. */
const SYMBOL_CACHE_LIMIT = 200_000;

/** Line and column (1-based, in code points) of a UTF-16 offset. Computed only on error. */
export function lineColumn(src: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, src.length);
  for (let nl = src.indexOf('\n'); nl >= 0 && nl < end; nl = src.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  let column = 1;
  for (let k = lineStart; k < end; k++) {
    // A low surrogate right after a high one is the second half of one code point.
    const c = src.charCodeAt(k);
    const pairTail = c >= 0xdc00 && c <= 0xdfff && k > lineStart && (src.charCodeAt(k - 1) & 0xfc00) === 0xd800;
    if (!pairTail) column++;
  }
  return { line, column };
}

function failAt(options: ParseOptions, src: string, code: ErrorCode, offset: number, what: string): never {
  throw positionedError(code, src, offset, options.lineOffset ?? 0, what);
}

function positionedError(code: ErrorCode, src: string, offset: number, lineOffset: number, what: string): MnemosError {
  const { line, column } = lineColumn(src, offset);
  const at = line + lineOffset;
  return new MnemosError(code, `line ${at}, column ${column}: ${what}`, { line: at, column });
}
