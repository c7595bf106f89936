import { parseArgs } from 'node:util';
import { readFileSync } from 'node:fs';
import { DEFAULT_DB_PATH } from '../../adapters/open-store.ts';
import { assertStoreExists } from './store-location.ts';
import { visibleControls } from './visible-controls.ts';
import { MnemosError, toMnemosError } from '../../domain/errors.ts';
import { localOwner } from '../../domain/principal.ts';
import { openMemory, type Mnemos } from '../library/open-memory.ts';
import type { Command, CommandContext, ReportedFailure } from './command.ts';
import { COMMANDS, loadCommand } from './commands/index.ts';
import type { CommandHead } from './commands/heads.ts';
import { EXIT_CODES } from './exit-codes.ts';
import { embeddingConfigFromEnv } from './embedding-env.ts';
import { vectorIndexConfigFromEnv } from './vector-index-env.ts';
import { upgradeProgress } from './upgrade-progress.ts';
import { optionValueError, unknownCommandError, unknownOptionError } from './option-errors.ts';

const GLOBAL_OPTIONS = {
  db: { type: 'string' },
  namespace: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function helpText(cmds: CommandHead[], prefix = ''): string {
  const lines = cmds.map((c) => `  ${(prefix + c.usage).padEnd(44)} ${c.summary}`);
  return [
    'mnemos: persistent memory for AI agents',
    '',
    'Usage: mnemos <command> [options]',
    '',
    'Commands:',
    ...lines,
    '',
    'Global options:',
    ...GLOBAL_HELP,
    // Only here: --version answers without a command (README documents it; the help did not say so).
    '  -V, --version       print the version (with --json: {"version": "..."})',
  ].join('\n');
}

const GLOBAL_HELP = [
  `  --db <path|url>     store location (default ${DEFAULT_DB_PATH}, or $MNEMOS_DB)`,
  '  --namespace <ns>    namespace (default "default", or $MNEMOS_NAMESPACE)',
  '  --json              print one JSON object on stdout and nothing else',
  '  -h, --help          help for a command',
];

function commandHelp(cmd: Command, path: string): string {
  const opts = Object.entries(cmd.options ?? {}).map(([k, o]) => `  --${k}${o.type === 'string' ? ' <value>' : ''}`);
  const subs = (cmd.subcommands ?? []).map((s) => `  ${path} ${s.usage.padEnd(30)} ${s.summary}`);
  return [
    `Usage: mnemos ${cmd.usage}`,
    '',
    cmd.summary,
    ...(subs.length ? ['', 'Sub-commands:', ...subs] : []),
    ...(opts.length ? ['', 'Options:', ...opts] : []),
    '',
    'Global options (before or after the command):',
    ...GLOBAL_HELP,
  ].join('\n');
}

type Options = NonNullable<Command['options']>;

/** Index of the first argument that is neither an option nor the value of a string option; -1 when none. */
export function firstWord(args: readonly string[], options: Options): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') return i + 1 < args.length ? i + 1 : -1;
    if (!a.startsWith('-')) return i;
    if (a.includes('=')) continue;
    const name = a.startsWith('--') ? a.slice(2) : Object.entries(options).find(([, o]) => o.short === a.slice(1))?.[0];
    if (name !== undefined && options[name]?.type === 'string') i++;
  }
  return -1;
}

/**
 * How many positional arguments a command's usage line names: `<id>` is one,
 * `<path...>` any number; `<x>` after an option (`--from <path>`) is that
 * option's value. Extra words were silently dropped before (`add Dana likes
 * tea` stored "Dana"), so they are refused.
 */
