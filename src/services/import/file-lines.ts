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
 */
export function* fileLines(path: string, chunkBytes = CHUNK_BYTES): Generator<Line> {
  const fd = openSync(path, 'r');
  try {
    const decoder = new StringDecoder('utf8');
    const buf = Buffer.allocUnsafe(chunkBytes);
    let carry = '';
    let line = 0;
    for (;;) {
      const n = readSync(fd, buf, 0, chunkBytes, null);
      const text = carry + (n > 0 ? decoder.write(buf.subarray(0, n)) : decoder.end());
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
