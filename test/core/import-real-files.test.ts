/**
 * Imports of files as people have them, not as the tests' own fixtures were
 * written: sections with no blank line past a memory's size, fences inside
 * fences, bytes that are not UTF-8, byte-order marks, "\r" line ends, file
 * names with "#", OpenAI-style transcripts. Each case came from a QA report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { chunkMarkdown } from '../../src/services/import/markdown.ts';
import { fileLines, InvalidUtf8Error, splitLines, textLines } from '../../src/services/import/file-lines.ts';
import { looksLikeTranscript } from '../../src/services/import/transcript.ts';
import { MAX_TEXT_CHARS } from '../../src/services/inputs.ts';
import { named, testStores } from '../helpers/backend.ts';
import { tempDir } from '../helpers/temp.ts';

type Mem = Awaited<ReturnType<typeof openMemory>>;
type Exported = { id: string; text: string; supersededAt: string | null; source: { path?: string; lineStart?: number; lineEnd?: number }; metadata: Record<string, unknown> };

/** The current memories whose source is `file`, in line order. */
async function memoriesOf(m: Mem, file: string): Promise<Exported[]> {
  const lines: string[] = [];
  await m.export((l) => void lines.push(l));
  return lines
    .map((l) => JSON.parse(l) as Exported)
    .filter((r) => r.supersededAt === null && r.source.path === file)
    .sort((a, b) => a.source.lineStart! - b.source.lineStart!);
}

const rejectsWith = (re: RegExp) => (err: Error & { code?: string }) => {
  assert.equal(err.code, 'validation_failed', err.message);
  assert.match(err.message, re);
  return true;
};

// ---- 1. Sections longer than a memory's text may be ----

test('a section with no blank line past the limit is cut at line breaks; a fenced block that fits stays whole', () => {
  const list = Array.from({ length: 60 }, (_, i) => `- item ${i} of a long list`);
  const fence = ['```text', ...Array.from({ length: 8 }, (_, i) => `code line ${i}`), '```'];
  const source = ['# Log', '', ...list, 'A paragraph line right before the block.', ...fence, ''].join('\n');
  const limit = 300;
  const chunks = chunkMarkdown(source, 1500, limit);
  const lines = source.split('\n');
  for (const c of chunks) {
    assert.ok(c.text.length <= limit, `chunk ${c.lineStart}-${c.lineEnd} has ${c.text.length} characters`);
    assert.equal(c.text, lines.slice(c.lineStart - 1, c.lineEnd).join('\n'), 'a chunk is exactly its lines');
    assert.deepEqual(c.headings, ['Log']);
  }
  // Every line is in exactly one chunk, in order.
  for (let i = 1; i < chunks.length; i++) assert.equal(chunks[i]!.lineStart, chunks[i - 1]!.lineEnd + 1);
  assert.equal(chunks.at(-1)!.lineEnd, lines.length - 1);
  const block = chunks.find((c) => c.text.includes('```text'))!;
  assert.ok(block.text.includes(fence.join('\n')), 'the fenced block that fits is in one chunk, not cut where the chunk reached the limit');

  // A block longer than the limit on its own is cut at its lines.
  const big = ['```', ...Array.from({ length: 40 }, (_, i) => `x = ${i} # a line of code`), '```'].join('\n');
  const parts = chunkMarkdown(big, 1500, limit);
  assert.ok(parts.length > 1);
  assert.equal(parts.map((c) => c.text).join('\n'), big);
  for (const c of parts) assert.ok(c.text.length <= limit);
});

