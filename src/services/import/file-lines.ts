import { closeSync, openSync, readSync } from 'node:fs';

export interface Line {
  text: string;
  /** 1-based, as error messages give it. */
  line: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * A file (or line) whose bytes are not UTF-8. The replacement decoders put
 * U+FFFD in place of each bad byte, so a Latin-1 "café" was stored as
 * "caf\uFFFD" and the owner never learnt the text was damaged; the reader
 * refuses it instead, at the line of its first invalid byte.
 */
export class InvalidUtf8Error extends Error {
  constructor(readonly line: number) {
    super(`line ${line} is not valid UTF-8`);
    this.name = 'InvalidUtf8Error';
  }
}

/** Throws on any byte sequence that is not UTF-8; a byte-order mark is kept here and dropped only at the start of a file. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const BOM = '\uFEFF';

/**
 * Where lines end, in every format and in memory_get: at "\n", at "\r\n",
 * and at a "\r" alone (files saved by classic Mac tools), as CommonMark and
 * every editor read them. A lone "\r" was kept inside the line: a file with
 * "\r" line ends was one line, imported as one chunk with no headings, and
 * its line numbers matched nothing the owner's editor showed.
 */
export const LINE_END = /\r\n|\r|\n/;

/** A byte-order mark at the start of line 1 is not text: with it JSON.parse failed on line 1 and Markdown's first heading was not seen. */
function lineText(text: string, line: number): string {
  return line === 1 && text.startsWith(BOM) ? text.slice(1) : text;
}

function decodeLine(bytes: Uint8Array, line: number): string {
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new InvalidUtf8Error(line);
  }
  return lineText(text, line);
}

const LF = 10;
const CR = 13;

/**
 * The line ends of one buffer, in order. The next "\n" and the next "\r"
 * are each searched for once and remembered until passed: searching for
 * both at every line scanned a file with no "\r" to its end once per line.
 */
class LineEnds {
  private lf = -2;
  private cr = -2;
  constructor(private readonly bytes: Uint8Array) {}

  /** The first line end at or after `at`: where it starts, or -1 when the buffer has none left. */
  next(at: number): number {
    if (this.lf !== -1 && this.lf < at) this.lf = this.bytes.indexOf(LF, at);
    if (this.cr !== -1 && this.cr < at) this.cr = this.bytes.indexOf(CR, at);
    return this.lf === -1 ? this.cr : this.cr === -1 ? this.lf : Math.min(this.lf, this.cr);
  }
}

/**
 * The lines of a UTF-8 file, read a few MiB at a time. A JSONL export of a
 * million memories is over 800 MB, more than the longest string V8 can hold
 * (512 MiB), so line formats are never read into one string. Lines end as
 * LINE_END says, as `splitLines` splits a text; a "\r\n" split between two
 * reads is still one line end. A line is decoded once all its bytes are read
 * (neither line-end byte is ever part of another UTF-8 character), so a
 * character split across two reads is decoded whole, and a line that is not
 * UTF-8 throws InvalidUtf8Error with its number when it is reached: the
 * lines before it have been yielded, nothing after it is read.
 *
 * From `fromLine` on only: the lines before it are passed over as bytes,
 * never decoded. memory_get reading line 999,990 of a file spent a second
 * decoding the rest.
 */
export function* fileLines(path: string, chunkBytes = CHUNK_BYTES, fromLine = 1): Generator<Line> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    const first = Math.max(1, fromLine);
    // The bytes of the line not ended yet, copied: `buf` is read into again. Never kept for lines passed over.
    let pending: Buffer[] = [];
    let line = 0; // the lines ended so far
    let afterCr = false; // the last read ended with "\r": a "\n" starting the next one belongs to that line end
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      if (n === 0) {
        // The last line, ended by the end of the file (empty after a final line end).
        if (++line >= first) yield { text: decodeLine(pending.length ? Buffer.concat(pending) : new Uint8Array(0), line), line };
        return;
      }
      const read = buf.subarray(0, n);
      let at = afterCr && read[0] === LF ? 1 : 0;
      afterCr = false;
      const ends = new LineEnds(read);
      for (;;) {
        const end = ends.next(at);
        if (end === -1) {
          if (at < n && line + 1 >= first) pending.push(Buffer.from(read.subarray(at, n)));
          break;
        }
        if (++line >= first) {
          const bytes = pending.length ? Buffer.concat([...pending, read.subarray(at, end)]) : read.subarray(at, end);
          yield { text: decodeLine(bytes, line), line };
        }
        pending = [];
        at = end + 1;
        if (read[end] === CR) {
          if (at === n) afterCr = true;
          else if (read[at] === LF) at++;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A whole file's bytes as text (Markdown, JSON transcripts, MeTTa): a leading
 * byte-order mark dropped, invalid UTF-8 refused with InvalidUtf8Error at
 * the line of its first invalid byte, as `fileLines` reads line formats.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const bom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(bom);
  try {
    return UTF8.decode(body);
  } catch {
    // Only a file that fails pays for finding its line: each line decoded on its own.
    const ends = new LineEnds(body);
    for (let at = 0, line = 1; ; line++) {
      const end = ends.next(at);
      decodeLine(body.subarray(at, end === -1 ? body.length : end), line);
      if (end === -1) break;
      at = end + (body[end] === CR && body[end + 1] === LF ? 2 : 1);
    }
    throw new InvalidUtf8Error(1); // not reached: some line failed above
  }
}

/** The lines of a text, split as `fileLines` splits a file. */
export function splitLines(text: string): string[] {
  const lines = text.split(LINE_END);
  if (lines[0]!.startsWith(BOM)) lines[0] = lines[0]!.slice(1);
  return lines;
}

/** The same lines from text already in memory. */
export function* textLines(text: string): Generator<Line> {
  let line = 0;
  for (const part of splitLines(text)) yield { text: part, line: ++line };
}

/**
 * Whether a file's first bytes are UTF-16 (Windows tools such as PowerShell's
 * `>` and Notepad's "Unicode" save it): a UTF-16 byte-order mark, or text
 * whose every other byte is zero. Read as UTF-8, the first was refused as if
 * it were Latin-1 and the second was stored as text full of NUL characters,
 * refused for those; neither told the owner what the file was.
 */
export function looksUtf16(head: Uint8Array): boolean {
  if (head.length >= 2 && ((head[0] === 0xff && head[1] === 0xfe) || (head[0] === 0xfe && head[1] === 0xff))) return true;
  const n = Math.min(head.length, 256) & ~1;
  if (n < 4) return false;
  let zeroEven = 0;
  let zeroOdd = 0;
  for (let i = 0; i < n; i++) if (head[i] === 0) i % 2 === 0 ? zeroEven++ : zeroOdd++;
  return (zeroOdd === n / 2 && zeroEven === 0) || (zeroEven === n / 2 && zeroOdd === 0);
}

/** The first bytes of a file, for `looksUtf16`. */
export function fileHead(path: string, bytes = 256): Uint8Array {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0));
  } finally {
    closeSync(fd);
  }
}
