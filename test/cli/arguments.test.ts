import { test } from 'node:test';
import assert from 'node:assert/strict';
import { firstWord, positionalsAllowed } from '../../src/surfaces/cli/main.ts';

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
