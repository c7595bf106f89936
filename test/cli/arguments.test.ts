import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstWord, positionalsAllowed } from '../../src/surfaces/cli/main.ts';
import { visibleControls } from '../../src/surfaces/cli/visible-controls.ts';
import { num } from '../../src/surfaces/cli/commands/options.ts';
import type { CommandContext } from '../../src/surfaces/cli/command.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';

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

/**
 * A mistyped option was refused with Node's own words ("Unknown option
 * '--jsno'. To specify a positional argument starting with a '-', place it
 * ... as in '-- "--jsno"", its quote left open), which told the user to
 * quote the typo. Now the nearest option the command takes is named; with
 * none near, the way to pass text that starts with "-".
 */
test('an unknown option is refused naming the nearest one the command takes, and an option value in one line, also with --json', async () => {
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY: false });
    return { code, out, err };
  };
  const cases: [string[], RegExp][] = [
    [['add', 'x', '--jsno'], /^mnemos: unknown option --jsno for mnemos add; did you mean --json\? \(see mnemos add --help\)\n$/],
    [['add', 'x', '--tpye', 'fact'], /unknown option --tpye for mnemos add; did you mean --type\?/],
    [['search', 'q', '--limt=3'], /unknown option --limt for mnemos search; did you mean --limit\?/],
    [['token', 'create', '--rol', 'guest'], /unknown option --rol for mnemos token create; did you mean --role\?/],
    [['add', '-x'], /unknown option -x for mnemos add; text that starts with "-" goes after --, as in: mnemos add -- "-x"/],
    // Node's own words spanned three lines for a value that starts with "-", which only needs "=".
    [['search', 'q', '--min-score', '-1'], /^mnemos: the value of --min-score starts with "-": join it to the option, as in --min-score="-1" \(see mnemos search --help\)\n$/],
    [['add', 'x', '--type', '--tag', 'people'], /^mnemos: --type needs a value; it is followed by the option --tag \(see mnemos add --help\)\n$/],
    [['add', 'x', '--type'], /^mnemos: --type needs a value \(see mnemos add --help\)\n$/],
    [['add', 'x', '--json=yes'], /^mnemos: --json takes no value \(see mnemos add --help\)\n$/],
  ];
  for (const [argv, message] of cases) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(' '));
    assert.equal(r.out, '');
    assert.match(r.err, message);
    const json = await run([...argv, '--json']);
    assert.equal(json.code, 2);
    const e = JSON.parse(json.out).error;
    assert.equal(e.code, 'validation_failed');
    assert.equal(e.details.field, argv.find((a) => a.startsWith('-'))!.split('=')[0]);
  }
});

test('a mistyped command is named back with the nearest command, and one far from any is only named', async () => {
  const run = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY: false });
    return { code, out, err };
  };
  const typo = await run(['lst', '--json']);
  assert.equal(typo.code, 2);
  assert.deepEqual(JSON.parse(typo.out).error, { code: 'validation_failed', message: 'unknown command "lst"; did you mean list? (run mnemos --help for the list)', details: { field: 'command' } });
  assert.match((await run(['help', 'serach'])).err, /^mnemos: unknown command "serach"; did you mean search\? \(run mnemos --help for the list\)\n$/);
  assert.match((await run(['frobnicate'])).err, /^mnemos: unknown command "frobnicate" \(run mnemos --help for the list\)\n$/);
});
