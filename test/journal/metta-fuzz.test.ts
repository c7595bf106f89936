import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { atomsEqual, type MettaAtom } from '../../src/journal/metta/ast.ts';
import { parseMetta, parseMettaBytes } from '../../src/journal/metta/parser.ts';
import { printAtom } from '../../src/journal/metta/printer.ts';
import { parseClusters } from '../../src/journal/parse-clusters.ts';
import { scanJournalBytes } from '../../src/journal/journal-scan.ts';
import { clusterProblems } from '../../src/journal/validate.ts';
import { REFERENCE_EXAMPLE } from './fixtures/example.ts';

/**
 * Property and fuzz tests with a seeded PRNG (mulberry32), so any failure
 * reproduces from its seed. The parser must only ever throw MnemosError,
 * never overflow the stack and never hang; printing must be a fixed point.
 */

function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYMBOL_CHARS = 'abcXYZ019-_.:+*/<>=!?&|#@~^%\u00e9\u4e2d';
const STRING_CHARS = 'ab "\\\n\t\r\u0000\u0007\u007f\u00e9\ud83d\ude00\ud800\udc00 ;()$';

function randomAtom(rand: () => number, depth: number): MettaAtom {
  const r = rand();
  if (depth > 0 && r < 0.35) {
    const n = Math.floor(rand() * 5);
    return { kind: 'expr', items: Array.from({ length: n }, () => randomAtom(rand, depth - 1)) };
  }
  if (r < 0.55) {
    let name = pick(rand, 'abcXYZ-_<>=!?');
    for (let i = Math.floor(rand() * 8); i > 0; i--) name += pick(rand, SYMBOL_CHARS);
    return /^[-+]?\d/.test(name) ? { kind: 'symbol', name: 'n' + name } : { kind: 'symbol', name };
  }
  if (r < 0.65) return { kind: 'variable', name: 'v' + Math.floor(rand() * 100) };
  if (r < 0.85) {
    let value = '';
    for (let i = Math.floor(rand() * 12); i > 0; i--) value += pick(rand, STRING_CHARS);
    return { kind: 'string', value };
  }
  const choices = [0, 1, -1, 0.1, 1e-7, 1e21, 123456789.125, -0.5, Number.MAX_SAFE_INTEGER, 5e-324, (rand() - 0.5) * 1e6];
  return { kind: 'number', value: choices[Math.floor(rand() * choices.length)]! };
}

function pick(rand: () => number, chars: string): string {
  const list = [...chars];
  return list[Math.floor(rand() * list.length)]!;
}

function onlyOurErrors(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!MnemosError.is(err)) throw new Error(`threw a non-MnemosError: ${String(err)}`, { cause: err });
  }
}

test('print -> parse -> print is stable for random trees (2,000 seeded trees)', () => {
  const rand = prng(0xc0ffee);
  for (let i = 0; i < 2000; i++) {
    const tree = randomAtom(rand, 6);
    const text = printAtom(tree);
    const [back] = parseMetta(text);
    assert.ok(back && atomsEqual(back, tree), `seed case ${i}: ${text}`);
    assert.equal(printAtom(back), text);
    assert.ok(!text.includes('\n'), 'canonical text is one line');
  }
});

test('random byte soup only ever yields MnemosErrors (3,000 seeded inputs)', () => {
  const rand = prng(42);
  const alphabet = [...'()"\\;$ \n\tabc019-.e+'].map((c) => c.charCodeAt(0));
  for (let i = 0; i < 3000; i++) {
    const len = Math.floor(rand() * 200);
    const bytes = new Uint8Array(len);
    for (let k = 0; k < len; k++) bytes[k] = rand() < 0.1 ? Math.floor(rand() * 256) : alphabet[Math.floor(rand() * alphabet.length)]!;
    onlyOurErrors(() => parseMettaBytes(bytes));
    onlyOurErrors(() => parseClusters(new TextDecoder().decode(bytes)));
    onlyOurErrors(() => scanJournalBytes(bytes));
  }
});

test('mutated valid text only ever yields trees or MnemosErrors', () => {
  const rand = prng(7);
  for (let i = 0; i < 1500; i++) {
    const text = printAtom(randomAtom(rand, 5));
    const chars = [...text];
    for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) {
      const at = Math.floor(rand() * (chars.length + 1));
      const op = rand();
      if (op < 0.4) chars.splice(at, 1);
      else if (op < 0.8) chars.splice(at, 0, pick(rand, '()"\\;$ \n'));
      else chars.splice(at, 0, chars.slice(0, at).join(''));
    }
    onlyOurErrors(() => {
      for (const atom of parseMetta(chars.join(''))) assert.ok(atomsEqual(parseMetta(printAtom(atom))[0]!, atom));
    });
  }
});

test('adversarial inputs end quickly with our error', () => {
  const started = Date.now();
  const adversarial: Array<string | Uint8Array> = [
    '('.repeat(100_000),
    '('.repeat(100_000) + ')'.repeat(100_000),
    ')'.repeat(100_000),
    '"' + 'x'.repeat(1_000_000),
    '"' + '\\'.repeat(999_999),
    '(' + 'a '.repeat(500_000),
    '$',
    new Uint8Array([0xc3]),
    new Uint8Array([0xed, 0xa0, 0x80]), // an encoded surrogate: invalid UTF-8
    new Uint8Array([0xf8, 0x88, 0x80, 0x80, 0x80]),
    new Uint8Array([0x22, 0xe2, 0x82]), // string cut inside a multi-byte char
  ];
  for (const input of adversarial) {
    assert.throws(
      () => (typeof input === 'string' ? parseMetta(input) : parseMettaBytes(input)),
      (e: unknown) => MnemosError.is(e),
    );
  }
  assert.ok(Date.now() - started < 5000, 'adversarial inputs took too long');
});

test('huge atoms parse in linear time', () => {
  const big = 'x'.repeat(5_000_000);
  const started = Date.now();
  const [sym] = parseMetta(`(${big} "${big}")`);
  assert.equal(sym?.kind, 'expr');
  assert.ok(Date.now() - started < 3000);
  assert.throws(() => parseMetta('(a)', { maxInputChars: 2 }), (e: unknown) => MnemosError.is(e, 'limit_exceeded'));
});

test('mutated records: reading and validating only ever yield records, problems or MnemosErrors', () => {
  const rand = prng(99);
  const lines = REFERENCE_EXAMPLE.split('\n');
  for (let i = 0; i < 1500; i++) {
    const copy = [...lines];
    for (let m = 1 + Math.floor(rand() * 3); m > 0; m--) {
      const at = Math.floor(rand() * copy.length);
      const op = rand();
      if (op < 0.3) copy.splice(at, 1);
      else if (op < 0.6) copy.splice(at, 0, copy[Math.floor(rand() * copy.length)]!);
      else {
        const line = [...(copy[at] ?? '')];
        line.splice(Math.floor(rand() * (line.length + 1)), rand() < 0.5 ? 1 : 0, pick(rand, '()"\\;$ 1x-'));
        copy[at] = line.join('');
      }
    }
    onlyOurErrors(() => {
      for (const c of parseClusters(copy.join('\n'))) assert.ok(Array.isArray(clusterProblems(c)));
    });
  }
});
