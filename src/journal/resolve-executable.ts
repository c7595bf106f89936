import { accessSync, closeSync, constants, openSync, readSync, realpathSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
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

/** SHA-256 of a file, read in chunks so a large runtime binary is not loaded whole. */
export function sha256File(path: string): string {
  const hash = createHash('sha256');
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n === 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest('hex');
}
