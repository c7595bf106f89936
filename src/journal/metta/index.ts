export type { MettaAtom, MettaExpr, MettaNumber, MettaString, MettaSymbol, MettaVariable } from './ast.ts';
export { atomsEqual, expr, headName, num, str, sym, symbolName, variable } from './ast.ts';
export { DEFAULT_MAX_DEPTH, decodeUtf8Strict, lineColumn, parseMetta, parseMettaBytes, parseOneAtom, type ParseOptions } from './parser.ts';
export { escapeString, printAtom, printNumber } from './printer.ts';
