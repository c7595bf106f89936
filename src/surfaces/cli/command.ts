import type { ParseArgsConfig } from 'node:util';
import type { Mnemos } from '../library/open-memory.ts';
import type { VectorIndexConfig } from '../../ports/vectors.ts';
import type { ErrorCode } from '../../domain/errors.ts';

/**
 * One CLI command = one small module exporting a Command. The CLI parses the
 * options declared here, opens the store when `needsStore`, and prints what
 * `run` returns: as one JSON object with --json, or through `human`.
 */
export interface CommandContext {
  args: string[];
  values: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  /** Opened lazily so commands that don't touch the store stay fast. */
  open(): Promise<Mnemos>;
  /** Resolved database location (--db, MNEMOS_DB, or the default). */
  db: string;
  namespace: string;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  isTTY: boolean;
  /** The vector index configuration from the environment (MNEMOS_VECTOR_INDEX, _THRESHOLD), read when asked. */
  vectorIndex(): VectorIndexConfig;
}

export interface Command {
  name: string;
  /** e.g. `add <text>`; shown in help. */
  usage: string;
  summary: string;
  options?: ParseArgsConfig['options'];
  run(ctx: CommandContext): Promise<unknown>;
  /** Human rendering of the result; JSON is printed when absent. */
  human?(result: any, ctx: CommandContext): string;
  /**
   * The command is useless on a store that does not exist yet: it only reads
   * (or previews), or it changes a memory that must already be there. A --db
   * naming no existing SQLite file is then a typo, answered with an error,
   * instead of a new empty store that reads as "nothing there" (or as an
   * intact audit log). A function decides from the options (`consolidate
   * --status` only reads; `consolidate` writes).
   */
  needsExistingStore?: boolean | ((values: CommandContext['values']) => boolean);
  /** Commands with sub-commands (`audit verify`) register them here. */
  subcommands?: Command[];
}

/**
 * A command that reports a failure as its result (a tampered audit log, an
 * invalid journal, an unverified copy) exits non-zero with its report, and
 * carries this too: the `error` object every other failure prints with
 * --json, so a script reading `.error.code` on a non-zero exit finds it; the
 * CLI also writes its message to stderr.
 */
export interface ReportedFailure {
  code: ErrorCode;
  message: string;
}

export function reportedFailure(code: ErrorCode, message: string): ReportedFailure {
  return { code, message };
}
