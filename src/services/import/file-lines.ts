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
 * One line's text: "\r" before the newline is dropped (a "\r\n" file), and
 * so is a final lone "\r" at the end of the file (`fileLines` ends every
 * line there, `splitLines` does the same), so the last line of a file saved
 * with "\r" line ends reads like the others. A byte-order mark at the start
 * of line 1 is not text: with it JSON.parse failed on line 1 and Markdown's
 * first heading was not seen.
 */
function lineText(text: string, line: number): string {
  if (text.endsWith('\r')) text = text.slice(0, -1);
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

/**
 * The lines of a UTF-8 file, read a few MiB at a time. A JSONL export of a
 * million memories is over 800 MB, more than the longest string V8 can hold
 * (512 MiB), so line formats are never read into one string. Lines end at
 * "\n" or "\r\n" (and the file's last line at a final "\r"), as `splitLines`
 * splits a text. A line is decoded once all its bytes are read (a newline
 * byte is never part of another UTF-8 character), so a character split
 * across two reads is decoded whole, and a line that is not UTF-8 throws
 * InvalidUtf8Error with its number when it is reached: the lines before it
 * have been yielded, nothing after it is read.
 *
 * From `fromLine` on only: the lines before it are passed over as bytes,
 * never decoded. memory_get reading line 999,990 of a file spent a second
 * decoding the rest.
 */
export function* fileLines(path: string, chunkBytes = CHUNK_BYTES, fromLine = 1): Generator<Line> {
  const fd = openSync(path, 'r');
  try {
    const buf = Buffer.allocUnsafe(chunkBytes);
    // The bytes of the line not ended yet, copied: `buf` is read into again.
    let pending: Buffer[] = [];
    let line = Math.max(1, fromLine) - 1;
    let skip = line; // newlines still to pass before the first line wanted
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      const read = buf.subarray(0, n);
      let at = 0;
      for (; skip > 0 && at < n; skip--) {
        const nl = read.indexOf(10, at);
        if (nl === -1) {
          at = n;
          break;
        }
        at = nl + 1;
      }
      if (skip > 0 && n === 0) return; // the file has fewer lines
      if (n === 0) {
        // The last line, ended by the end of the file (empty after a final newline).
        yield { text: decodeLine(pending.length ? Buffer.concat(pending) : new Uint8Array(0), ++line), line };
        return;
      }
      for (;;) {
        const nl = read.indexOf(10, at);
        if (nl === -1) {
          if (at < n) pending.push(Buffer.from(read.subarray(at, n)));
          break;
        }
        const bytes = pending.length ? Buffer.concat([...pending, read.subarray(at, nl)]) : read.subarray(at, nl);
        pending = [];
        yield { text: decodeLine(bytes, ++line), line };
        at = nl + 1;
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
    for (let at = 0, line = 1; ; line++) {
      const nl = body.indexOf(10, at);
      decodeLine(body.subarray(at, nl === -1 ? body.length : nl), line);
      if (nl === -1) break;
      at = nl + 1;
    }
    throw new InvalidUtf8Error(1); // not reached: some line failed above
  }
}

/** The lines of a text, split as `fileLines` splits a file. */
export function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  // split() has taken each "\r\n" off; what is left is the final lone "\r" and the byte-order mark.
  const last = lines.length - 1;
  if (lines[last]!.endsWith('\r')) lines[last] = lines[last]!.slice(0, -1);
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
