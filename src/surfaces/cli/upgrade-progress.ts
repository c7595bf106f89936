import type { MigrationProgress, MigrationProgressListener } from '../../ports/migration-progress.ts';
import type { CommandContext } from './command.ts';
import { progressLine } from './progress-line.ts';

const count = (n: number): string => n.toLocaleString('en-US');

/**
 * What the CLI says while the first open after an upgrade re-indexes texts
 * (minutes on a large store, during which the command looked hung). On a
 * terminal it is the progress line other long work draws, rewritten in place
 * ("upgrading store: re-indexing 12,000 of 40,000 texts"). Unlike a
 * command's own progress it is also said without a terminal and with
 * --json, as one line when the work starts and one when it ends: it happens
 * once, to a store the command did not ask to change, and a script or a
 * server log should show why the command took minutes. Always stderr:
 * stdout stays the command's output alone.
 */
export function upgradeProgress(ctx: Pick<CommandContext, 'isTTY' | 'json' | 'stderr'>): MigrationProgressListener {
  const line = progressLine(ctx);
  let started: number | null = null;
  return (p: MigrationProgress) => {
    if (started !== p.migration) {
      started = p.migration;
      if (!line) ctx.stderr(`upgrading store: re-indexing ${count(p.total)} texts (once, after an upgrade of mnemos)\n`);
    }
    if (p.done < p.total) {
      line?.show(`upgrading store: re-indexing ${count(p.done)} of ${count(p.total)} texts`, p.done === 0);
      return;
    }
    line?.clear();
    ctx.stderr(`upgrading store: re-indexed ${count(p.total)} texts\n`);
  };
}
