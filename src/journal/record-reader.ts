import { MnemosError, type ErrorCode } from '../domain/errors.ts';
import type { MettaAtom } from './metta/ast.ts';
import { parseMettaRange, type ParseOptions } from './metta/parser.ts';
import { BEGIN_PREFIX, END_PREFIX, isIdentifier } from './schema.ts';

/**
 * Splits journal text into MemoryCluster records, line by line. It checks
 * the envelope (BEGIN/END delimiters, matching ids, no nesting, no text
 * outside a record) and that each atom line holds exactly one atom; the
 * content rules live in validate.ts. It never decides about torn tails
 * itself: it reports a record still open at the end and lets the caller
 * decide whether that is an error (user input) or a torn append (journal).
 */

export interface RawRecord {
  id: string;
  atoms: MettaAtom[];
  /** Source line of each atom. */
  lines: number[];
  beginLine: number;
  endLine: number;
  /** UTF-16 offsets of the record in the text: [charStart, charEnd). */
  charStart: number;
  charEnd: number;
}

export interface ReadOptions {
  /** Error code for envelope and syntax errors: `validation_failed` for input, `corrupt` for a stored journal. */
  code: ErrorCode;
  /** Line number of the first line of `text`. */
  firstLine?: number;
  maxDepth?: number;
  /** Report a record open at the end instead of failing. */
  allowOpenAtEnd?: boolean;
}

export interface ReadResult {
  records: RawRecord[];
  /** A record begun and not ended before the end of the text. */
  open: { id: string; line: number; charStart: number } | null;
}

export function readRecords(text: string, options: ReadOptions): ReadResult {
  const firstLine = options.firstLine ?? 1;
  const records: RawRecord[] = [];
  let current: RawRecord | null = null;
  let pos = 0;
  let lineNo = firstLine - 1;
  const parseOptions: ParseOptions = { maxDepth: options.maxDepth, lineOffset: firstLine - 1, symbolCache: new Map() };
  const fail = (line: number, what: string): never => {
    throw new MnemosError(options.code, `line ${line}: ${what}`, { line });
  };
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const lineEnd = nl < 0 ? text.length : nl;
    const next = nl < 0 ? text.length : nl + 1;
    let line = text.slice(pos, lineEnd);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    lineNo++;
    const lineStart = pos;
    pos = next;

    if (line.startsWith(';;; BEGIN ')) {
      if (current) fail(lineNo, `record ${current.id} (begun on line ${current.beginLine}) is not ended before a new BEGIN; records cannot nest`);
      if (!line.startsWith(BEGIN_PREFIX)) fail(lineNo, `expected "${BEGIN_PREFIX}<id>"; only MemoryCluster records belong in a journal`);
      const id = line.slice(BEGIN_PREFIX.length).trim();
      if (!isIdentifier(id)) fail(lineNo, `record id ${JSON.stringify(id)} is not a valid identifier (letters, digits, _ . : -, starting with a letter)`);
      current = { id, atoms: [], lines: [], beginLine: lineNo, endLine: 0, charStart: lineStart, charEnd: 0 };
      continue;
    }
    if (line.startsWith(';;; END ')) {
      if (!current) fail(lineNo, 'END without a matching BEGIN');
      const rec = current!;
      if (!line.startsWith(END_PREFIX)) fail(lineNo, `expected "${END_PREFIX}${rec.id}"`);
      const id = line.slice(END_PREFIX.length).trim();
      if (id !== rec.id) fail(lineNo, `END names ${JSON.stringify(id)} but the record begun on line ${rec.beginLine} is ${rec.id}`);
      rec.endLine = lineNo;
      rec.charEnd = next;
      records.push(rec);
      current = null;
      continue;
    }
    if (line.trim() === '') continue;
    if (!current) fail(lineNo, `text outside a record: ${JSON.stringify(line.slice(0, 60))}; every atom must sit between BEGIN and END lines`);
    const atoms = parseLine(text, lineStart, lineEnd, parseOptions, options.code);
    if (atoms.length === 0) continue; // a comment line inside a record
    if (atoms.length > 1) fail(lineNo, `${atoms.length} atoms on one line; write one atom per line`);
    current!.atoms.push(atoms[0]!);
    current!.lines.push(lineNo);
  }
  if (current && !options.allowOpenAtEnd) fail(current.beginLine, `record ${current.id} is never ended; add "${END_PREFIX}${current.id}"`);
  return { records, open: current ? { id: current.id, line: current.beginLine, charStart: current.charStart } : null };
}

/** Parses one line in place, re-labelling syntax errors with the caller's code (a stored journal is `corrupt`). */
function parseLine(text: string, start: number, end: number, options: ParseOptions, code: ErrorCode): MettaAtom[] {
  try {
    return parseMettaRange(text, start, end, options);
  } catch (err) {
    if (MnemosError.is(err) && err.code !== code) throw new MnemosError(code, err.message, err.details, { cause: err });
    throw err;
  }
}
