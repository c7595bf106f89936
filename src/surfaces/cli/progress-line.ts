import type { CommandContext } from './command.ts';
import { visibleControls } from './visible-controls.ts';

/**
 * One line on stderr, rewritten in place, saying how far long work has got
 * (a consolidation, a copy or an export of a large store runs for minutes).
 * Only on a terminal and never with --json: scripts read stdout and stderr
 * whole. A line is redrawn at most every 100 ms unless `force`d, so a fast
 * loop does not spend its time drawing.
 */
export interface ProgressLine {
  show(text: string, force?: boolean): void;
  /** Wipes the line, so the command's own output starts on a clean one. */
  clear(): void;
}

const WIDTH = 100;
const EVERY_MS = 100;

export function progressLine(ctx: Pick<CommandContext, 'isTTY' | 'json' | 'stderr'>): ProgressLine | undefined {
  if (!ctx.isTTY || ctx.json) return undefined;
  let drawnAt = -Infinity;
  let shown = 0;
  return {
    show(text, force = false) {
      const now = Date.now();
      if (!force && now - drawnAt < EVERY_MS) return;
      drawnAt = now;
      // A line names files and folders: an escape sequence in a name is shown, not obeyed.
      const line = visibleControls(text).slice(0, WIDTH);
      // Padded to the previous line's length, so a shorter line leaves no tail of the longer one.
      ctx.stderr(`\r${line.padEnd(shown)}`);
      shown = line.length;
    },
    clear() {
      if (shown > 0) ctx.stderr(`\r${' '.repeat(shown)}\r`);
      shown = 0;
    },
  };
}
