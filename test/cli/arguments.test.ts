import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstWord, positionalsAllowed } from '../../src/surfaces/cli/main.ts';
import { visibleControls } from '../../src/surfaces/cli/visible-controls.ts';
import { num } from '../../src/surfaces/cli/commands/options.ts';
import type { CommandContext } from '../../src/surfaces/cli/command.ts';
import { MnemosError } from '../../src/domain/errors.ts';

test('how many arguments a usage line names', () => {
  const cases: [string, number][] = [
    ['add <text>', 1],
    ['status', 0],
    ['set <key> <value> [--statement s] [--category c]', 2],
    ['import <file|dir...> [--format f] [--session id]', Number.POSITIVE_INFINITY],
    ['copy --from <path|url> --to <path|url> [--namespace ns] [--batch 500]', 0],
    ['query <journal> --by id|cluster|type --value v [--limit n]', 1],
    ['forget <id> (--dry-run | --yes) [--reason r]', 1],
    ['ingest [--n 100000] [--batch 1000] [--db path] [--no-write]', 0],
    ['pin set <key> <value>', 2],
  ];
  for (const [usage, n] of cases) assert.equal(positionalsAllowed(usage), n, usage);
});

test('the first word skips options and the values of string options', () => {
  const options = { db: { type: 'string' }, json: { type: 'boolean' }, namespace: { type: 'string', short: 'n' } } as const;
  const cases: [string[], number][] = [
    [['status'], 0],
    [['--db', 'x.db', 'status'], 2],
    [['--db=x.db', 'status'], 1],
    [['--json', 'add', 'hi'], 1],
    [['-n', 'ns', '--json', 'list'], 3],
    [['--db', 'x.db'], -1],
    [['--', '--weird'], 1],
  ];
  for (const [args, at] of cases) assert.equal(firstWord(args, options), at, args.join(' '));
});

test('a number option takes decimals only', () => {
  const ctx = (v: string) => ({ values: { importance: v } }) as unknown as CommandContext;
  const accepted: [string, number][] = [['0.5', 0.5], ['1', 1], ['-0.25', -0.25], ['.5', 0.5], ['1e-3', 0.001], [' 2 ', 2], ['3.', 3]];
  for (const [raw, want] of accepted) assert.equal(num(ctx(raw), 'importance'), want, raw);
  for (const raw of ['', ' ', '0x1', '0b1', '0o7', 'Infinity', '1e999', 'NaN', '1,5', '1_000', 'one']) {
    assert.throws(() => num(ctx(raw), 'importance'), (err: unknown) => MnemosError.is(err, 'validation_failed') && /--importance must be a number/.test((err as Error).message), raw);
  }
});

test('human output shows control characters as escapes; tabs and line breaks stay', () => {
  const rows: [string, string][] = [
    ['plain text', 'plain text'],
    ['a\tb\nc', 'a\tb\nc'],
    ['\u001b]0;pwned\u0007title', '\\x1b]0;pwned\\x07title'],
    ['red \u001b[31mtext\u001b[0m', 'red \\x1b[31mtext\\x1b[0m'],
    ['over\rwrite', 'over\\x0dwrite'],
    ['c1 \u009b31m', 'c1 \\x9b31m'],
    ['emoji 😀 é', 'emoji 😀 é'],
  ];
  for (const [text, shown] of rows) assert.equal(visibleControls(text), shown, JSON.stringify(text));
});
