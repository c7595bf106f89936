import { closeSync, openSync, readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

export interface Line {
  text: string;
  /** 1-based, as error messages give it. */
  line: number;
}

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The lines of a UTF-8 file, read a few MiB at a time. A JSONL export of a
 * million memories is over 800 MB, more than the longest string V8 can hold
 * (512 MiB), so line formats are never read into one string. Lines end at
 * "\n" or "\r\n", as `text.split(/\r?\n/)` splits them, and a character split
 * across two reads is decoded whole.
 *
 * From `fromLine` on only: the lines before it are passed over as bytes,
 * never decoded (a newline byte is never part of another UTF-8 character).
 * memory_get reading line 999,990 of a file spent a second decoding the rest.
 */
export function* fileLines(path: string, chunkBytes = CHUNK_BYTES, fromLine = 1): Generator<Line> {
  const fd = openSync(path, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buf = Buffer.allocUnsafe(chunkBytes);
    let carry = '';
    let line = Math.max(1, fromLine) - 1;
    let skip = line; // newlines still to pass before the first line wanted
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      let start = 0;
      for (const read = buf.subarray(0, n); skip > 0 && start < n; skip--) {
        const at = read.indexOf(10, start);
        if (at === -1) {
          start = n;
          break;
        }
        start = at + 1;
      }
      if (skip > 0 && n === 0) return; // the file has fewer lines
      const text = carry + (n > 0 ? decoder.write(buf.subarray(start, n)) : decoder.end());
      const parts = text.split('\n');
      carry = n > 0 ? parts.pop()! : '';
      for (const part of parts) yield { text: part.endsWith('\r') ? part.slice(0, -1) : part, line: ++line };
      if (n === 0) return;
    }
  } finally {
    closeSync(fd);
  }
}

/** The same lines from text already in memory. */
export function* textLines(text: string): Generator<Line> {
  let line = 0;
  for (const part of text.split(/\r?\n/)) yield { text: part, line: ++line };
}
