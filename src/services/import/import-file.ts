import { constants } from 'node:buffer';
import { readFileSync, statSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { z } from 'zod';
import { MnemosError } from '../../domain/errors.ts';
import { contentHash, sha256Hex } from '../../domain/hash.ts';
import { assertMayClaim, type Principal } from '../../domain/principal.ts';
import type { Memory } from '../../domain/memory.ts';
import { LIFECYCLES } from '../../domain/memory.ts';
import { normalizeIso, toIso } from '../../domain/time.ts';
import type { RestoreRecord, WriteOp, WriteResult } from '../../ports/store.ts';
import { isExportRecord, parseExportRecord, RecordIds } from '../export-records.ts';
import { assertDistinctKeys } from '../batch-keys.ts';
import { buildMemory } from '../build-memory.ts';
import { eachFileKey, eachKeyUnder } from '../file-memories.ts';
import { fileKeyPrefix, isFileKey, isOwnKeyUnder, legacyFileKeyPrefix } from '../../domain/source-keys.ts';
import { StoredContent } from '../stored-content.ts';
import type { ServiceContext } from '../context.ts';
import { rememberSchema, type RememberInput } from '../inputs.ts';
import { parseInput, storable } from '../validate.ts';
import { withVectors } from '../embeddings.ts';
import { markdownInputs } from './markdown.ts';
import { mettaOps } from './metta-import.ts';
import { assertRecordHolds, isMemoryRecord, LineageVersions, memoryRecordSchema } from './memory-records.ts';
import { looksLikeTranscript, parseTranscript, transcriptInputs } from './transcript.ts';
import { speakerChangesAsVersions } from './turn-speakers.ts';
import { decodeUtf8, fileHead, fileLines, InvalidUtf8Error, looksUtf16, textLines, type Line } from './file-lines.ts';
import { MemoryBudget } from './memory-budget.ts';
import { baseSession, fileIdentity, linkedSessionsOf, noteLinkedSession, otherFileCopies, pathSession, realPath, type FileSession, type StoredCopy } from './file-identity.ts';

export const IMPORT_FORMATS = ['markdown', 'jsonl', 'transcript', 'transcript-jsonl', 'metta'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export interface ImportProgress {
  file: string;
  /** embedding: vectors for the new texts (done/total texts); writing: one transaction, so it goes from 0 to done. */
  phase: 'parsing' | 'embedding' | 'writing' | 'done';
  done: number;
  total: number;
}

export interface ImportOptions {
  format?: ImportFormat;
  /** Session id for transcripts whose messages carry none (default: the file's absolute path). */
  sessionId?: string;
  onProgress?: (p: ImportProgress) => void;
  /** The most a file's memories may hold in memory before it is written (default: 60% of this process's V8 heap); past it the import stops with limit_exceeded, writing nothing. */
  memoryBudgetBytes?: number;
  /**
   * Write chunks, lines and turns that were forgotten back from the file.
   * Without it they stay forgotten and are counted in `forgotten`: an
   * unchanged file read again must not bring back what its owner removed.
   */
  includeForgotten?: boolean;
}

export interface FileImportResult {
  path: string;
  format: ImportFormat;
  created: number;
  unchanged: number;
  superseded: number;
  retired: number;
  /** Items of the file that were forgotten and stay so (see `includeForgotten`). */
  forgotten: number;
  /**
   * Only when the store also holds this same file under another path (a
   * link and its target, both imported by an earlier version): that path and
   * the start of its memories' source keys. The import wrote nothing there;
   * both copies stay until the owner forgets one.
   */
  alsoStoredAs?: StoredCopy[];
  /**
   * Only when the file (an export) holds ledger facts, pending changes or
   * tombstones: how many of each were restored, and how many the store
   * already held (`unchanged`: left as the store has them).
   */
  restored?: { ledgerFacts: number; ledgerPending: number; tombstones: number; unchanged: number };
}

/**
 * The format each extension is read as when none is given; JSONL (memories)
 * turns out to be transcript JSONL when its first record is a message. A
 * directory walk (import-paths.ts) picks up these extensions.
 */
export const FORMAT_OF_EXTENSION: Readonly<Record<string, ImportFormat>> = {
  '.md': 'markdown',
  '.markdown': 'markdown',
  '.json': 'transcript',
  '.metta': 'metta',
  '.jsonl': 'jsonl',
  '.ndjson': 'jsonl',
};

/** `lines`: the file's lines, or its text; only the first line that is not blank is read, and only for JSONL. */
export function detectFormat(path: string, lines: string | Iterable<Line>): ImportFormat {
  const format = FORMAT_OF_EXTENSION[extname(path).toLowerCase()];
  if (format && format !== 'jsonl') return format;
  if (format === 'jsonl') {
    let first: string | undefined;
    for (const l of typeof lines === 'string' ? textLines(lines) : lines) {
      if (l.text.trim() === '') continue;
      first = l.text;
      break;
    }
    if (!first) return 'jsonl';
    try {
      return looksLikeTranscript(JSON.parse(first)) ? 'transcript-jsonl' : 'jsonl';
    } catch {
      return 'jsonl';
    }
  }
  unknownFormat(path);
}

/**
 * The session of a transcript's messages that name none: the file itself (its
 * absolute path). Two files called chat.json in two folders are two
 * conversations; under their shared base name, the second file's turns
 * became new versions of the first's. A file imported before this rule keeps
 * the base-name session its turns already have, so importing it again still
 * adds nothing.
 *
 * A file reached by a symbolic link and by its real path is one
 * conversation, as it is one note for Markdown and JSONL (file-identity.ts):
 * its session is named by the first of those paths the store holds its turns
 * by (the path given, then the real path), and by the path given when it
 * holds neither. Named by the path as given, each import through the other
 * path stored every turn again. Returns the session and the path its turns
 * cite (source.path), and the other sessions the store holds the same file
 * by (otherSessions), found by the same look-ups.
 */
async function fileSession(ctx: ServiceContext, p: Principal, given: string): Promise<{ named: FileSession; others: StoredCopy[] }> {
  const real = realPath(given);
  const held: FileSession[] = [];
  for (const path of real !== null && real !== given ? [given, real] : [given]) {
    const found = await heldSession(ctx, p, path, real);
    if (found !== null) held.push(found);
  }
  // Held through another link (imported by it, now given its target or a second link).
  const linked = real === null ? [] : await linkedSessionsOf(ctx, p, real);
  const named = held[0] ?? linked[0] ?? { session: pathSession(given), path: given };
  // Filed under a link's path from now on: the next file met through the target, in this walk of a folder too, finds it.
  if (held.length === 0 && linked.length === 0 && real !== null && real !== given) await noteLinkedSession(ctx, p, real, named);
  return { named, others: otherSessions(named, [...held, ...linked]) };
}

/**
 * The sessions besides `named` (the one this import files the turns under)
 * that the caller's store holds this file's turns under: an earlier version
 * named a transcript's session by the path it was given, so a file imported
 * through a link and through its target is held twice. Named, never merged.
 */
function otherSessions(named: FileSession, found: readonly FileSession[]): StoredCopy[] {
  const seen = new Set([named.session]);
  const out: StoredCopy[] = [];
  for (const { session, path } of found) {
    if (seen.has(session)) continue;
    seen.add(session);
    out.push({ path, keyPrefix: `transcript:${session}#` });
  }
  return out;
}

/**
 * The session the caller's store holds this path's turns under, and the path
 * they cite: its base name, as earlier versions named it (the file they cite
 * being this one, through this path or another link to it), or the path; null when none.
 */
async function heldSession(ctx: ServiceContext, p: Principal, abs: string, real: string | null): Promise<FileSession | null> {
  const legacy = baseSession(abs);
  const earlier = await ctx.store.list(p, { sourceKeys: { ownerId: p.id, keys: [`transcript:${legacy}#1`] }, lifecycles: [...LIFECYCLES] }, { limit: 1 });
  const cited = earlier.find((m) => m.source.path === abs || (real !== null && m.source.path !== undefined && realPath(m.source.path) === real))?.source.path;
  if (cited !== undefined) return { session: legacy, path: cited };
  const session = pathSession(abs);
  const prefix = `transcript:${session}#`;
  const keys = await ctx.store.listKeys(p, { sourceKeyPrefix: prefix, lifecycles: [...LIFECYCLES] }, { limit: 20 }, 'source_key_asc');
  // A session named `<path>#...` shares the prefix; its keys have a second "#".
  return keys.some((k) => k.ownerId === p.id && /^\d+$/.test(k.sourceKey!.slice(prefix.length))) ? { session, path: abs } : null;
}

/**
 * A transcript file's turn replaces the turn under its key only when the key's
 * message came from this same file (the file was edited). Another file of
 * the same session (a second day's log, both given --session proj), each
 * numbering its messages from 1, silently replaced the first file's turns.
 */
async function assertTurnsNotHeldElsewhere(ctx: ServiceContext, p: Principal, abs: string, path: string, ops: readonly WriteOp[]): Promise<void> {
  const wanted = new Map<string, string>();
  for (const op of ops) if (op.kind === 'insert' && op.memory.sourceKey !== null) wanted.set(op.memory.sourceKey, op.memory.contentHash);
  const keys = [...wanted.keys()];
  for (let i = 0; i < keys.length; i += 1000) {
    const page = keys.slice(i, i + 1000);
    for (const m of await ctx.store.list(p, { sourceKeys: { ownerId: p.id, keys: page } }, { limit: page.length })) {
      if (m.contentHash === wanted.get(m.sourceKey!) || m.source.path === abs) continue;
      const turn = Number(/#(\d+)$/.exec(m.sourceKey!)?.[1]);
      throw new MnemosError(
        'conflict',
        `${path}: turn ${turn} of session "${m.sessionId}" already holds a different message${m.source.path ? ` from ${m.source.path}` : ''} (memory ${m.id}); nothing of ${path} was written. Give this file its own session (--session), or number its messages after that session's last turn`,
        { field: 'turn', turn, sessionId: m.sessionId, existingId: m.id, path },
      );
    }
  }
}

export function unknownFormat(path: string): never {
  throw new MnemosError('validation_failed', `cannot tell the format of ${path}; pass --format ${IMPORT_FORMATS.join('|')}`, { field: 'format', path });
}

/**
 * Imports one file: parses and validates all of it first (a bad line stops
 * with its line number and nothing from the file is written), then writes it
 * in one transaction. Idempotent through source keys: unchanged chunks,
 * lines and turns are skipped, changed ones become new versions, and
 * Markdown chunks and JSONL lines that vanished from the file are retired.
 */
const importOptionsSchema = z
  .object({
    format: z.enum(IMPORT_FORMATS).optional(),
    sessionId: storable(z.string().min(1).max(256)).optional(),
    onProgress: z.custom<(p: ImportProgress) => void>((v) => typeof v === 'function', 'onProgress must be a function').optional(),
    memoryBudgetBytes: z.number().int().positive().optional(),
    includeForgotten: z.boolean().optional(),
  })
  .strict();

export async function importFile(ctx: ServiceContext, p: Principal, path: string, opts: ImportOptions = {}): Promise<FileImportResult> {
  try {
    return await importOneFile(ctx, p, path, opts);
  } catch (err) {
    // Every refusal names its file in details, as its message does: a bad JSONL or transcript line gave only
    // { line }, so a caller importing several files could not tell which one without parsing the message.
    if (MnemosError.is(err) && typeof path === 'string' && path !== '' && err.details?.['path'] === undefined) {
      throw new MnemosError(err.code, err.message, { ...err.details, path }, { cause: err });
    }
    throw err;
  }
}

/** parseInput, its refusal also saying in details where in the file the item is (the message says it in words). */
function parseInputAt<S extends z.ZodType>(schema: S, input: unknown, what: string, place: Record<string, number>): z.output<S> {
  try {
    return parseInput(schema, input, what);
  } catch (err) {
    if (MnemosError.is(err)) throw new MnemosError(err.code, err.message, { ...err.details, ...place }, { cause: err });
    throw err;
  }
}

async function importOneFile(ctx: ServiceContext, p: Principal, path: string, opts: ImportOptions): Promise<FileImportResult> {
  if (typeof path !== 'string' || path === '') throw new MnemosError('validation_failed', 'give import the path of a file', { field: 'path' });
  // A misspelt format ('JSONL', 'csv') was read with some other parser and failed with a misleading message.
  parseInput(importOptionsSchema, opts, 'import options');
  const given = resolve(path);
  let isFile: boolean;
  try {
    isFile = statSync(given).isFile();
  } catch (err) {
    throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}`, { path });
  }
  if (!isFile) throw new MnemosError('not_found', `cannot read ${path}: not a regular file (import takes one file; the CLI's mnemos import <dir> walks a folder)`, { path });
  assertNotUtf16(given, path);
  const format = opts.format ?? detectFormat(given, readLines(given, path));
  // Chunks and lines are keyed by the file: one file reached through a link and through its target is one file.
  // A transcript's turns are keyed by session: one named by the file is named by the path the store first held it by.
  const transcript = format === 'transcript' || format === 'transcript-jsonl';
  const filed = transcript && opts.sessionId === undefined ? await fileSession(ctx, p, given) : null;
  const named = filed?.named ?? null;
  const abs = format === 'markdown' || format === 'jsonl' ? await fileIdentity(ctx, p, given) : (named?.path ?? given);
  // A file an earlier version stored twice (through a link and its target) keeps both copies: this import names the other.
  const copies = format === 'markdown' || format === 'jsonl' ? await otherFileCopies(ctx, p, given, abs) : (filed?.others ?? []);
  const progress = (phase: ImportProgress['phase'], done: number, total: number) => opts.onProgress?.({ file: path, phase, done, total });
  progress('parsing', 0, 1);
  const now = ctx.now();
  const session = opts.sessionId ?? named?.session ?? '';
  // Lists are concatenated, never spread into push(): a spread passes every element as an
  // argument, and a file of 400,000 lines overflowed the call stack.
  let ops: WriteOp[] = [];
  const stored = new StoredContent(p.id);
  const budget = new MemoryBudget(path, opts.memoryBudgetBytes);
  // An export's ledger and tombstone records: written after the file's memories, in the same transaction.
  const restores: RestoreRecord[] = [];
  if (format === 'jsonl') {
    // Lines without a key of their own are keyed by file and line, as Markdown chunks are by their lines;
    // checked even when none is left, so emptying the file retires them all.
    ops = jsonlOps(p, readLines(given, path), abs, path, now, budget, restores);
    ops = ops.concat(await staleChunkOps(ctx, p, abs, ops, stored));
  } else if (format === 'metta') {
    ops = mettaOps(p, readWhole(abs, path), path, now);
  } else {
    // Each item says where it is in the file: "item 7" of a chunk list or a transcript told the owner nothing to look for.
    // `place`: where the item is, for an error's details (a chunk's first line, a JSONL line, a JSON transcript's message).
    const inputs: { input: RememberInput; what: string; at: string; place: Record<string, number> }[] =
      format === 'markdown'
        ? markdownInputs(abs, readWhole(given, path), path).map(({ input, line, lineEnd }) => ({
            input,
            what: `chunk at ${path}:${line}${lineEnd > line ? ` (lines ${line}-${lineEnd})` : ''}`,
            at: `line ${line}`,
            place: { line },
          }))
        : format === 'transcript'
          ? transcriptInputs(parseTranscript(readWhole(abs, path), 'json', session, path), abs).map(({ input, line }) => ({ input, what: `message ${line} of ${path}`, at: `message ${line}`, place: { message: line } }))
          : transcriptInputs(parseTranscript(readLines(abs, path), 'jsonl', session, path), abs).map(({ input, line }) => ({ input, what: `message at ${path}:${line}`, at: `line ${line}`, place: { line } }));
    for (const { input, what, at, place } of inputs) {
      const parsed = parseInputAt(rememberSchema, input, what, place);
      budget.add(parsed.text, at);
      ops.push({ kind: 'insert', memory: buildMemory(p, parsed, now), onExistingSource: 'supersede' });
    }
    if (format === 'markdown') ops = ops.concat(await staleChunkOps(ctx, p, abs, ops, stored));
    else {
      await assertTurnsNotHeldElsewhere(ctx, p, abs, path, ops);
      ops = await speakerChangesAsVersions(ctx, p, ops);
    }
  }
  if (format === 'jsonl') ops = await closeRestoredVersions(ctx, p, ops);
  if (opts.includeForgotten === true) for (const op of ops) if (op.kind === 'insert') op.restoreForgotten = true;
  // Unchanged chunks, lines, turns and records are not embedded again: re-importing a million unchanged lines spent most of its time there.
  // Only memory records (export lines, restored by id; jsonlOps gives them the 'conflict' policy) can name an id the store holds.
  await stored.lookUp(ctx, p, ops, (op) => format === 'jsonl' && op.onExistingSource === 'conflict');
  const withVecs = await withVectors(
    ctx,
    p,
    ops,
    (done, total) => progress('embedding', done, total),
    (op) => stored.holds(op.memory),
  );
  // After the memories: a tombstone restored first would answer `forgotten` to a version the export holds restored on purpose.
  const all = withVecs.concat(restores.map((record): WriteOp => ({ kind: 'restore', record })));
  progress('writing', 0, all.length);
  const results = all.length ? await ctx.store.apply(p, all) : [];
  progress('done', all.length, all.length);
  const r = summarise(abs, format, results);
  if (restores.length > 0) r.restored = countRestored(results);
  if (copies.length > 0) r.alsoStoredAs = copies;
  return r;
}

/**
 * A record of a version the store holds current, written closed (an export
 * taken after an update, restored over an earlier one): the store's version
 * takes the record's closing, as a copy run again does (a `mirror` op), so
 * the next version in the file becomes the one current version. As an
 * unchanged insert, the closing was dropped: two current versions of one
 * memory, or a key conflict that stopped the file. Only the closing is
 * taken: a record's older lifecycle or access counts never roll the store's
 * back.
 */
async function closeRestoredVersions(ctx: ServiceContext, p: Principal, ops: WriteOp[]): Promise<WriteOp[]> {
  const closed = ops.filter((op): op is Extract<WriteOp, { kind: 'insert' }> => op.kind === 'insert' && op.onExistingSource === 'conflict' && op.memory.supersededAt !== null);
  const held = new Map<string, Memory>();
  for (let i = 0; i < closed.length; i += 500) {
    for (const m of await ctx.store.getMany(p, closed.slice(i, i + 500).map((op) => op.memory.id))) held.set(m.id, m);
  }
  if (held.size === 0) return ops;
  // Closed only where its successor will be there (in this file, or already stored): a partial export's record
  // closed by a version it does not hold would leave the memory with no current version at all.
  const inFile = new Set(ops.flatMap((op) => (op.kind === 'insert' ? [op.memory.id] : [])));
  const successors = [...new Set(closed.map((op) => op.memory.supersededBy).filter((id): id is string => id !== null && !inFile.has(id)))];
  const storedNext = new Set<string>();
  for (let i = 0; i < successors.length; i += 500) for (const m of await ctx.store.getMany(p, successors.slice(i, i + 500))) storedNext.add(m.id);
  return ops.map((op) => {
    const there = op.kind === 'insert' ? held.get(op.memory.id) : undefined;
    if (!there || there.supersededAt !== null || op.kind !== 'insert') return op;
    const next = op.memory.supersededBy;
    if (next === null || !(inFile.has(next) || storedNext.has(next))) return op;
    return { kind: 'mirror', memory: { ...there, supersededAt: op.memory.supersededAt, supersededBy: op.memory.supersededBy } };
  });
}

/**
 * A line with a memory record restores that exact version (idempotent by id).
 * A line with a plain memory is identified by its `key`, or else by the file
 * and line it sits on: re-importing the file adds nothing, a changed line
 * becomes a new version, and a line that vanished is retired, as for Markdown.
 */
function jsonlOps(p: Principal, lines: Iterable<Line>, abs: string, path: string, now: number, budget: MemoryBudget, restores: RestoreRecord[]): WriteOp[] {
  const ops: (WriteOp & { kind: 'insert' })[] = [];
  const lineOf: number[] = [];
  const versions = new LineageVersions();
  const recordIds = new RecordIds();
  for (const { text, line } of lines) {
    if (text.trim() === '') continue;
    budget.add(text, `line ${line}`);
    const where = `${path}:${line}`;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new MnemosError('validation_failed', `${where}: not valid JSON (${(err as Error).message})`, { line });
    }
    if (isExportRecord(value)) {
      // A ledger fact, pending change or tombstone of an export (export-records.ts); never a memory.
      const record = parseExportRecord(p, value, where, line);
      recordIds.check(record, where, line);
      restores.push(record);
      continue;
    }
    lineOf.push(line);
    if (isMemoryRecord(value)) {
      const record = parseInput(memoryRecordSchema, value, `memory record at ${where}`);
      if (contentHash(record.text) !== record.contentHash) throw new MnemosError('validation_failed', `${where}: contentHash does not match text`, { line, field: 'contentHash' });
      assertRecordHolds(record, where, line);
      versions.check(record, where, line);
      const memory = { ...record, namespace: p.namespace };
      assertMayClaim(p, memory);
      for (const k of ['validFrom', 'recordedAt'] as const) memory[k] = normalizeIso(memory[k]);
      ops.push({ kind: 'insert', memory, onExistingSource: 'conflict' });
    } else {
      const parsed = parseInput(rememberSchema, value, `memory at ${where}`);
      if (parsed.key !== undefined) {
        // A line's own key is its identity, like a chunk's file and lines: a changed text is its next version.
        ops.push({ kind: 'insert', memory: buildMemory(p, parsed, now), onExistingSource: 'supersede' });
      } else {
        const source = Object.keys(parsed.source).length > 0 ? parsed.source : { path: abs, lineStart: line, lineEnd: line };
        // The file's path goes with the op: the line's own source may name another, and the forgotten check needs this one.
        ops.push({ kind: 'insert', memory: buildMemory(p, { ...parsed, key: `${fileKeyPrefix(abs)}L${line}`, source }, now), onExistingSource: 'supersede', filePath: abs });
      }
    }
  }
  assertDistinctKeys(
    ops.map((op) => op.memory),
    (i) => `${path}:${lineOf[i]}`,
  );
  return ops;
}

/** Line formats (JSONL, transcript JSONL) are read a few MiB at a time, so a file of any size can be imported. */
function* readLines(abs: string, path: string): Generator<Line> {
  try {
    yield* fileLines(abs);
  } catch (err) {
    if (err instanceof InvalidUtf8Error) throw notUtf8(path, err.line);
    throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}`, { path });
  }
}

/** A file with bytes that are not UTF-8 is refused whole: decoded anyway, each bad byte became U+FFFD in the stored text, silently. */
function notUtf8(path: string, line: number): MnemosError {
  return new MnemosError(
    'validation_failed',
    `${path}:${line}: not valid UTF-8 (the file's first invalid byte is on this line; was it saved in another encoding, such as Latin-1?). Nothing of ${path} was written; save it as UTF-8 and import it again`,
    { path, line },
  );
}

/** Every format is read as UTF-8; a UTF-16 file is named as such, before any of it is parsed. */
function assertNotUtf16(abs: string, path: string): void {
  let head: Uint8Array;
  try {
    head = fileHead(abs);
  } catch (err) {
    throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}`, { path });
  }
  if (!looksUtf16(head)) return;
  throw new MnemosError(
    'validation_failed',
    `${path}: the file is UTF-16, and import reads UTF-8 only. Nothing of ${path} was written; save it as UTF-8 (for example iconv -f UTF-16 -t UTF-8) and import it again`,
    { path, field: 'encoding' },
  );
}

const MAX_STRING_LENGTH = constants.MAX_STRING_LENGTH;

/** Markdown, JSON transcripts and MeTTa are parsed whole; past V8's longest string (512 MiB) the file has to be split. */
function readWhole(abs: string, path: string): string {
  let size = 0;
  try {
    size = statSync(abs).size;
    // Checked first: reading a 1.5 GB file only to fail decoding it took 16 s and 2 GB.
    if (size <= MAX_STRING_LENGTH) return decodeUtf8(readFileSync(abs));
  } catch (err) {
    if (err instanceof InvalidUtf8Error) throw notUtf8(path, err.line);
    if ((err as { code?: string }).code !== 'ERR_STRING_TOO_LONG') throw new MnemosError('not_found', `cannot read ${path}: ${(err as Error).message}`, { path });
  }
  throw new MnemosError(
    'validation_failed',
    `${path} is too large to read at once (${Math.round(size / 2 ** 20)} MiB; Markdown, JSON transcripts and MeTTa files are read whole, up to ${Math.floor(MAX_STRING_LENGTH / 2 ** 20)} MiB): split it into smaller files, or use JSONL, which is read line by line`,
    { path },
  );
}

/**
 * Retirements for the memories this file had and no longer has (all of them:
 * eachFileKey pages through a file of any length). The same pass notes
 * what each of the file's keys holds now.
 */
async function staleChunkOps(ctx: ServiceContext, p: Principal, abs: string, ops: WriteOp[], stored: StoredContent): Promise<WriteOp[]> {
  const fresh = new Set(ops.map((o) => (o.kind === 'insert' ? o.memory.sourceKey : null)));
  const out: WriteOp[] = [];
  stored.noteAllUnder(fileKeyPrefix(abs));
  await eachFileKey(ctx, p, abs, ['generated', 'activated', 'consolidated', 'archived', 'frozen'], (m) => {
    if (m.ownerId !== p.id) return;
    stored.note(m);
    // Under the prefix are also the keys of a file named `<abs>#...`: never this file's to retire.
    if (!fresh.has(m.sourceKey) && isFileKey(abs, m.sourceKey)) out.push({ kind: 'retire', id: m.id, reason: 'no longer in the source file', at: toIso(ctx.now()) });
  });
  // A deep file an earlier version keyed by its path: those keys give way to the digest form, once.
  const legacy = legacyFileKeyPrefix(abs);
  if (legacy !== null) {
    await eachKeyUnder(ctx, p, legacy, ['generated', 'activated', 'consolidated', 'archived', 'frozen'], (m) => {
      if (m.ownerId === p.id && isOwnKeyUnder(legacy, m.sourceKey)) out.push({ kind: 'retire', id: m.id, reason: 'keyed again by a digest of its long path', at: toIso(ctx.now()) });
    });
  }
  return out;
}

function countRestored(results: WriteResult[]): NonNullable<FileImportResult['restored']> {
  const n = { ledgerFacts: 0, ledgerPending: 0, tombstones: 0, unchanged: 0 };
  for (const x of results) {
    if (x.kind !== 'restore') continue;
    if (x.status === 'unchanged') n.unchanged++;
    else n[x.what === 'ledger_fact' ? 'ledgerFacts' : x.what === 'ledger_pending' ? 'ledgerPending' : 'tombstones']++;
  }
  return n;
}

function summarise(path: string, format: ImportFormat, results: WriteResult[]): FileImportResult {
  const r: FileImportResult = { path, format, created: 0, unchanged: 0, superseded: 0, retired: 0, forgotten: 0 };
  for (const x of results) {
    if (x.kind === 'insert') {
      r[x.status]++;
      // Its key held another text meanwhile, which the source no longer says: that chunk or line is retired.
      if (x.retiredId !== undefined) r.retired++;
    }
    else if (x.kind === 'retire') r.retired++;
    // A turn whose speaker changed in the file (speakerChangesAsVersions): a new version, as a changed text is.
    else if (x.kind === 'update') r.superseded++;
    // A held version closed as the record says (closeRestoredVersions): an update, as an import reports them.
    else if (x.kind === 'mirror') r[x.changed ? 'superseded' : 'unchanged']++;
  }
  return r;
}
