import { closeSync, constants, openSync, readdirSync, statSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
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
  const wanted = new Set(format ? extensionsOf(format) : Object.keys(FORMAT_OF_EXTENSION));
  const out: string[] = [];
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
    const found = walk(path, wanted);
    if (found.length === 0) {
      throw new MnemosError('validation_failed', `no importable files under ${path} (looked for ${[...wanted].join(', ')}; hidden folders and node_modules are skipped)`, { path });
    }
    for (const f of found) out.push(f);
  }
  for (const f of out) assertReadable(f);
  return out;
}

function assertReadable(path: string): void {
  try {
    // Non-blocking, so a FIFO named by mistake does not wait for a writer here (importFile refuses it as not a regular file).
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
  } catch (err) {
    throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}; nothing was imported (make it readable, or move it out of the folder)`, { path });
  }
}

function walk(dir: string, wanted: Set<string>): string[] {
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
    if (e.isDirectory()) for (const f of walk(path, wanted)) out.push(f);
    else if (wanted.has(extname(e.name).toLowerCase()) && (e.isFile() || isLinkToFile(path))) out.push(path);
  }
  return out;
}

function isLinkToFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
