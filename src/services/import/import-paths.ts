import { closeSync, constants, openSync, readdirSync, readlinkSync, statSync, type Dirent } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { MnemosError } from '../../domain/errors.ts';
import { FORMAT_OF_EXTENSION, unknownFormat, type ImportFormat } from './import-file.ts';

/** The extensions a directory walk picks up for a format given with --format: those detection reads as it, and .txt as Markdown. */
function extensionsOf(format: ImportFormat): string[] {
  // JSONL files are read as memories or as transcripts depending on their first record.
  const family = format === 'transcript-jsonl' ? 'jsonl' : format;
  return [...Object.keys(FORMAT_OF_EXTENSION).filter((ext) => FORMAT_OF_EXTENSION[ext] === family), ...(format === 'markdown' ? ['.txt'] : [])];
}

/**
 * Turns the paths given to `import` into files, in order: a file stays as it is
 * (its extension must name a format unless one is given), a directory becomes the files under
 * it with an importable extension, sorted by path. Hidden entries (`.git`,
 * `.obsidian`, the store's own `.mnemos`) and `node_modules` are skipped, and
 * symbolic links to directories are not followed, so a walk cannot loop.
 * Every file is opened once before any is imported: a file the user may not
 * read, met in the middle of a folder, stopped the import after the files
 * sorted before it had been written.
 */
export function expandImportPaths(paths: readonly string[], format?: ImportFormat): string[] {
  return listImportPaths(paths, format).files;
}

/** An entry of a folder with an importable extension that the walk left out, and why. */
export interface SkippedPath {
  path: string;
  reason: string;
}

/**
 * expandImportPaths, also saying which entries with an importable extension
 * were left out of a folder and why: a broken link (its target missing, or a
 * link loop) or something that is not a regular file. Such entries are still
 * skipped, so one dead link does not stop a vault's import, but they were
 * left out without a word and the owner believed the note imported.
 */
export function listImportPaths(paths: readonly string[], format?: ImportFormat): { files: string[]; skipped: SkippedPath[] } {
  const wanted = new Set(format ? extensionsOf(format) : Object.keys(FORMAT_OF_EXTENSION));
  const out: string[] = [];
  const skipped: SkippedPath[] = [];
  for (const path of paths) {
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (err) {
      throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}`, { path });
    }
    if (!isDir) {
      // Without --format a file's extension names its format; an unknown one is refused before any file is written.
      if (!format && FORMAT_OF_EXTENSION[extname(path).toLowerCase()] === undefined) unknownFormat(path);
      out.push(path);
      continue;
    }
    const left: SkippedPath[] = [];
    const found = walk(path, wanted, left);
    if (found.length === 0) {
      const why = left.length ? `; skipped: ${left.map((s) => `${s.path} (${s.reason})`).join(', ')}` : '';
      throw new MnemosError('validation_failed', `no importable files under ${path} (looked for ${[...wanted].join(', ')}; hidden folders and node_modules are skipped${why})`, { path, ...(left.length ? { skipped: left } : {}) });
    }
    for (const f of found) out.push(f);
    for (const s of left) skipped.push(s);
  }
  for (const f of out) assertReadable(f);
  return { files: out, skipped };
}

function assertReadable(path: string): void {
  try {
    // Non-blocking, so a FIFO named by mistake does not wait for a writer here (importFile refuses it as not a regular file).
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch (err) {
    throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}; nothing was imported (make it readable, or move it out of the folder)`, { path });
  }
}

function walk(dir: string, wanted: Set<string>, skipped: SkippedPath[]): string[] {
  const out: string[] = [];
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new MnemosError('not_found', `cannot read the folder ${dir}: ${(err as Error).message}`, { path: dir });
  }
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    if (e.name.startsWith('.') || e.name === 'node_modules') continue;
    const path = join(dir, e.name);
    if (e.isDirectory()) for (const f of walk(path, wanted, skipped)) out.push(f);
    else if (wanted.has(extname(e.name).toLowerCase())) {
      const why = e.isFile() ? null : whyNotAFile(path, e);
      if (why === null) out.push(path);
      // Absolute, as each imported file's path in the result is.
      else skipped.push({ path: resolve(path), reason: why });
    }
  }
  return out;
}

/** Null when the entry (through its link) is a regular file to import; else why it is left out. */
function whyNotAFile(path: string, e: Dirent): string | null {
  if (!e.isSymbolicLink()) return 'not a regular file';
  try {
    const st = statSync(path);
    if (st.isFile()) return null;
    return st.isDirectory() ? 'link to a directory (not followed)' : 'link to something that is not a regular file';
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ELOOP') return 'broken link: it loops (too many levels of symbolic links)';
    if (code === 'ENOENT') return `broken link to ${target(path)}: no such file`;
    return `broken link: ${(err as Error).message}`;
  }
}

function target(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '(unreadable)';
  }
}
