import { resolve } from 'node:path';
import { z } from 'zod';
import { MnemosError } from '../domain/errors.ts';
import type { Memory } from '../domain/memory.ts';
import type { Principal } from '../domain/principal.ts';
import type { ServiceContext } from './context.ts';
import { parseInput, storable } from './validate.ts';
import { eachFileMemory } from './file-memories.ts';
import { fileKeyPrefix } from '../domain/source-keys.ts';
import { fileLines } from './import/file-lines.ts';
import { linkedPathOf, realPath } from './import/file-identity.ts';

export const MAX_SOURCE_LINES = 2_000;
const MAX_SOURCE_CHARS = 60_000;
/**
 * The last line `from` may name: the range it starts (at most MAX_SOURCE_LINES) must end at a safe integer.
 * From 2^53 - 1 on, `line++` stops counting (2^53 + 1 is 2^53), so the loops over the range never ended: one
 * `memory_get {path, from: 9007199254740991}`, by any token, held the server's event loop and filled its heap.
 */
export const MAX_SOURCE_FROM = Number.MAX_SAFE_INTEGER - MAX_SOURCE_LINES;

export const sourceLinesSchema = z
  .object({
    // storable: a path no store can hold cites no memory; it answered not_found on SQLite and a PostgreSQL error
    // naming no field.
    path: storable(z.string().min(1).max(4096)).describe('a file path as cited by a search result (source.path)'),
    from: z.number().int().min(1).max(MAX_SOURCE_FROM).default(1).describe('first line, 1-based'),
    lines: z.number().int().min(1).max(MAX_SOURCE_LINES).default(200).describe(`how many lines (at most ${MAX_SOURCE_LINES})`),
  })
  .strict();
export type SourceLinesInput = z.input<typeof sourceLinesSchema>;

export interface SourceLines {
  path: string;
  from: number;
  to: number;
  /** Line number -> exact text, only for lines the caller may read. */
  lines: { line: number; text: string }[];
  /** Memories whose recorded source covers what was returned. */
  memoryIds: string[];
  /**
   * True when the answer stopped at its character budget (MAX_SOURCE_CHARS)
   * before `to`; ask again from `nextFrom`. (Lines the caller may not read
   * are skipped too, so a gap alone never says the answer was cut.)
   */
  truncated: boolean;
  nextFrom: number | null;
  note?: string;
}

/**
 * Exact lines of a source file, for `memory_get {path}`. SECURITY: only a
 * file that is the recorded source of a memory visible to the caller can be
 * read, and only the lines inside the ranges of those visible memories, so a
 * guest cannot read the owner's parts of a shared file or any other path on
 * disk. Owners get the file's current lines when they still match what was
 * recorded, else the stored text; everyone else gets the stored text.
 */
export async function readSourceLines(ctx: ServiceContext, p: Principal, input: SourceLinesInput): Promise<SourceLines> {
  const q = parseInput(sourceLinesSchema, input, 'memory_get request');
  const to = q.from + q.lines - 1;
  let abs = resolve(q.path);
  let found = await citedLines(ctx, p, abs, q.from, to);
  // One file reached by several paths (a link and its target) is filed under one of them (file-identity.ts): any of them reads its lines.
  const real = found ? null : realPath(abs);
  if (real !== null) {
    for (const other of [real, await linkedPathOf(ctx, p, real)]) {
      if (other === null || other === abs) continue;
      found = await citedLines(ctx, p, other, q.from, to);
      if (found) {
        abs = other;
        break;
      }
    }
  }
  if (!found) {
    throw new MnemosError('not_found', `${q.path} is not the recorded source of any memory visible to you; memory_get reads only cited sources (use a path from a search result)`, {
      field: 'path',
    });
  }
  // The caller's own chunks of the file, when it has any here: anyone may write a memory claiming a file's
  // lines as its source, and a guest's chunk spanning the owner's file filled the owner's answer with the
  // guest's text (a prompt-injection route into an agent that trusts "exact source lines").
  const own = found.filter((m) => m.ownerId === p.id);
  const chunks = own.length > 0 ? own : found;
  const allowed = (line: number) => chunks.find((m) => line >= m.source.lineStart! && line <= (m.source.lineEnd ?? m.source.lineStart!));
  // Only owners read the file on disk. A guest could forge a memory claiming any path as its
  // source; serving them stored text only means the disk can never confirm their guesses.
  const onDisk =
    p.role === 'owner' && chunks.length > 0
      ? readLineRange(abs, Math.min(...chunks.map((m) => m.source.lineStart!)), Math.max(...chunks.map((m) => m.source.lineEnd ?? m.source.lineStart!)))
      : null;
  const out: SourceLines['lines'] = [];
  const ids = new Set<string>();
  let chars = 0;
  let stale = false;
  let nextFrom: number | null = null;
  for (let line = q.from; line <= to; line++) {
    const m = allowed(line);
    if (!m) continue;
    const current = fromFile(onDisk, m, line);
    const text = current ?? storedLine(m, line);
    if (text === undefined) continue;
    if (chars >= MAX_SOURCE_CHARS) {
      nextFrom = line;
      break;
    }
    if (onDisk && current === null) stale = true;
    out.push({ line, text });
    ids.add(m.id);
    chars += text.length + 1;
  }
  const result: SourceLines = { path: abs, from: q.from, to, lines: out, memoryIds: [...ids], truncated: nextFrom !== null, nextFrom };
  const notes: string[] = [];
  if (out.length === 0) notes.push(`no lines of ${abs} between ${q.from} and ${to} belong to a memory visible to you`);
  else if (own.length === 0 && p.role === 'owner') notes.push('these lines are the stored text of memories others wrote citing this file, not lines you imported');
  else if (p.role !== 'owner') notes.push('these lines are the stored text of the memories visible to you');
  else if (!onDisk || stale) notes.push('the file is missing or changed since it was imported; these lines are the stored text');
  if (nextFrom !== null) notes.push(`cut at ${MAX_SOURCE_CHARS.toLocaleString('en')} characters: lines from ${nextFrom} on were not returned; ask again with from ${nextFrom}`);
  if (notes.length > 0) result.note = notes.join('; ');
  return result;
}

