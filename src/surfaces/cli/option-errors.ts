import { MnemosError } from '../../domain/errors.ts';

/**
 * The error for an option a command does not take. Node's parseArgs says
 * "Unknown option '--jsno'. To specify a positional argument starting with
 * a '-', place it ... as in '-- "--jsno"" (its quote left open), which
 * reads as if the fix were to quote the typo; a mistyped option is far more
 * often meant as one of the command's own, so the nearest one is named.
 */
export function unknownOptionError(option: string, known: readonly string[], path: string): MnemosError {
  const near = nearestName(option, known);
  const hint = near
    ? `; did you mean --${near}?`
    : `; text that starts with "-" goes after --, as in: mnemos ${path} -- "${option}"`;
  return new MnemosError('validation_failed', `unknown option ${option} for mnemos ${path}${hint} (see mnemos ${path} --help)`, { field: option });
}

/**
 * The other parse errors, in one line each with the option as the field:
 * Node's spanned three lines ("Option '--text' argument is ambiguous.\nDid
 * you forget...") for a value that starts with "-" (`update <id> --text "-5
 * degrees"`, `--min-score -1`), which is not a mistake but needs `=`.
 * Null for an error it does not know.
 */
export function optionValueError(err: { code?: string; message: string }, args: readonly string[], path: string): MnemosError | null {
  if (err.code !== 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return null;
  const option = /^Option '(-[^' ,]+)/.exec(err.message)?.[1];
  if (!option) return null;
  const help = `(see mnemos ${path} --help)`;
  if (/argument is ambiguous/.test(err.message)) {
    const value = args[args.indexOf(option) + 1] ?? '';
    const long = /use '(--[^=']+)=/.exec(err.message)?.[1] ?? option;
    // Followed by another option, the value was more likely left out than meant to start with "--".
    if (value.startsWith('--')) return new MnemosError('validation_failed', `${option} needs a value; it is followed by the option ${value.split('=')[0]} ${help}`, { field: option });
    return new MnemosError('validation_failed', `the value of ${option} starts with "-": join it to the option, as in ${long}=${JSON.stringify(value)} ${help}`, { field: option });
  }
  if (/argument missing/.test(err.message)) return new MnemosError('validation_failed', `${option} needs a value ${help}`, { field: option });
  if (/does not take an argument/.test(err.message)) return new MnemosError('validation_failed', `${option} takes no value ${help}`, { field: option });
  return null;
}

/** A mistyped command, named back with the nearest one (`mnemos lst`: did you mean list?). */
export function unknownCommandError(word: string, known: readonly string[]): MnemosError {
  const near = nearestName(word, known);
  return new MnemosError('validation_failed', `unknown command "${word}"${near ? `; did you mean ${near}?` : ''} (run mnemos --help for the list)`, { field: 'command' });
}

/** The known option (or command) closest to what was typed, when it is close enough to be a typo (a third of its letters at most). */
export function nearestName(given: string, known: readonly string[]): string | null {
  const typed = given.replace(/^-+/, '').split('=')[0]!.toLowerCase();
  if (!typed) return null;
  let best: { name: string; distance: number } | null = null;
  for (const name of known) {
    const distance = editDistance(typed, name);
    if (!best || distance < best.distance) best = { name, distance };
  }
  if (!best) return null;
  return best.distance <= Math.max(1, Math.floor(typed.length / 3)) ? best.name : null;
}

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours each cost one. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