test(named('a long list, a big table and a long fenced block import in chunks that give their exact lines back'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'changelog.md');
    const text = [
      '# Changelog',
      '',
      ...Array.from({ length: 4000 }, (_, v) => `- v1.${v}: fixed bug number ${v} in the parser and the importer`),
      '',
      '# Data',
      '',
      '| id | name | note |',
      '|---|---|---|',
      ...Array.from({ length: 5000 }, (_, i) => `| ${i} | value ${i} | some longer text cell number ${i} |`),
      '',
      '# Code',
      '',
      'Intro to the code below.',
      '```js',
      ...Array.from({ length: 6000 }, (_, i) => `console.log('statement number ${i} of a generated file');`),
      '```',
      '',
    ].join('\n');
    writeFileSync(file, text);
    const lines = text.split('\n');
    const m = await openMemory({ db });
    try {
      const r = await m.import(file);
      assert.ok(r.created >= 6, `${r.created} chunks`);
      const mems = await memoriesOf(m, file);
      assert.equal(mems.length, r.created);
      for (const mem of mems) {
        const { lineStart, lineEnd } = mem.source;
        assert.ok(mem.text.length <= MAX_TEXT_CHARS);
        assert.equal(mem.text, lines.slice(lineStart! - 1, lineEnd).join('\n'), 'a chunk is exactly its lines');
        assert.equal((await m.get(mem.id)).text, mem.text);
        const got = await m.sourceLines({ path: file, from: lineStart!, lines: 3 });
        assert.deepEqual(
          got.lines,
          [0, 1, 2].map((k) => lineStart! + k).filter((l) => l <= lineEnd!).map((l) => ({ line: l, text: lines[l - 1]! })),
        );
        assert.equal(got.note, undefined, 'the file on disk matches what was stored');
      }
      assert.deepEqual(
        mems.filter((x) => x.text.includes('console.log')).map((x) => x.metadata.headings),
        mems.filter((x) => x.text.includes('console.log')).map(() => ['Code']),
      );
      const again = await m.import(file);
      assert.deepEqual([again.created, again.unchanged, again.retired], [0, r.created, 0]);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a single line longer than the limit is refused by its line, and nothing of the file is written'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'huge.md');
    writeFileSync(file, `# Dump\n\nfine\n\n${'y'.repeat(MAX_TEXT_CHARS + 1)}\n\nafter\n`);
    const m = await openMemory({ db });
    try {
      await assert.rejects(m.import(file), rejectsWith(/huge\.md:5: line 5 has 200001 characters/));
      assert.equal((await m.status()).memories.total, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 2. Code fences as CommonMark reads them ----

test('a ```` fence around ``` lines and a ~~~ block showing ``` stay one block each', () => {
  const source = [
    '# Intro', //            1
    '', //                   2
    '````markdown', //       3
    '```bash', //            4
    '# install it', //       5
    '', //                   6
    'npm i', //              7
    '```', //                8
    '````', //               9
    '', //                  10
    '## Usage', //          11
    '', //                  12
    '~~~', //               13
    '```', //               14
    '', //                  15
    '# not a heading', //   16
    '~~~', //               17
    '', //                  18
    '# Real heading', //    19
    '', //                  20
    'text', //              21
    '',
  ].join('\n');
  const chunks = chunkMarkdown(source, 1);
  assert.deepEqual(
    chunks.map((c) => [c.lineStart, c.lineEnd, c.headings]),
    [
      [1, 1, ['Intro']],
      [3, 9, ['Intro']],
      [11, 11, ['Intro', 'Usage']],
      [13, 17, ['Intro', 'Usage']],
      [19, 19, ['Real heading']],
      [21, 21, ['Real heading']],
    ],
  );
});

test('a fence closes only on a fence of its character at least as long, with nothing after it', () => {
  const source = ['```', 'a', '', '``` not a close', '', '``', '', '~~~', '', '````', '', 'b'].join('\n');
  assert.deepEqual(
    chunkMarkdown(source, 1).map((c) => [c.lineStart, c.lineEnd]),
    [
      [1, 10],
      [12, 12],
    ],
  );
  // Not a fence: ```a``` is inline code, and four spaces of indentation outside a list make a code line.
  assert.deepEqual(
    chunkMarkdown('```a```\n\nx\n\n    ```\n\ny', 1).map((c) => c.lineStart),
    [1, 3, 5, 7],
  );
  // A fence under a list item is indented by the item, and still a fence (notes have these).
  const listed = ['1. Install:', '', '    ```sh', '    npm i', '', '    npm test', '    ```', '', 'Done.'].join('\n');
  assert.deepEqual(
    chunkMarkdown(listed, 1).map((c) => [c.lineStart, c.lineEnd]),
    [
      [1, 1],
      [3, 7],
      [9, 9],
    ],
  );
});

test(named('a guide whose first block is a ~~~ fence showing ``` imports in its sections'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const lines = ['# Guide', '', '~~~markdown', '```js', 'console.log(1)', '~~~', ''];
    for (let s = 0; s < 1500; s++) lines.push(`## Section ${s}`, '', `Paragraph about topic ${s}, written in plain prose.`, '');
    const file = join(dir, 'guide.md');
    writeFileSync(file, lines.join('\n'));
    const m = await openMemory({ db });
    try {
      const r = await m.import(file);
      assert.equal(r.created, 1501, 'the fenced block, then one chunk per section');
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 3. Errors name the file and the line ----

test(named("a bad chunk or message is reported at its file and line, not as 'item N'"), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    try {
      const md = join(dir, 'nul.md');
      writeFileSync(md, '# A\n\ntext\n\n# B\n\nbad \u0000 char here\n');
      const notItem = (re: RegExp) => (err: Error & { code?: string }) => rejectsWith(re)(err) && !/item \d/.test(err.message);
      await assert.rejects(m.import(md), notItem(/nul\.md:5\b.*NUL/));

      const jsonl = join(dir, 'nul.jsonl');
      writeFileSync(jsonl, '\n\n{"role":"user","content":"hello"}\n\n{"role":"assistant","content":"ok"}\n{"role":"user","content":"a\\u0000b"}\n');
      await assert.rejects(m.import(jsonl), notItem(/nul\.jsonl:6: content: .*NUL/));

      const empty = join(dir, 'empty.jsonl');
      writeFileSync(empty, '{"role":"user","content":"what is 2+2"}\n\n{"role":"assistant","content":""}\n');
      await assert.rejects(m.import(empty), notItem(/empty\.jsonl:3: content: content must not be empty/));

      const json = join(dir, 'chat.json');
      writeFileSync(json, JSON.stringify({ messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: '   ' }] }));
      await assert.rejects(m.import(json), notItem(/chat\.json: message 2: content: text must not be blank/));

      assert.equal((await m.status()).memories.total, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 4. Bytes that are not UTF-8 ----

test('fileLines refuses a line that is not UTF-8 by its number, wherever the reads end, after the lines before it', () => {
  const tmp = tempDir('mnemos-utf8-');
  try {
    const path = join(tmp.dir, 'f.jsonl');
    writeFileSync(path, Buffer.concat([Buffer.from('ok\r\nZoë 😀\n'), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]), Buffer.from('after\n')]));
    for (const chunk of [1, 2, 3, 5, 64, 4096]) {
      const seen: string[] = [];
      assert.throws(
        () => {
          for (const l of fileLines(path, chunk)) seen.push(l.text);
        },
        (err: unknown) => err instanceof InvalidUtf8Error && err.line === 3,
        `chunks of ${chunk} bytes`,
      );
      assert.deepEqual(seen, ['ok', 'Zoë 😀']);
    }
    // A character cut off by the end of the file is invalid too.
    writeFileSync(path, Buffer.from([0x61, 0x0a, 0xe2, 0x82]));
    assert.throws(() => [...fileLines(path, 3)], (err: unknown) => err instanceof InvalidUtf8Error && err.line === 2);
    // memory_get reads from a line on: a bad line before it is passed over as bytes.
    writeFileSync(path, Buffer.concat([Buffer.from([0xff, 0x0a]), Buffer.from('fine\n')]));
    assert.deepEqual([...fileLines(path, 4, 2)], [{ text: 'fine', line: 2 }, { text: '', line: 3 }]);
  } finally {
    tmp.cleanup();
  }
});

test(named('a Markdown, JSONL, transcript or MeTTa file with bytes that are not UTF-8 is refused at its line, and nothing of it is written'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const latin1 = (s: string) => Buffer.from(s, 'latin1');
    const files: [string, Buffer, RegExp][] = [
      ['menu.md', latin1('# Menu\n\ncafé crème brûlée\n'), /menu\.md:3: not valid UTF-8/],
      ['mem.jsonl', Buffer.concat([Buffer.from('{"text":"fine"}\n'), latin1('{"text":"café"}\n')]), /mem\.jsonl:2: not valid UTF-8/],
      ['chat.jsonl', Buffer.concat([Buffer.from('{"role":"user","content":"hi"}\n'), latin1('{"role":"assistant","content":"naïve"}\n')]), /chat\.jsonl:2: not valid UTF-8/],
      ['first.jsonl', latin1('{"role":"user","content":"naïve"}\n'), /first\.jsonl:1: not valid UTF-8/],
      ['chat.json', latin1('{"messages": [\n{"role":"user","content":"hi"},\n{"role":"user","content":"naïve"}\n]}'), /chat\.json:3: not valid UTF-8/],
      ['k.metta', latin1('; a journal\n; café\n'), /k\.metta:2: not valid UTF-8/],
    ];
    const m = await openMemory({ db });
    try {
      for (const [name, bytes, re] of files) {
        const file = join(dir, name);
        writeFileSync(file, bytes);
        await assert.rejects(m.import(file), rejectsWith(re), name);
      }
      assert.equal((await m.status()).memories.total, 0, 'no text with U+FFFD in place of a byte was stored');
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// Saved by PowerShell's `>` or Notepad's "Unicode": with its mark it was refused as if it were Latin-1, and
// without one its ASCII text was read as text full of NUL characters and refused for those.
test(named('a UTF-16 file, with or without a byte-order mark, is refused as UTF-16 in every format, and nothing of it is written'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const le = (s: string) => Buffer.from(s, 'utf16le');
    const be = (s: string) => Buffer.from(le(s)).swap16();
    const files: [string, Buffer][] = [
      ['le-bom.md', le('\ufeff# Notes\n\ntea\n')],
      ['be-bom.md', be('\ufeff# Notes\n\ntea\n')],
      ['le.md', le('# Notes\n\ntea\n')],
      ['mem.jsonl', le('\ufeff{"text":"tea"}\n')],
      ['chat.jsonl', le('{"role":"user","content":"hi"}\n')],
      ['chat.json', le('\ufeff[{"role":"user","content":"hi"}]')],
      ['k.metta', be('; a journal\n')],
    ];
    const m = await openMemory({ db });
    try {
      for (const [name, bytes] of files) {
        const file = join(dir, name);
        writeFileSync(file, bytes);
        await assert.rejects(m.import(file), rejectsWith(new RegExp(`${name.replace('.', '\\.')}: the file is UTF-16, and import reads UTF-8 only`)), name);
      }
      // Text that merely holds a NUL is still refused for the NUL, at its chunk.
      writeFileSync(join(dir, 'nul.md'), '# A\n\nhas a \u0000 in it, and much more text after it\n');
      await assert.rejects(m.import(join(dir, 'nul.md')), rejectsWith(/NUL character/));
      assert.equal((await m.status()).memories.total, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// A section commented out in notes was read as a heading: the chunk was cut there and the dead
// section's title became the heading of the chunks after it.
test('a heading-looking line inside a multi-line HTML comment is not a heading; a heading after the comment is', () => {
  const src = '# Plan\n\nship it\n\n<!--\n## Old plan\n\nwait a year\n-->\n\n## Next\n\nmore\n\n<!-- one line -->\n# After\n\nend\n\n<!-- never closed\n# Hidden\n';
  const chunks = chunkMarkdown(src);
  assert.deepEqual(
    chunks.map((c) => [c.lineStart, c.lineEnd, c.headings]),
    [
      [1, 9, ['Plan']],
      [11, 15, ['Plan', 'Next']],
      [16, 21, ['After']],
    ],
  );
  const lines = src.split('\n');
  for (const c of chunks) assert.equal(c.text, lines.slice(c.lineStart - 1, c.lineEnd).join('\n'));
  // Inside a fence, <!-- is code and opens nothing.
  assert.deepEqual(
    chunkMarkdown('# A\n\n```html\n<!--\n```\n\n# B\n\nx\n').map((c) => c.headings),
    [['A'], ['B']],
  );
});

// ---- 5. A byte-order mark ----

test(named('a byte-order mark at the start of a file is not text: JSON parses, the first heading is seen, memory_get matches'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const bom = '\uFEFF';
    const m = await openMemory({ db });
    try {
      const mem = join(dir, 'mem.jsonl');
      writeFileSync(mem, `${bom}{"text":"first memory"}\n{"text":"second"}\n`);
      assert.equal((await m.import(mem)).created, 2);
      assert.deepEqual((await memoriesOf(m, mem)).map((x) => x.text), ['first memory', 'second']);
      const got = await m.sourceLines({ path: mem, from: 1, lines: 2 });
      assert.deepEqual(got.lines, [{ line: 1, text: '{"text":"first memory"}' }, { line: 2, text: '{"text":"second"}' }]);
      assert.equal(got.note, undefined);

      const chat = join(dir, 'chat.jsonl');
      writeFileSync(chat, `${bom}{"role":"user","content":"hi"}\n{"role":"assistant","content":"hello"}\n`);
      const c = await m.import(chat);
      assert.deepEqual([c.format, c.created], ['transcript-jsonl', 2]);

      const json = join(dir, 'chat.json');
      writeFileSync(json, `${bom}{"messages":[{"role":"user","content":"hi there"}]}`);
      assert.equal((await m.import(json)).created, 1);

      const note = join(dir, 'note.md');
      writeFileSync(note, `${bom}# Title\n\nbody\n\n## Sub\n\nmore\n`);
      assert.equal((await m.import(note)).created, 2);
      const chunks = await memoriesOf(m, note);
      assert.deepEqual(
        chunks.map((x) => [x.text, x.metadata.headings]),
        [
          ['# Title\n\nbody', ['Title']],
          ['## Sub\n\nmore', ['Title', 'Sub']],
        ],
      );
      const lines = await m.sourceLines({ path: note, from: 1, lines: 3 });
      assert.deepEqual(lines.lines[0], { line: 1, text: '# Title' });
      assert.equal(lines.note, undefined, 'the file is not reported as changed');
      assert.equal((await m.import(note)).unchanged, 2);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 6. A file named like another file's keys ----

test(named('x.md and x.md#2.md in one folder keep their own chunks: re-importing settles'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const notes = join(dir, 'notes');
    mkdirSync(notes);
    const a = join(notes, 'x.md');
    const b = join(notes, 'x.md#2.md');
    const c = join(notes, 'x.md#L5');
    writeFileSync(a, '# A\n\nalpha\n');
    writeFileSync(b, '# B\n\nbeta\n');
    writeFileSync(c, '# C\n\ngamma\n');
    const m = await openMemory({ db });
    try {
      for (const round of [1, 2, 3]) {
        for (const f of [a, b, c]) {
          const r = await m.import(f, { format: 'markdown' });
          assert.deepEqual([r.created, r.unchanged, r.retired], round === 1 ? [1, 0, 0] : [0, 1, 0], `${f}, round ${round}`);
        }
      }
      assert.equal((await m.status()).memories.total, 3);
      // Emptying x.md retires its chunk only.
      writeFileSync(a, '');
      assert.equal((await m.import(a)).retired, 1);
      assert.equal((await memoriesOf(m, b)).length, 1);
      assert.equal((await memoriesOf(m, c)).length, 1);
      assert.deepEqual((await m.sourceLines({ path: b, from: 1, lines: 3 })).lines.map((l) => l.text), ['# B', '', 'beta']);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 7. OpenAI-style transcripts ----

test('a record with role and content is a message, whatever its content holds', () => {
  assert.equal(looksLikeTranscript({ role: 'assistant', content: null, tool_calls: [] }), true);
  assert.equal(looksLikeTranscript({ role: 'system', content: [{ type: 'text', text: 'be nice' }] }), true);
  assert.equal(looksLikeTranscript({ role: 'user', content: 'hi' }), true);
  assert.equal(looksLikeTranscript({ text: 'a memory' }), false);
  assert.equal(looksLikeTranscript({ role: 'user', content: 'x', text: 'a memory' }), false);
});

test(named('content null or a list of parts is refused by its file and line as a message, not as a memory'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    try {
      const parts = join(dir, 'parts-first.jsonl');
      writeFileSync(parts, '{"role":"system","content":[{"type":"text","text":"be nice"}]}\n{"role":"user","content":"hi"}\n');
      const message = (re: RegExp) => (err: Error & { code?: string }) => rejectsWith(re)(err) && !/Unrecognized keys|\btext\b.*Required/.test(err.message);
      await assert.rejects(m.import(parts), message(/parts-first\.jsonl:1: content must be a string \(null or an array of parts is not supported\)/));

      const nullFirst = join(dir, 'null-first.jsonl');
      writeFileSync(nullFirst, '{"role":"assistant","content":null,"tool_calls":[{"id":"c1"}]}\n');
      await assert.rejects(m.import(nullFirst), message(/null-first\.jsonl:1: content must be a string/));

      const tools = join(dir, 'tools.jsonl');
      writeFileSync(
        tools,
        '{"role":"user","content":"2+2?"}\n{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"calc","arguments":"{}"}}]}\n{"role":"tool","tool_call_id":"c1","content":"4"}\n',
      );
      await assert.rejects(m.import(tools), message(/tools\.jsonl:2: content must be a string \(null or an array of parts is not supported\)/));

      const json = join(dir, 'chat.json');
      writeFileSync(json, JSON.stringify([{ role: 'user', content: 'hi' }, { role: 'assistant', content: [{ type: 'text', text: 'x' }] }]));
      await assert.rejects(m.import(json), message(/chat\.json: message 2: content must be a string/));
      assert.equal((await m.status()).memories.total, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 8. A final lone "\r" ----

test('a final lone "\\r" ends the last line like the line ends before it', () => {
  const tmp = tempDir('mnemos-cr-');
  try {
    const path = join(tmp.dir, 'f.md');
    for (const text of ['# Title\r\n\r\nlast line\r', 'a\rb\r', 'one\r', '\uFEFFx\r\ny\r']) {
      writeFileSync(path, text);
      const want = [...textLines(text)];
      assert.ok(want.every((l) => !l.text.endsWith('\r')), JSON.stringify(text));
      for (const chunk of [1, 2, 3, 4096]) assert.deepEqual([...fileLines(path, chunk)], want, `${JSON.stringify(text)}, chunks of ${chunk}`);
    }
    assert.deepEqual(splitLines('a\rb\r'), ['a', 'b', ''], 'a lone "\\r" ends a line, as "\\n" does');
    assert.deepEqual(
      chunkMarkdown('# Title\r\n\r\nlast line\r').map((c) => c.text),
      ['# Title\n\nlast line'],
    );
  } finally {
    tmp.cleanup();
  }
});

test(named('a Markdown file ending in a lone "\\r" reads back from disk as imported'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'note.md');
    writeFileSync(file, '# Title\r\n\r\nlast line\r');
    const m = await openMemory({ db });
    try {
      await m.import(file);
      const got = await m.sourceLines({ path: file, from: 1, lines: 3 });
      assert.deepEqual(got.lines.at(-1), { line: 3, text: 'last line' });
      assert.equal(got.note, undefined, 'not reported as changed since the import');
      assert.equal(readFileSync(file, 'utf8').endsWith('\r'), true);
      assert.equal((await m.import(file)).unchanged, 1);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});
