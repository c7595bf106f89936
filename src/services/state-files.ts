import { existsSync, linkSync, lstatSync, renameSync, statSync, unlinkSync } from 'node:fs';
import { MnemosError } from '../domain/errors.ts';

/**
 * Takes over, under its current name, a state file (a journal, a safety-event
 * log) that earlier versions named by another store identity
 * (state-dir.ts legacyStoreIdentities), and returns the path to use.
 *
 * An empty file that nobody holds (no `.lock`, no companion such as a log's
 * `.head` or a journal's `.batch`) holds nothing to keep: an earlier
 * version made one whenever it opened a cycle through a URL, events or
 * not. It is not a second copy of anything, so it never makes a conflict
 * (it stays where it is, ignored); and an empty current file gives way to
 * the one old file that holds something.
 *
 * - No old name holds a file: the current name is used.
 * - Two of the names (current or old) hold different files: one store has
 *   two journals or two logs (it was reached as `localhost` and as
 *   `127.0.0.1` before this version, say). Neither can be chosen without
 *   losing the other, so this refuses with `conflict`, naming both paths,
 *   and changes nothing. Names that are links to one file are one file.
 * - Only an old name holds it: it is renamed to the current one, so every
 *   way of reaching the store finds it. The rename is a hard link then an
 *   unlink, which never overwrites a file that appeared meanwhile.
 *   `companions` (suffixes such as `.batch`, a journal's batch intent, or a
 *   log's `.head`) move with it.
 * - The current name and an old one are hard links of one file: a take-over
 *   was cut short (killed between the link and the unlink). It is finished
 *   now: companions still under the old name move (a journal's batch intent
 *   left there would let the next repair keep half a batch), and the old
 *   name goes.
 * - The old file is locked (`<old>.lock`: a writer of an earlier version is
 *   at work, or one was killed and its lock is stale until the next writer
 *   takes it over), or the folder refuses the rename (read-only): the old
 *   path is returned, so nothing is lost and the take-over waits for a later
 *   use. The lock is not moved: a live writer holds it under the old name.
 */
export function adoptLegacyStateFile(path: string, legacyPaths: readonly string[], companions: readonly string[] = []): string {
  const { current, currentHoldsNothing, old } = existingStateFiles(path, legacyPaths, companions);
  // An empty current file (a cycle opened through this URL first, with no events) is replaced by the old file that holds them.
  const replaceEmpty = current && currentHoldsNothing && old.length > 0;
  const distinct = [...(current && !replaceEmpty ? [path] : []), ...old];
  if (distinct.length > 1) {
    const [a, b] = distinct as [string, string];
    throw new MnemosError(
      'conflict',
      `this store has two different files where it may have one: ${a} and ${b} (earlier versions named it by the database URL, which differed between them). Keep one: merge the other into it (a journal with \`mnemos journal append\`, a safety log by replaying it with \`mnemos cycle run <scenario> --log <file>\`) and move it out of this folder, then retry`,
      { paths: distinct },
    );
  }
  if (current && !replaceEmpty) {
    for (const from of interruptedTakeOvers(path, legacyPaths)) finishTakeOver(from, path, companions);
    return path;
  }
  if (old.length === 0) return path;
  const from = old[0]!;
  if (existsSync(`${from}.lock`)) return from;
  if (replaceEmpty) {
    try {
      // Checked again just before: a writer that took it meanwhile has its lock there, or has written.
      if (holdsNothing(path, statSync(path).size, companions)) unlinkSync(path);
    } catch {
      // Gone already (another process is taking the old file over too): the link below settles who did.
    }
  }
  try {
    linkSync(from, path);
  } catch (err) {
    // Another process took it over first: the current name is there now.
    if ((err as { code?: string }).code === 'EEXIST' || existsSync(path)) return path;
    return from;
  }
  finishTakeOver(from, path, companions);
  return path;
}

/** Once `path` is a hard link of `from`: moves the companions still beside `from`, then removes that name. */
function finishTakeOver(from: string, path: string, companions: readonly string[]): void {
  for (const suffix of companions) {
    try {
      if (existsSync(from + suffix) && !existsSync(path + suffix)) renameSync(from + suffix, path + suffix);
    } catch {
      // A companion that cannot move stays beside the old name; the file itself is taken over.
    }
  }
  try {
    unlinkSync(from);
  } catch {
    // Left as a second name of the same file: the current name wins from now on.
  }
}

/**
 * Old names that are hard links of the file at `path`: what a take-over
 * killed after its link leaves. Not a symbolic link (someone's own
 * arrangement, not ours to remove), nor an old name a writer of an earlier
 * version holds locked (it may be writing its batch intent there now).
 */
function interruptedTakeOvers(path: string, legacyPaths: readonly string[]): string[] {
  let here: { dev: number; ino: number };
  try {
    here = statSync(path);
  } catch {
    return [];
  }
  return legacyPaths.filter((p) => {
    if (p === path || existsSync(`${p}.lock`)) return false;
    try {
      const st = lstatSync(p);
      return !st.isSymbolicLink() && st.dev === here.dev && st.ino === here.ino;
    } catch {
      return false;
    }
  });
}

/**
 * The path a state file is read from now, changing nothing and refusing
 * nothing: the current name when it holds the file or no old name does,
 * else the old name that does. For reports (self_state) that must show
 * where the file is without taking it over.
 */
export function stateFileInPlace(path: string, legacyPaths: readonly string[], companions: readonly string[] = []): string {
  const { current, currentHoldsNothing, old } = existingStateFiles(path, legacyPaths, companions);
  return (current && !(currentHoldsNothing && old.length > 0)) || old.length === 0 ? path : old[0]!;
}

/** An empty file with no lock and no companion beside it: nothing is in it, and nobody is about to write it. */
function holdsNothing(path: string, size: number, companions: readonly string[]): boolean {
  return size === 0 && !existsSync(`${path}.lock`) && companions.every((suffix) => !existsSync(path + suffix));
}

/**
 * Whether the current name holds a file (and whether that file holds nothing),
 * and the old names holding a file other than it (one per file) with
 * something in it or someone at it: old files that hold nothing are left out.
 */
function existingStateFiles(path: string, legacyPaths: readonly string[], companions: readonly string[]): { current: boolean; currentHoldsNothing: boolean; old: string[] } {
  const seen = new Set<string>();
  const fileOf = (p: string): { id: string; size: number } | null => {
    try {
      const st = statSync(p);
      return { id: `${st.dev}:${st.ino}`, size: st.size };
    } catch {
      return null;
    }
  };
  const here = fileOf(path);
  if (here !== null) seen.add(here.id);
  const old: string[] = [];
  for (const p of legacyPaths) {
    if (p === path) continue;
    const f = fileOf(p);
    if (f === null || seen.has(f.id)) continue;
    seen.add(f.id);
    if (holdsNothing(p, f.size, companions)) continue;
    old.push(p);
  }
  return { current: here !== null, currentHoldsNothing: here !== null && holdsNothing(path, here.size, companions), old };
}
