import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { decodeUtf8Strict } from './metta/parser.ts';
import { readRecords } from './record-reader.ts';
import { BEGIN_PREFIX, END_PREFIX } from './schema.ts';

/**
 * Reads journal bytes (the whole file, or the part appended since the last
 * read) into records, and finds a torn tail: what an append killed half-way
 * leaves behind. Only complete newline-terminated lines are decoded; a
 * trailing partial line or a record begun but never ended is a torn tail,
 * reported with the byte offset to truncate at. A last record whose END
 * line is whole but has no newline is complete, not torn: an editor that
 * drops the final newline, or an append stopped just before it, leaves it,
 * and calling it torn made the next append delete a record `journal
 * validate` accepts. Anything else malformed is `corrupt`, because appends
 * never produce it.
 */

export interface ScanResult {
  clusters: MemoryCluster[];
  /** Bytes of `bytes` that are complete records (and blank lines between them). */
  completeBytes: number;
  /** Lines in the complete part. */
  completeLines: number;
  torn: { byteOffset: number; line: number; bytes: number; recordId: string | null } | null;
  /** The last record's END line is complete but not newline-terminated (its bytes count as complete; the newline is owed before the next append). */
  missingFinalNewline: boolean;
}

export interface ScanOptions {
  /** Line number of the first byte of `bytes` (for incremental reads). */
  firstLine?: number;
  maxDepth?: number;
}

export function scanJournalBytes(bytes: Uint8Array, options: ScanOptions = {}): ScanResult {
  const firstLine = options.firstLine ?? 1;
  const lastNl = lastIndexOfNewline(bytes);
  const completeEnd = lastNl + 1;
  let text: string;
  try {
    text = decodeUtf8Strict(bytes.subarray(0, completeEnd), 'journal');
  } catch (err) {
    throw new MnemosError('corrupt', `journal has invalid UTF-8 at or after line ${firstLine}; it was not written by an append`, { line: firstLine }, { cause: err });
  }
  const { records, open } = readRecords(text, { code: 'corrupt', firstLine, maxDepth: options.maxDepth, allowOpenAtEnd: true });
  const clusters = records.map((r) => ({ id: r.id, atoms: r.atoms, lines: r.lines }));
  const lines = countNewlines(text);

  if (open) {
    const closing = completeEnd < bytes.length ? closingLine(bytes.subarray(completeEnd), open.id) : null;
    if (closing !== null) {
      // Only the open record is read again, with its END line terminated, so a large journal is not parsed twice.
      const last = readRecords(text.slice(open.charStart) + closing + '\n', { code: 'corrupt', firstLine: open.line, maxDepth: options.maxDepth });
      for (const r of last.records) clusters.push({ id: r.id, atoms: r.atoms, lines: r.lines });
      return { clusters, completeBytes: bytes.length, completeLines: lines, torn: null, missingFinalNewline: true };
    }
    const byteOffset = Buffer.byteLength(text.slice(0, open.charStart));
    return {
      clusters,
      completeBytes: byteOffset,
      completeLines: open.line - firstLine,
      torn: { byteOffset, line: open.line, bytes: bytes.length - byteOffset, recordId: open.id },
      missingFinalNewline: false,
    };
  }
  if (completeEnd < bytes.length) {
    const partial = new TextDecoder('utf-8').decode(bytes.subarray(completeEnd));
    const line = firstLine + lines;
    if (!looksLikeRecordStart(partial)) {
      throw new MnemosError('corrupt', `line ${line}: unterminated text outside a record (${JSON.stringify(partial.slice(0, 40))}); appends never write this`, { line });
    }
    return { clusters, completeBytes: completeEnd, completeLines: lines, torn: { byteOffset: completeEnd, line, bytes: bytes.length - completeEnd, recordId: null }, missingFinalNewline: false };
  }
  return { clusters, completeBytes: bytes.length, completeLines: lines, torn: null, missingFinalNewline: false };
}

/** The unterminated last line when it is exactly the END line of the open record `id`; null otherwise (then it is torn). */
function closingLine(partial: Uint8Array, id: string): string | null {
  let line: string;
  try {
    line = new TextDecoder('utf-8', { fatal: true }).decode(partial);
  } catch {
    return null;
  }
  if (line.endsWith('\r')) line = line.slice(0, -1);
  return line.startsWith(END_PREFIX) && line.slice(END_PREFIX.length).trim() === id ? line : null;
}

/** A cut-off first line of a record (or trailing blanks) is torn; other stray text is not ours. */
function looksLikeRecordStart(partial: string): boolean {
  const t = partial.replace(/^[ \t\r]+/, '');
  return t.trim() === '' || BEGIN_PREFIX.startsWith(t) || t.startsWith(BEGIN_PREFIX);
}

function lastIndexOfNewline(bytes: Uint8Array): number {
  for (let i = bytes.length - 1; i >= 0; i--) if (bytes[i] === 10) return i;
  return -1;
}

function countNewlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
