import type { Command } from '../command.ts';
import { audit, statusCmd } from './admin-commands.ts';
import { forget, historyCmd, update } from './change-commands.ts';
import { exportCmd, importCmd } from './io-commands.ts';
import { add, get, listCmd, search } from './memory-commands.ts';
import { copy, migrate } from './store-commands.ts';
import { mcpCmd, serveCmd } from './server-commands.ts';
import { token } from './token-commands.ts';
import { consolidateCmd, graphCmd, ledgerCmd, pinCmd } from './lifecycle-commands.ts';
import { context, embed } from './retrieval-commands.ts';
import { BENCH_HEAD, CYCLE_HEAD, EPISODES_HEAD, JOURNAL_HEAD, type CommandHead } from './heads.ts';

/**
 * A command whose module is imported only when it is the one run: its head
 * is what the top-level help shows, and `load` gives the whole command
 * (options, sub-commands, run) once its name was asked for. Every CLI start
 * pays for the modules it imports, and these commands' modules (benchmarks,
 * journal and PLN, cognitive cycle) are needed by no other command.
 */
export interface LazyCommand extends CommandHead {
  load(): Promise<Command>;
}

const lazy = (head: CommandHead, load: () => Promise<Command>): LazyCommand => ({ ...head, load });

const cycle = lazy(CYCLE_HEAD, async () => (await import('./cycle-commands.ts')).cycle);
const episodes = lazy(EPISODES_HEAD, async () => (await import('./cycle-commands.ts')).episodes);
const journalCmd = lazy(JOURNAL_HEAD, async () => (await import('./journal-commands.ts')).journalCmd);
const bench = lazy(BENCH_HEAD, async () => (await import('./bench-commands.ts')).bench);

/** Every CLI command, in help order. A new command is one module plus one entry here. */
export const COMMANDS: (Command | LazyCommand)[] = [add, get, search, context, listCmd, update, forget, historyCmd, importCmd, exportCmd, embed, statusCmd, audit, cycle, episodes, token, serveCmd, mcpCmd, migrate, copy, consolidateCmd, pinCmd, ledgerCmd, graphCmd, journalCmd, bench];

/** The command itself, its module imported first when it is a lazy one. */
export async function loadCommand(cmd: Command | LazyCommand): Promise<Command> {
  return 'load' in cmd ? cmd.load() : cmd;
}
