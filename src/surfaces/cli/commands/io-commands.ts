import { once } from 'node:events';
import { closeSync, createWriteStream, existsSync, fchmodSync, fsyncSync, lstatSync, openSync, readlinkSync, realpathSync, renameSync, rmSync, statSync, type WriteStream } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { MnemosError, toMnemosError } from '../../../domain/errors.ts';
import { IMPORT_FORMATS, type FileImportResult, type ImportFormat, type ImportProgress } from '../../../services/import/import-file.ts';
import { listImportPaths, type SkippedPath } from '../../../services/import/import-paths.ts';
import type { Command, CommandContext } from '../command.ts';
import { progressLine } from '../progress-line.ts';
import { str } from './options.ts';

/**
 * One progress line on a terminal, rewritten in place through each file's
 * phases and wiped before the summary or an error is printed. Each file's
 * finished bar was left on its own line (the summary then listed every file
 * again), and an error was printed after the bar of the file that failed.
 */
function progressBar(ctx: CommandContext): { onProgress: (p: ImportProgress) => void; clear: () => void } | undefined {
  const line = progressLine(ctx);
  if (!line) return undefined;
  return {
    onProgress: (p) => {
      const width = 24;
      const frac = p.total ? p.done / p.total : 0;
      const bar = '#'.repeat(Math.round(frac * width)).padEnd(width, '.');
      line.show(`${p.phase.padEnd(9)} [${bar}] ${p.done}/${p.total} ${p.file}`);
    },
    clear: () => line.clear(),
  };
}

export const importCmd: Command = {
  name: 'import',
  usage: 'import <file|dir...> [--format f] [--session id] [--include-forgotten]',
  summary: 'import Markdown, memory JSONL, conversation transcripts or MeTTa MemoryCluster records; a directory imports the files under it (idempotent)',
  options: { format: { type: 'string' }, session: { type: 'string' }, 'include-forgotten': { type: 'boolean' } },
  async run(ctx) {
    if (ctx.args.length === 0) throw new MnemosError('validation_failed', 'give at least one file or directory to import', { field: 'file' });
    const format = str(ctx, 'format');
    if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format)) {
      throw new MnemosError('validation_failed', `--format must be one of ${IMPORT_FORMATS.join(', ')}`, { field: 'format' });
    }
    // Listed before the store opens, so a typo in a path changes nothing.
    // Entries of a folder left out (broken links, not regular files) are named in the result, never skipped silently.
    const { files: paths, skipped } = listImportPaths(ctx.args, format as ImportFormat | undefined);
    const m = await ctx.open();
    const files: FileImportResult[] = [];
    const progress = progressBar(ctx);
    const onProgress = progress?.onProgress;
    for (const file of paths) {
      try {
        files.push(await m.import(file, { ...(format ? { format: format as ImportFormat } : {}), ...(str(ctx, 'session') ? { sessionId: str(ctx, 'session')! } : {}), ...(ctx.values['include-forgotten'] ? { includeForgotten: true } : {}), ...(onProgress ? { onProgress } : {}) }));
      } catch (err) {
        progress?.clear();
        // Each file is its own transaction: say which were written before this one failed, and which were not tried.
        if (files.length === 0) throw err;
        const e = toMnemosError(err);
        const done = files.map((f) => `${f.path} (${f.created} new, ${f.superseded} updated, ${f.retired} retired)`).join(', ');
        // Most messages already say so; it was said twice.
        const said = e.message.toLowerCase().includes(`nothing of ${file.toLowerCase()} was written`);
        const before = said ? `Imported before it: ${done}` : `Nothing of ${file} was written; imported before it: ${done}`;
        throw new MnemosError(e.code, `${e.message}. ${before}; not tried: ${paths.length - files.length - 1} more file(s)`, {
          ...e.details,
          imported: files,
          failedFile: file,
          ...(skipped.length ? { skipped } : {}),
        });
      }
    }
    progress?.clear();
    const total = { created: 0, unchanged: 0, superseded: 0, retired: 0, forgotten: 0 };
    for (const f of files) for (const k of Object.keys(total) as (keyof typeof total)[]) total[k] += f[k];
    return { files, total, skipped };
  },
  human: (r) =>
    r.files
      .map((f: FileImportResult) => `${f.path} (${f.format}): ${f.created} new, ${f.unchanged} unchanged, ${f.superseded} updated, ${f.retired} retired${f.forgotten ? `, ${f.forgotten} forgotten earlier and left out (--include-forgotten brings them back)` : ''}${restoredLine(f)}${storedTwice(f)}`)
      .concat(((r.skipped ?? []) as SkippedPath[]).map((s) => `skipped ${s.path}: ${s.reason}`))
      .join('\n'),
};

/** An export's ledger facts, pending changes and tombstones, when the file had any. */
function restoredLine(f: FileImportResult): string {
  const r = f.restored;
  return r ? `; restored ${r.ledgerFacts} ledger facts, ${r.ledgerPending} pending changes and ${r.tombstones} tombstones (${r.unchanged} already there)` : '';
}

