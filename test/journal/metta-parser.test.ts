import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { atomsEqual, expr, num, str, sym, variable, type MettaAtom } from '../../src/journal/metta/ast.ts';
import { parseMetta, parseMettaBytes, parseOneAtom } from '../../src/journal/metta/parser.ts';
import { escapeString, printAtom } from '../../src/journal/metta/printer.ts';

const cases: Array<[string, string, MettaAtom]> = [
  ['symbol', 'foo', sym('foo')],
  ['symbol with punctuation', 'mc-2026.11:a_b', sym('mc-2026.11:a_b')],
  ['variable', '$x', variable('x')],
  ['integer', '42', num(42)],
  ['negative float', '-3.5', num(-3.5)],
  ['exponent', '1e-7', num(1e-7)],
  ['pinned float', '0.7600000000000001', num(0.7600000000000001)],
  ['sign alone is a symbol', '-', sym('-')],
  ['dotted number-like is a symbol', '1.2.3', sym('1.2.3')],
  ['string', '"hello world"', str('hello world')],
  ['string escapes', String.raw`"a\"b\\c\nd\te\rf\u00e9\/"`, str('a"b\\c\nd\te\rf\u00e9/')],
  ['empty expression', '()', expr()],
  ['nested', '(a (b $x) "s" 1)', expr(sym('a'), expr(sym('b'), variable('x')), str('s'), num(1))],
  ['stv', '(stv 0.8 0.6)', expr(sym('stv'), num(0.8), num(0.6))],
  ['comment after atom', '(a b) ; trailing', expr(sym('a'), sym('b'))],
  ['whitespace inside', '(  a\t\nb  )', expr(sym('a'), sym('b'))],
];

for (const [name, src, want] of cases) {
  test(`parses ${name}`, () => {
    const got = parseOneAtom(src);
    assert.ok(atomsEqual(got, want), `${printAtom(got)} != ${printAtom(want)}`);
  });
}

const printed: Array<[MettaAtom, string]> = [
  [expr(sym('a'), str('x"y'), num(-0), num(1e21)), '(a "x\\"y" 0 1e+21)'],
  [str('line\nbreak\u0001'), '"line\\nbreak\\u0001"'],
  [str('lone \ud800 surrogate'), '"lone \\uD800 surrogate"'],
  [str('pair \ud83d\ude00 kept'), '"pair \ud83d\ude00 kept"'],
  [expr(sym(':'), sym('b1'), expr(sym('S'), sym('a')), expr(sym('STV'), num(0.8), num(0.6))), '(: b1 (S a) (STV 0.8 0.6))'],
];
for (const [atom, want] of printed) {
  test(`prints ${want}`, () => {
    assert.equal(printAtom(atom), want);
    assert.ok(atomsEqual(parseOneAtom(printAtom(atom)), atom));
  });
}

const errors: Array<[string, string, number, number, string]> = [
  ['unterminated string', '(a\n  "abc', 2, 3, 'never terminated'],
  ['unclosed paren', '(a\n(b c)', 1, 1, 'never closed'],
  ['stray close paren', 'a )', 1, 3, 'unexpected ")"'],
  ['bad escape', '"a\\qb"', 1, 3, 'unknown escape'],
  ['short unicode escape', '"\\u12"', 1, 2, '4 hex digits'],
  ['bare dollar', '(a $)', 1, 4, 'variable needs a name'],
  ['huge number', '1e999', 1, 1, 'out of range'],
  ['column counts code points', '"😀😀" )', 1, 6, 'unexpected ")"'],
];
for (const [name, src, line, column, fragment] of errors) {
  test(`reports ${name} with line and column`, () => {
    assert.throws(
      () => parseMetta(src),
      (err: unknown) => {
        assert.ok(MnemosError.is(err, 'validation_failed'));
        assert.deepEqual([err.details?.line, err.details?.column], [line, column]);
        assert.match(err.message, new RegExp(fragment.replace(/[()]/g, '\\$&')));
        return true;
      },
    );
  });
}

test('depth beyond the limit is a limit_exceeded error, not a stack overflow', () => {
  assert.throws(() => parseMetta('('.repeat(100_000)), (e: unknown) => MnemosError.is(e, 'limit_exceeded'));
  assert.throws(() => parseMetta('(a)', { maxDepth: 0 }), (e: unknown) => MnemosError.is(e, 'limit_exceeded'));
  assert.equal(parseMetta('((((x))))', { maxDepth: 4 }).length, 1);
});

test('invalid UTF-8 bytes are refused, never replaced', () => {
  assert.throws(() => parseMettaBytes(new Uint8Array([0x28, 0x61, 0xff, 0x29])), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  const ok = parseMettaBytes(new TextEncoder().encode('(a "é")'));
  assert.ok(atomsEqual(ok[0]!, expr(sym('a'), str('é'))));
});

test('constructors refuse names that would not read back', () => {
  for (const bad of ['', 'a b', '(x', '12', '$v', 'a"b', 'x;y']) assert.throws(() => sym(bad), (e: unknown) => MnemosError.is(e));
  assert.throws(() => num(Infinity), (e: unknown) => MnemosError.is(e));
  assert.throws(() => printAtom({ kind: 'symbol', name: 'two words' }), (e: unknown) => MnemosError.is(e));
});

test('escapeString keeps ordinary text unchanged', () => {
  assert.equal(escapeString('plain text, with ünïcode'), '"plain text, with ünïcode"');
});

test('a deep tree built in code prints iteratively without overflowing', () => {
  let deep: MettaAtom = sym('x');
  for (let i = 0; i < 20_000; i++) deep = expr(deep);
  const text = printAtom(deep);
  assert.equal(text.length, 40_001);
  assert.ok(atomsEqual(parseOneAtom(text, { maxDepth: 30_000 }), deep));
});

test('a number a 64-bit float cannot hold is refused, never written back as another number', () => {
  const kept: [string, number][] = [
    ['9007199254740991', 9007199254740991],
    ['9007199254740992', 2 ** 53],
    ['100000000000000000000', 1e20],
    ['-0', 0],
    ['+5', 5],
    ['007', 7],
    ['1.50', 1.5],
    ['0.30000000000000004', 0.30000000000000004],
    ['1e21', 1e21],
    ['1.5e3', 1500],
    ['0.1', 0.1],
    ['-2.50e-3', -0.0025],
    ['5e-324', 5e-324],
  ];
  for (const [token, value] of kept) {
    const [atom] = parseMetta(`(X ${token})`) as unknown as [{ items: MettaAtom[] }];
    assert.ok(atomsEqual(atom.items[1]!, num(value)), token);
    // What the printer writes reads back as the same value.
    assert.ok(atomsEqual(parseMetta(printAtom(atom.items[1]!))[0]!, num(value)), token);
  }
  for (const token of ['9007199254740993', '12345678901234567890', '-18446744073709551615', '3.141592653589793238', '9007199254740993.0', '9007199254740993e0', '0.9007199254740993e16', '1e-400', '2.5e-330', '0.30000000000000001']) {
    assert.throws(() => parseMetta(`(X ${token})`), (err: unknown) => MnemosError.is(err, 'validation_failed') && /float/.test((err as Error).message) && (err as Error).message.includes(`"${token}"`), token);
  }
});
