import type { Command } from '../command.ts';
import { audit, statusCmd } from './admin-commands.ts';
import { bench } from './bench-commands.ts';
import { forget, historyCmd, update } from './change-commands.ts';
import { exportCmd, importCmd } from './io-commands.ts';
import { add, get, listCmd, search } from './memory-commands.ts';
import { copy, migrate } from './store-commands.ts';
import { mcpCmd, serveCmd } from './server-commands.ts';
import { token } from './token-commands.ts';
import { consolidateCmd, graphCmd, ledgerCmd, pinCmd } from './lifecycle-commands.ts';
import { cycle, episodes } from './cycle-commands.ts';
import { context, embed } from './retrieval-commands.ts';
import { journalCmd } from './journal-commands.ts';

/** Every CLI command, in help order. A new command is one module plus one entry here. */
export const COMMANDS: Command[] = [add, get, search, context, listCmd, update, forget, historyCmd, importCmd, exportCmd, embed, statusCmd, audit, cycle, episodes, token, serveCmd, mcpCmd, migrate, copy, consolidateCmd, pinCmd, ledgerCmd, graphCmd, journalCmd, bench];
