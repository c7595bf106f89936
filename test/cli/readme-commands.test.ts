import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { COMMANDS, loadCommand } from '../../src/surfaces/cli/commands/index.ts';
import type { Command } from '../../src/surfaces/cli/command.ts';

// No store: the help, the version and README's command table are all this reads.
// README's command table is a promise to users; these checks keep it and the CLI from drifting apart.

const README = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

async function cli(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY: false });
  return { code, out, err };
}

/** The first column of each row of README's "### Commands" table, split into its backticked command forms. */
function readmeCommandForms(): string[] {
  const section = README.split('### Commands')[1]!.split('\n## ')[0]!;
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  assert.ok(rows.length > 10, 'README has a command table');
  // A cell's pipes inside backticks are escaped (\|); the first unescaped one ends the first column.
  return rows.flatMap((row) => [...row.slice(1).split(/(?<!\\)\|/)[0]!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.replace(/\\\|/g, '|')));
}

/** The command (and sub-command) a form such as `token create --role ...` names, with the options it takes. */
async function resolve(form: string): Promise<{ cmd: Command; options: Set<string> } | null> {
  const [name, sub] = form.split(/\s+/);
  const found = COMMANDS.find((c) => c.name === name);
  if (!found) return null;
  // The lazily imported commands (bench, journal, cycle) are loaded whole: their options live in their modules.
  const cmd = await loadCommand(found);
  const options = new Set(['db', 'namespace', 'json', 'help', ...Object.keys(cmd.options ?? {})]);
  const subcommand = cmd.subcommands?.find((s) => s.name === sub);
  for (const o of Object.keys(subcommand?.options ?? {})) options.add(o);
  return { cmd, options };
}

test('the top-level help lists --version, which README documents', async () => {
  const help = await cli(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.out, /--version/);
  assert.match(README, /`mnemos --version`/);
  const version = await cli(['--version']);
  assert.equal(version.code, 0);
  assert.match(version.out, /^mnemos \d+\.\d+\.\d+\n$/);
});

test("every command in mnemos --help has a row in README's command table, and every row names a real command", async () => {
  const forms = readmeCommandForms();
  const documented = new Set(forms.map((f) => f.split(/\s+/)[0]!));
  for (const c of COMMANDS) assert.ok(documented.has(c.name), `mnemos ${c.name} is missing from README's command table`);
  for (const f of forms) assert.ok(await resolve(f), `README's command table names "${f}", which is no command`);
});

test("every option README's command table gives a command is one that command takes", async () => {
  for (const form of readmeCommandForms()) {
    const { options } = (await resolve(form))!;
    for (const m of form.matchAll(/--([a-z][a-z-]*)/g)) {
      assert.ok(options.has(m[1]!), `README shows "${form}" with --${m[1]}, which that command refuses`);
    }
  }
});

test('mnemos help <command> is <command> --help, and a mistyped command or sub-command is named back', async () => {
  const viaHelp = await cli(['help', 'token', 'create']);
  const viaFlag = await cli(['token', 'create', '--help']);
  assert.equal(viaHelp.code, 0);
  assert.equal(viaHelp.out, viaFlag.out);
  assert.match(viaHelp.out, /^Usage: mnemos token create/);
  const unknown = await cli(['help', 'bogus']);
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /unknown command "bogus"/);
  const sub = await cli(['audit', 'bogus']);
  assert.equal(sub.code, 2);
  assert.match(sub.err, /no sub-command "bogus"; it takes: verify/);
  const none = await cli(['audit']);
  assert.match(none.err, /needs a sub-command: verify/);
});

test('every stdio MCP config the docs show names its store and runs this package, never `npx mnemos`', () => {
  // A desktop agent starts the server in a folder of its own choosing (`/` for some), where the default
  // ./.mnemos/memory.db cannot be made or is not the user's store; and `npx mnemos` run outside a project
  // that has Mnemos installed fetches the npm registry's package named mnemos, another project's code.
  const docs = { 'README.md': README, 'docs/SERVER.md': readFileSync(join(import.meta.dirname, '../../docs/SERVER.md'), 'utf8') };
  let configs = 0;
  for (const [file, text] of Object.entries(docs)) {
    for (const m of text.matchAll(/"command":\s*"([^"]*)",\s*"args":\s*\[([^\]]*)\]/g)) {
      configs++;
      const args = JSON.parse(`[${m[2]}]`) as string[];
      assert.notEqual(m[1], 'npx', `${file} runs ${m[1]} ${args.join(' ')}`);
      assert.ok(args.includes('mcp'), `${file}: ${m[0]}`);
      const db = args[args.indexOf('--db') + 1];
      assert.ok(args.includes('--db') && db?.startsWith('/'), `${file}'s config names no absolute --db: ${m[0]}`);
    }
  }
  assert.ok(configs >= 2, 'README and docs/SERVER.md each show a stdio config');
});

test('every bench sub-command takes --no-write, which README gives as the way to keep it from writing docs/BENCHMARKS.md', async () => {
  // The file is written under the working directory: run from a project that installed Mnemos, into that project.
  const row = README.split('\n').find((l) => l.startsWith('| `bench '))!;
  assert.match(row, /`--no-write` only prints/);
  const bench = await loadCommand(COMMANDS.find((c) => c.name === 'bench')!);
  assert.ok((bench.subcommands?.length ?? 0) >= 9);
  for (const sub of bench.subcommands!) assert.ok('no-write' in (sub.options ?? {}), `bench ${sub.name} takes no --no-write`);
});

test('with --json, help is one JSON object too, as README promises of every command', async () => {
  for (const argv of [['--help'], ['help'], ['add', '--help'], ['help', 'add'], ['token', '--help'], ['token', 'create', '--help']]) {
    const plain = await cli(argv);
    const json = await cli([...argv, '--json']);
    assert.equal(json.code, 0, argv.join(' '));
    assert.equal(json.err, '');
    assert.deepEqual(JSON.parse(json.out), { help: plain.out.replace(/\n$/, '') }, argv.join(' '));
    assert.equal(json.out.split('\n').filter(Boolean).length, 1);
  }
});
