import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import os from 'node:os';
import { isPostgresLocation } from '../adapters/open-store.ts';
import { makeFolders } from '../runtime/make-folders.ts';

/** Where every `mnemos bench` command writes its section (relative to the working directory). */
export const BENCH_FILE = 'docs/BENCHMARKS.md';

/**
 * Keeps docs/BENCHMARKS.md up to date: each benchmark owns one section,
 * delimited by markers, and rewrites only that section with its latest run.
 */
export function writeBenchSection(file: string, name: string, title: string, body: string): void {
  const start = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  const section = `${start}\n## ${title}\n\n${body.trim()}\n${end}`;
  let doc = existsSync(file)
    ? readFileSync(file, 'utf8')
    : '# Benchmarks\n\nFigures written by `mnemos bench ...`; each section is replaced by the latest run of its command. Machine notes are in each section.\n';
  const re = new RegExp(`${escape(start)}[\\s\\S]*?${escape(end)}`);
  doc = re.test(doc) ? doc.replace(re, section) : `${doc.trimEnd()}\n\n${section}\n`;
  makeFolders(dirname(file));
  writeFileSync(file, doc);
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function machineNote(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown cpu'}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 10)}`;
}

/**
 * Which store a benchmark ran on, for its section: SQLite runs keep the
 * section names the targets refer to; a PostgreSQL run gets its own section
 * beside it instead of overwriting the SQLite figures.
 */
export function benchBackend(db: string | undefined): { label: string; suffix: string } {
  return db && isPostgresLocation(db) ? { label: 'PostgreSQL', suffix: '-postgres' } : { label: 'SQLite', suffix: '' };
}
