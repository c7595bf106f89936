import { MnemosError } from '../domain/errors.ts';
import type { MemoryCluster } from './cluster.ts';
import { decodeUtf8Strict } from './metta/parser.ts';
import { readRecords } from './record-reader.ts';
import { BEGIN_PREFIX } from './schema.ts';

/**
 * Reads journal bytes (the whole file, or the part appended since the last
 * read) into records, and finds a torn tail: what an append killed half-way
 * leaves behind. Only complete newline-terminated lines are decoded; a
 * trailing partial line or a record begun but never ended is a torn tail,
 * reported with the byte offset to truncate at. Anything else malformed is
 * `corrupt`, because appends never produce it.
 */

export interface ScanResult {
  clusters: MemoryCluster[];
  /** Bytes of `bytes` that are complete records (and blank lines between them). */
  completeBytes: number;
  /** Lines in the complete part. */
  completeLines: number;
  torn: { byteOffset: number; line: number; bytes: number; recordId: string | null } | null;
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
    const byteOffset = Buffer.byteLength(text.slice(0, open.charStart));
    return {
      clusters,
      completeBytes: byteOffset,
      completeLines: open.line - firstLine,
      torn: { byteOffset, line: open.line, bytes: bytes.length - byteOffset, recordId: open.id },
    };
  }
  if (completeEnd < bytes.length) {
    const partial = new TextDecoder('utf-8').decode(bytes.subarray(completeEnd));
    const line = firstLine + lines;
    if (!looksLikeRecordStart(partial)) {
      throw new MnemosError('corrupt', `line ${line}: unterminated text outside a record (${JSON.stringify(partial.slice(0, 40))}); appends never write this`, { line });
    }
    return { clusters, completeBytes: completeEnd, completeLines: lines, torn: { byteOffset: completeEnd, line, bytes: bytes.length - completeEnd, recordId: null } };
  }
  return { clusters, completeBytes: bytes.length, completeLines: lines, torn: null };
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