/** The other copies of a file the store holds (a link and its target, each imported by an earlier version), each on a line of its own: kept, never merged, so the owner is told. */
function storedTwice(f: FileImportResult): string {
  return (f.alsoStoredAs ?? [])
    .map((c) => `\n  also stored under ${c.path} (source keys ${c.keyPrefix}...): the same file, imported earlier through another path; nothing was added there, and both copies are kept until you forget one`)
    .join('');
}

/** The checks a write stream would only fail on later, as an event: a missing folder, or a directory named as the file. */
/** The file a path names through its links, existing or not yet (a link to a backup not made yet is followed too). */
function linkTarget(path: string): string {
  let at = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    const st = lstatSync(at, { throwIfNoEntry: false });
    if (!st?.isSymbolicLink()) return existsSync(at) ? realpathSync(at) : at;
    at = resolve(dirname(at), readlinkSync(at));
  }
  throw new MnemosError('validation_failed', `cannot write --out ${path}: too many levels of symbolic links`, { field: 'out' });
}

/** The finished file, synced and given the replaced file's mode, takes the target's name in one step; the folder is synced so the rename lasts. */
function publish(partial: string, out: string, mode: number | null): void {
  const fd = openSync(partial, 'r+');
  try {
    // The stream's mode is filtered by the umask: the replaced file's own mode is set exactly.
    if (mode !== null) fchmodSync(fd, mode);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(partial, out);
  const dir = openSync(dirname(resolve(out)), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }
}

function assertWritableFile(out: string): void {
  const dir = dirname(resolve(out));
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new MnemosError('validation_failed', `cannot write --out ${out}: the folder ${dir} does not exist`, { field: 'out' });
  if (existsSync(out) && statSync(out).isDirectory()) throw new MnemosError('validation_failed', `cannot write --out ${out}: it is a directory; name a file`, { field: 'out' });
}

export const exportCmd: Command = {
  name: 'export',
  needsExistingStore: true,
  usage: 'export [--format jsonl|metta] [--out file]',
  summary: 'lossless export of every memory version (JSONL, or MeTTa MemoryCluster records)',
  options: { format: { type: 'string' }, out: { type: 'string' } },
  async run(ctx) {
    const format = str(ctx, 'format') ?? 'jsonl';
    if (format !== 'jsonl' && format !== 'metta') throw new MnemosError('validation_failed', `unknown export format "${format}"; supported: jsonl, metta`, { field: 'format' });
    const m = await ctx.open();
    // metta checks every memory before writing anything (export-metta.ts), so a failure leaves no partial file.
    const run = (write: (text: string) => void | Promise<void>) => (format === 'metta' ? m.exportMetta(write) : m.export(write));
    const out = str(ctx, 'out');
    if (!out) {
      if (ctx.json) throw new MnemosError('validation_failed', 'with --json, give --out <file> (stdout carries the JSON summary)', { field: 'out' });
      await run((line) => void ctx.stdout(line));
      return undefined;
    }
    assertWritableFile(out);
    // A regular file (or a new one) is written beside its target and renamed over it once complete and synced:
    // written in place, an export killed part-way destroyed the previous backup and left a shorter file that
    // imported without a word. A link is followed (the file it names is replaced, the link stays), the old
    // file's mode is kept (an owner-only backup stays owner-only), and what is not a regular file (a FIFO a
    // compressor reads, a device) is written into, as before: renaming over it replaced it.
    // The file is created at the first write, so a refused metta export leaves no file behind.
    const target = linkTarget(out);
    const existing = existsSync(target) ? statSync(target) : null;
    const direct = existing !== null && !existing.isFile();
    const partial = direct ? target : `${target}.partial-${process.pid}`;
    let stream: WriteStream | undefined;
    let failed: Error | undefined;
    const cannotWrite = (err: Error) => new MnemosError('validation_failed', `cannot write --out ${out}: ${err.message}`, { field: 'out' }, { cause: err });
    // Without a listener a stream's error (disk full, permissions) was an unhandled event: a stack trace and no JSON error.
    const file = () =>
      (stream ??= createWriteStream(partial, existing && !direct ? { mode: existing.mode & 0o7777 } : {}).on('error', (err) => (failed ??= err)));
    const progress = progressLine(ctx);
    let written = 0;
    try {
      const count = await run((line) => {
        if (failed) throw cannotWrite(failed);
        // The ledger and tombstone lines after the memories (export-records.ts) are not memory versions.
        if (format === 'metta' || !line.startsWith('{"record":')) progress?.show(`exporting: ${++written} ${format === 'metta' ? 'records' : 'memory versions'} written to ${out}`);
        const s = file();
        // events.once removes both listeners when either fires: an error listener per wait, never removed,
        // piled up to a MaxListenersExceededWarning on any large export.
        if (!s.write(line)) return once(s, 'drain').then(() => undefined);
      });
      const s = file();
      await new Promise<void>((resolve, reject) => s.end((err?: Error | null) => (err ? reject(err) : resolve()))).catch((err: Error) => (failed ??= err));
      if (failed) throw cannotWrite(failed);
      try {
        if (!direct) publish(partial, target, existing ? existing.mode & 0o7777 : null);
      } catch (err) {
        throw cannotWrite(err as Error);
      }
      return { format, out, memories: count };
    } finally {
      progress?.clear();
      if (!direct) rmSync(partial, { force: true });
    }
  },
  human: (r) => `exported ${r.memories} memory versions to ${r.out}`,
};
