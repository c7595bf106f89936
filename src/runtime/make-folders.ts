import { mkdirSync, statSync } from 'node:fs';
import { MnemosError } from '../domain/errors.ts';
import { dirname, resolve } from 'node:path';

/**
 * Creates a folder and any missing parents, one level at a time.
 *
 * Not `mkdirSync(dir, { recursive: true })`: on Node 20 that call never
 * returns for a path under a file system that refuses new entries without
 * saying EACCES (`/proc/nope`: mkdir answers ENOENT though the parent is
 * there, and Node's recursive walk retries forever), so `--db
 * /proc/nope/x.db` spun a core instead of answering an error. Here the walk
 * stops at the nearest existing ancestor, and each missing level is one plain
 * mkdir whose error, if any, is thrown as is.
 *
 * Errors keep Node's codes so callers can tell the caller's mistake from the
 * disk's: ENOTDIR when a part of the path is a file (its message names it),
 * otherwise whatever mkdir said (ENOENT, EACCES, EROFS, ENOSPC...).
 */
export function makeFolders(dir: string): void {
  const missing: string[] = [];
  let at = resolve(dir);
  for (;;) {
    const kind = kindOf(at);
    if (kind === 'folder') break;
    if (kind === 'other') throw notAFolder(at);
    missing.push(at);
    const up = dirname(at);
    if (up === at) break; // the root itself is missing: let mkdir say why
    at = up;
  }
  for (const level of missing.reverse()) {
    try {
      mkdirSync(level);
    } catch (err) {
      // Another process made the same level meanwhile: that is what we wanted.
      if ((err as { code?: string }).code === 'EEXIST' && kindOf(level) === 'folder') continue;
      throw err;
    }
  }
}

/** 'missing' also covers a path under a file (ENOTDIR): walking further up finds that file. */
function kindOf(path: string): 'folder' | 'other' | 'missing' {
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined) return 'missing';
    return st.isDirectory() ? 'folder' : 'other';
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOTDIR') return 'missing';
    throw err;
  }
}

function notAFolder(path: string): Error {
  const err = new Error(`ENOTDIR: ${path} is a file, not a folder, so no folder can be created under it`) as Error & { code: string; path: string };
  err.code = 'ENOTDIR';
  err.path = path;
  return err;
}

/** What a file at a caller-given path is for, in the words its errors use. */
export interface FileRole {
  /** "a Mnemos store", "a journal". */
  name: string;
  /** The input the path came from (`details.field`). */
  field: string;
  /** A file name to suggest when the path is a folder. */
  example: string;
  /** What to do, and what was (not) done, after a refusal. */
  fix: string;
}

/**
 * Makes the folder a file at a caller-given path goes in, saying a failure as
 * what it is: a path that is a folder or sits under a file is the caller's
 * mistake (`validation_failed`, naming `role.field`); a folder the system will
 * not create (`/proc/nope`, no permission, a read-only disk) is `unavailable`
 * and names that folder. Bare, the first was SQLite's "unable to open" or
 * mkdir's EEXIST, and the second an `internal` error.
 */
export function prepareFileFolder(path: string, role: FileRole): void {
  const refuse = (why: string, cause?: unknown): never => {
    throw new MnemosError('validation_failed', `${path} cannot be ${role.name}: ${why}; ${role.fix}`, { field: role.field, path }, { cause });
  };
  let isFolder = false;
  try {
    isFolder = statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOTDIR') refuse('a part of its folder path is a file', err);
    throw new MnemosError('unavailable', `cannot check ${path}: ${(err as Error).message}`, { path }, { cause: err });
  }
  if (isFolder) refuse(`it is a folder (${role.name} is a file in it, such as ${path.replace(/\/+$/, '')}/${role.example})`);
  const folder = dirname(resolve(path));
  try {
    makeFolders(folder);
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ENOTDIR' || code === 'EEXIST') refuse('a part of its folder path is a file', err);
    throw new MnemosError('unavailable', `cannot create the folder of ${path}: making folder ${folder} failed (${(err as Error).message})`, { path, folder }, { cause: err });
  }
}
