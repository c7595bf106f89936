import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileLines, textLines } from '../../src/services/import/file-lines.ts';

test('a file read in chunks gives the lines the whole text splits into, wherever a chunk ends', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-lines-'));
  try {
    const cases: [string, string][] = [
      ['empty file', ''],
      ['one line, no newline', '{"text":"a"}'],
      ['trailing newline', 'a\nb\n'],
      ['blank lines', '\n\n\nx\n\n'],
      ['CRLF', 'one\r\ntwo\r\n\r\nthree'],
      ['a lone CR ends a line', 'a\rb\nc'],
      ['classic Mac line ends', 'one\rtwo\r\rthree\r'],
      ['CR then CRLF, and CRLF then CR', 'a\r\r\nb\r\n\rc'],
      ['multi-byte characters', 'Zoë 😀 naïve\n日本語のテキスト\n🙂'],
      ['a line longer than any chunk', 'x'.repeat(50) + '\n' + 'é'.repeat(40) + '\n'],
    ];
    for (const [name, text] of cases) {
      const path = join(dir, 'f.jsonl');
      writeFileSync(path, text);
      const want = [...textLines(text)];
      for (const chunk of [1, 2, 3, 5, 7, 64, 4096]) {
        assert.deepEqual([...fileLines(path, chunk)], want, `${name}, chunks of ${chunk} bytes`);
        // From a later line: the earlier ones are passed over undecoded, the rest are the same.
        for (let from = 2; from <= want.length + 2; from++) {
          assert.deepEqual([...fileLines(path, chunk, from)], want.filter((l) => l.line >= from), `${name}, chunks of ${chunk} bytes, from line ${from}`);
        }
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('lines are numbered from 1 as the text splits them, and stopping early closes the file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mnemos-lines-'));
  try {
    const path = join(dir, 'f.jsonl');
    writeFileSync(path, 'a\r\n\nb');
    assert.deepEqual([...fileLines(path, 2)], [{ text: 'a', line: 1 }, { text: '', line: 2 }, { text: 'b', line: 3 }]);
    // "\r" alone ends a line, as editors count them; "\r\n" split between two reads is one line end.
    writeFileSync(path, 'a\rb\r\nc\r\rd');
    const want = ['a', 'b', 'c', '', 'd'].map((text, i) => ({ text, line: i + 1 }));
    for (const chunk of [1, 2, 3, 4096]) assert.deepEqual([...fileLines(path, chunk)], want, `chunks of ${chunk}`);
    assert.deepEqual([...textLines('a\rb\r\nc\r\rd')], want);
    const open = () => (process.platform === 'linux' ? readdirSync('/proc/self/fd').length : 0);
    const before = open();
    for (let i = 0; i < 50; i++) {
      for (const l of fileLines(path)) if (l.line === 1) break;
    }
    assert.equal(open(), before);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
