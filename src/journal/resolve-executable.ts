import { accessSync, constants, realpathSync, statSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

/**
 * Finds the file a command name would run, once, so that the same concrete
 * path is hashed and launched. Names with a slash resolve against the given
 * cwd; bare names search only the absolute entries of the given PATH (never
 * the caller's own environment, never relative entries). Symlinks are
 * resolved so a pinned hash describes the file actually executed.
 */
export function resolveExecutable(command: string, options: { path: string | undefined; cwd: string }): string | null {
  if (command.length === 0) return null;
  const candidates = command.includes('/')
    ? [resolve(options.cwd, command)]
    : (options.path ?? '')
        .split(':')
        .filter((d) => d !== '' && isAbsolute(d))
        .map((d) => join(d, command));
  for (const candidate of candidates) {
    if (!isExecutableFile(candidate)) continue;
    try {
      return realpathSync(candidate);
    } catch {
      // removed between the check and now: keep looking
    }
  }
  return null;
}

function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
