import { existsSync, linkSync, renameSync, unlinkSync } from 'node:fs';

/**
 * Takes over, under its current name, a state file (a journal, a safety-event
 * log) that an earlier version named by another store identity
 * (state-dir.ts legacyStoreIdentity), and returns the path to use.
 *
 * - The current name exists: it is used; an old file is left as it was.
 * - Only the old name exists: it is renamed to the current one, so the next
 *   URL that names the same data (another ?sslmode=, say) finds it too. The
 *   rename is a hard link then an unlink, which never overwrites a file that
 *   appeared meanwhile. `companions` (suffixes such as `.batch`, a journal's
 *   batch intent) move with it.
 * - The old file is locked (`<old>.lock`: a writer of an earlier version is
 *   at work), or the folder refuses the rename (read-only): the old path is
 *   returned, so nothing is lost and the take-over waits for a later use.
 */
export function adoptLegacyStateFile(path: string, legacyPath: string | null, companions: readonly string[] = []): string {
  if (legacyPath === null || legacyPath === path || existsSync(path) || !existsSync(legacyPath)) return path;
  if (existsSync(`${legacyPath}.lock`)) return legacyPath;
  try {
    linkSync(legacyPath, path);
  } catch (err) {
    // Another process took it over first: the current name is there now.
    if ((err as { code?: string }).code === 'EEXIST' || existsSync(path)) return path;
    return legacyPath;
  }
  for (const suffix of companions) {
    try {
      if (existsSync(legacyPath + suffix) && !existsSync(path + suffix)) renameSync(legacyPath + suffix, path + suffix);
    } catch {
      // A companion that cannot move stays beside the old name; the file itself is taken over.
    }
  }
  try {
    unlinkSync(legacyPath);
  } catch {
    // Left as a second name of the same file: the current name wins from now on.
  }
  return path;
}