async function citedLines(ctx: ServiceContext, p: Principal, abs: string, from: number, to: number): Promise<Memory[] | null> {
  return (await byLineKey(ctx, p, abs, from, to)) ?? (await byWalk(ctx, p, abs, from, to));
}

const cites = (m: Memory, abs: string) => m.source.path === abs && m.source.lineStart !== undefined;
const overlaps = (m: Memory, from: number, to: number) => m.source.lineStart! <= to && (m.source.lineEnd ?? m.source.lineStart!) >= from;

/**
 * The asked lines of a JSONL file by their keys (an imported line is keyed
 * file:<path>#L<n>): a few index look-ups, where walking every memory of a
 * million-line file took 25 s. When any asked line has its memory, these are
 * the answer: each import retires the keys its file no longer yields, so the
 * memories one principal holds of a file all come from one format, and a
 * JSONL file's other lines (blank, past the end, forgotten) have none. Null
 * sends the walk to decide: Markdown chunks (keyed by line ranges), or lines
 * several principals imported.
 */
async function byLineKey(ctx: ServiceContext, p: Principal, abs: string, from: number, to: number): Promise<Memory[] | null> {
  const keys: string[] = [];
  for (let line = from; line <= to; line++) keys.push(`${fileKeyPrefix(abs)}L${line}`);
  const listed = await ctx.store.list(p, { sourceKeys: { keys } }, { limit: keys.length + 1 }, 'recorded_asc');
  // More memories than keys: several principals imported this file, and the page may have cut some off; the walk finds them all.
  if (listed.length > keys.length) return null;
  const chunks = listed.filter((m) => cites(m, abs) && overlaps(m, from, to));
  return chunks.length > 0 ? chunks : null;
}

/** Every memory of the file is looked at (a JSONL file can have a million lines); only those overlapping the asked lines are kept. Null when none cites the file. */
async function byWalk(ctx: ServiceContext, p: Principal, abs: string, from: number, to: number): Promise<Memory[] | null> {
  let cited = false;
  const chunks: Memory[] = [];
  await eachFileMemory(ctx, p, abs, undefined, (m) => {
    if (!cites(m, abs)) return;
    cited = true;
    if (overlaps(m, from, to)) chunks.push(m);
  });
  return cited ? chunks : null;
}

/**
 * Lines `from`..`to` of the file (index = line - 1; the rest of the array is
 * empty), read only as far as `to`; null when the file cannot be read.
 */
function readLineRange(abs: string, from: number, to: number): string[] | null {
  const out: string[] = [];
  try {
    for (const l of fileLines(abs, undefined, from)) {
      out[l.line - 1] = l.text;
      if (l.line >= to) break;
    }
  } catch {
    return null;
  }
  return out;
}

/**
 * The line from the file on disk, or null when the file no longer matches the
 * stored chunk: its lines are the text (Markdown), or its one line is a JSONL
 * record whose `text` is (an imported JSONL line, shown as written).
 */
function fromFile(onDisk: string[] | null, m: Memory, line: number): string | null {
  if (!onDisk) return null;
  const start = m.source.lineStart!;
  const end = m.source.lineEnd ?? start;
  const current = onDisk.slice(start - 1, end).join('\n');
  return current === m.text || (start === end && jsonlText(current) === m.text) ? (onDisk[line - 1] ?? null) : null;
}

function jsonlText(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const v = JSON.parse(line) as { text?: unknown };
    return typeof v.text === 'string' ? v.text : undefined;
  } catch {
    return undefined;
  }
}

function storedLine(m: Memory, line: number): string | undefined {
  return m.text.split('\n')[line - m.source.lineStart!];
}