export function positionalsAllowed(usage: string): number {
  const tokens = usage.split(/\s+/).slice(1);
  let n = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (/^[[(]?--/.test(t)) {
      if (tokens[i + 1]?.startsWith('<')) i++;
      continue;
    }
    if (!t.startsWith('<')) continue;
    if (t.includes('...')) return Number.POSITIVE_INFINITY;
    n++;
  }
  return n;
}

/** The installed package's version (package.json sits three folders up from both src/ and dist/ builds of this file). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}


export async function runCli(argv: string[], io = { stdout: (s: string) => process.stdout.write(s), stderr: (s: string) => process.stderr.write(s), env: process.env, isTTY: !!process.stderr.isTTY }): Promise<number> {
  const wantsJson = argv.includes('--json');
  // With --json, stdout is one JSON object whatever was asked, help included: a script asking for it got text.
  const help = (text: string) => (wantsJson ? `${JSON.stringify({ help: text })}\n` : `${text}\n`);
  let mnemos: Mnemos | undefined;
  try {
    // Options may come before the command (`mnemos --db x status`), so the
    // command is the first word that is not an option or an option's value.
    const at = firstWord(argv, GLOBAL_OPTIONS);
    // `mnemos help add` is `mnemos add --help` (git's and npm's habit): it printed the general help instead.
    const helpOf = at !== -1 && argv[at] === 'help' ? firstWord(argv.slice(at + 1), GLOBAL_OPTIONS) : -1;
    if (helpOf !== -1) {
      const name = argv[at + 1 + helpOf];
      if (!COMMANDS.some((c) => c.name === name)) throw unknownCommandError(name ?? '', COMMANDS.map((c) => c.name));
      return runCli([...argv.slice(0, at), ...argv.slice(at + 1), '--help'], io);
    }
    const word = at === -1 ? undefined : argv[at];
    const found = COMMANDS.find((c) => c.name === word);
    let path = word ?? '';
    if (!found) {
      if (!word && (argv.includes('--version') || argv.includes('-V'))) {
        io.stdout(wantsJson ? `${JSON.stringify({ version: packageVersion() })}\n` : `mnemos ${packageVersion()}\n`);
        return 0;
      }
      if (!word && wantsJson && !argv.includes('--help') && !argv.includes('-h')) {
        throw new MnemosError('validation_failed', 'no command given; run mnemos --help for the list');
      }
      if (argv.length === 0 || argv.includes('--help') || argv.includes('-h') || word === 'help') {
        io.stdout(help(helpText(COMMANDS)));
        return 0;
      }
      // `mnemos --bogus` printed the help and exited 0, as if it had done something.
      if (!word) throw new MnemosError('validation_failed', `no command given (${argv.join(' ')}); run mnemos --help for the list`);
      throw unknownCommandError(word, COMMANDS.map((c) => c.name));
    }
    let cmd = await loadCommand(found);
    let rest = argv.filter((_a, i) => i !== at);
    if (cmd.subcommands) {
      const subAt = firstWord(rest, { ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) });
      const sub = subAt === -1 ? undefined : cmd.subcommands.find((s) => s.name === rest[subAt]);
      if (!sub) {
        if (argv.includes('--help') || argv.includes('-h')) {
          io.stdout(help(commandHelp(cmd, path)));
          return 0;
        }
        const names = cmd.subcommands.map((s) => s.name).join(', ');
        // A mistyped sub-command is named back, so the user sees which word was not understood.
        if (subAt !== -1) throw new MnemosError('validation_failed', `mnemos ${cmd.name} has no sub-command "${rest[subAt]}"; it takes: ${names}`);
        throw new MnemosError('validation_failed', `mnemos ${cmd.name} needs a sub-command: ${names}`);
      }
      rest = rest.filter((_a, i) => i !== subAt);
      path = `${path} ${sub.name}`;
      cmd = { ...sub, usage: `${cmd.name} ${sub.usage}` };
    }
    if (argv.includes('--help') || argv.includes('-h')) {
      io.stdout(help(commandHelp(cmd, path)));
      return 0;
    }
    let parsed;
    try {
      parsed = parseArgs({ args: rest, options: { ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }, allowPositionals: true, strict: true });
    } catch (err) {
      const unknown = (err as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /Unknown option '([^']+)'/.exec((err as Error).message)?.[1] : undefined;
      if (unknown) throw unknownOptionError(unknown, Object.keys({ ...GLOBAL_OPTIONS, ...(cmd.options ?? {}) }), path);
      const value = optionValueError(err as Error & { code?: string }, rest, path);
      if (value) throw value;
      throw new MnemosError('validation_failed', `${(err as Error).message.replace(/^TypeError \[[A-Z_]+\]: /, '')}; see mnemos ${path} --help`);
    }
    const most = positionalsAllowed(cmd.usage);
    if (parsed.positionals.length > most) {
      const extra = parsed.positionals[most]!;
      throw new MnemosError(
        'validation_failed',
        `unexpected argument "${extra}": mnemos ${cmd.usage.split(' [')[0]} takes ${most === 0 ? 'no arguments' : `${most} argument${most === 1 ? '' : 's'}; put text with spaces in quotes`}`,
        { field: 'arguments' },
      );
    }
    const values = parsed.values as CommandContext['values'];
    const db = (values.db as string | undefined) ?? (io.env.MNEMOS_DB || undefined) ?? DEFAULT_DB_PATH;
    const namespace = (values.namespace as string | undefined) ?? (io.env.MNEMOS_NAMESPACE || undefined) ?? 'default';
    const needsExisting = typeof cmd.needsExistingStore === 'function' ? cmd.needsExistingStore(values) : cmd.needsExistingStore === true;
    if (needsExisting && (values.db !== undefined || io.env.MNEMOS_DB)) await assertStoreExists(db, values.db !== undefined ? '--db' : 'MNEMOS_DB');
    const ctx: CommandContext = {
      args: parsed.positionals,
      values,
      json: !!values.json,
      db,
      namespace,
      stdout: io.stdout,
      stderr: io.stderr,
      isTTY: io.isTTY,
      vectorIndex: () => vectorIndexConfigFromEnv(io.env),
      open: async () =>
        (mnemos ??= await openMemory({
          db,
          principal: localOwner(namespace),
          config: { embeddings: embeddingConfigFromEnv(io.env), vectorIndex: vectorIndexConfigFromEnv(io.env) },
          onProgress: upgradeProgress({ isTTY: io.isTTY, json: !!values.json, stderr: io.stderr }),
        })),
    };
    const result = await cmd.run(ctx);
    if (result !== undefined) {
      if (ctx.json || !cmd.human) io.stdout(JSON.stringify(result, null, ctx.json ? 0 : 2) + '\n');
      else {
        const text = visibleControls(cmd.human(result, ctx));
        if (text) io.stdout(text.endsWith('\n') ? text : text + '\n');
      }
    }
    const failure = (result as { error?: ReportedFailure } | undefined)?.error;
    if (failure) io.stderr(`mnemos: ${visibleControls(failure.message)}\n`);
    return (result as { exitCode?: number } | undefined)?.exitCode ?? 0;
  } catch (err) {
    const e = toMnemosError(err);
    if (wantsJson) io.stdout(JSON.stringify({ error: e.toJSON() }) + '\n');
    // A message quotes paths and input: their escape sequences are shown, never obeyed by the terminal.
    io.stderr(`mnemos: ${visibleControls(e.message)}${e.code === 'internal' && io.env.MNEMOS_DEBUG ? `\n${(err as Error).stack}` : ''}\n`);
    return EXIT_CODES[e.code];
  } finally {
    await mnemos?.close();
  }
}

// Run only when executed as the entry point, never on import.
if (process.argv[1] && import.meta.url === new URL(`file://${process.argv[1]}`).href) {
  process.exitCode = await runCli(process.argv.slice(2));
}
