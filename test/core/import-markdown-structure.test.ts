/**
 * Markdown as note-taking tools write it, beyond "#" headings and "\n" line
 * ends: files saved with "\r" line ends, setext headings ("Title" over
 * "====="), YAML or TOML front matter, and one note reached by two paths (a
 * symbolic link and its target). Each case came from a QA report.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { chunkMarkdown } from '../../src/services/import/markdown.ts';
import { named, testStores } from '../helpers/backend.ts';

type Mem = Awaited<ReturnType<typeof openMemory>>;
type Exported = { text: string; supersededAt: string | null; source: { path?: string; lineStart?: number; lineEnd?: number }; metadata: Record<string, unknown> };

/** The current memories whose source is `file`, in line order. */
async function memoriesOf(m: Mem, file?: string): Promise<Exported[]> {
  const lines: string[] = [];
  await m.export((l) => void lines.push(l));
  return lines
    .map((l) => JSON.parse(l) as Exported)
    .filter((r) => r.supersededAt === null && (file === undefined || r.source.path === file))
    .sort((a, b) => a.source.lineStart! - b.source.lineStart!);
}

// ---- 1. "\r" line ends ----

test(named('a file with "\\r" line ends is cut at its headings, numbered as an editor numbers it, and memory_get gives its lines back'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'mac.md');
    const lines = ['# Trip', '', 'Packed the tent.', 'Left at dawn.', '', '## Day two', 'Rain all day.'];
    writeFileSync(file, lines.join('\r') + '\r');
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(file)).created, 2);
      const got = await memoriesOf(m, file);
      assert.deepEqual(
        got.map((c) => [c.source.lineStart, c.source.lineEnd, c.text, c.metadata.headings]),
        [
          [1, 4, '# Trip\n\nPacked the tent.\nLeft at dawn.', ['Trip']],
          [6, 7, '## Day two\nRain all day.', ['Trip', 'Day two']],
        ],
      );
      const read = await m.sourceLines({ path: file, from: 3, lines: 5 });
      assert.deepEqual(read.lines, [
        { line: 3, text: 'Packed the tent.' },
        { line: 4, text: 'Left at dawn.' },
        { line: 6, text: '## Day two' },
        { line: 7, text: 'Rain all day.' },
      ]);
      assert.equal(read.note, undefined, 'the lines come from the file, which matches what was imported');
      assert.equal((await m.import(file)).unchanged, 2);

      // JSONL and transcript JSONL lines are counted the same way.
      const jsonl = join(dir, 'mac.jsonl');
      writeFileSync(jsonl, [{ text: 'first note' }, { text: 'second note' }].map((x) => JSON.stringify(x)).join('\r') + '\r');
      assert.equal((await m.import(jsonl)).created, 2);
      assert.deepEqual(
        (await memoriesOf(m, jsonl)).map((x) => [x.source.lineStart, x.text]),
        [
          [1, 'first note'],
          [2, 'second note'],
        ],
      );
      const chat = join(dir, 'chat.jsonl');
      writeFileSync(chat, [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }].map((x) => JSON.stringify(x)).join('\r'));
      const r = await m.import(chat);
      assert.equal(r.format, 'transcript-jsonl');
      assert.equal(r.created, 2);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// ---- 2. Setext headings ----

test('a paragraph over "=====" or "-----" is a heading; a "---" after a blank line, a list item or a quote is a break', () => {
  const source = ['Intro.', '', 'Title', '=====', 'Under the title.', '', '---', '', 'Sub part', '--------', 'Text.', '', '- item', '---', '', '> quoted', '---', ''].join('\n');
  const chunks = chunkMarkdown(source, 1);
  assert.deepEqual(
    chunks.map((c) => [c.lineStart, c.lineEnd, c.headings]),
    [
      [1, 1, []],
      [3, 5, ['Title']],
      [7, 7, ['Title']],
      [9, 11, ['Title', 'Sub part']],
      [13, 14, ['Title', 'Sub part']],
      [16, 17, ['Title', 'Sub part']],
    ],
  );
  // A heading-looking underline inside a fenced block is code.
  assert.deepEqual(
    chunkMarkdown(['# Doc', '```', 'not a title', '===', '```'].join('\n')).map((c) => c.headings),
    [['Doc']],
  );
});

// ---- 3. Front matter ----

test(named('front matter is a chunk of its own, exactly as the file holds it, marked frontMatter; a "# comment" in it is no heading'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'note.md');
    const lines = ['---', 'title: Trip', '# a YAML comment', 'tags: [travel]', '---', 'First paragraph.', '', 'Title', '=====', 'Body.', ''];
    writeFileSync(file, lines.join('\n'));
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(file)).created, 3);
      const got = await memoriesOf(m, file);
      assert.deepEqual(
        got.map((c) => [c.source.lineStart, c.source.lineEnd, c.text, c.metadata]),
        [
          [1, 5, lines.slice(0, 5).join('\n'), { frontMatter: 'yaml' }],
          [6, 6, 'First paragraph.', {}],
          [8, 10, 'Title\n=====\nBody.', { headings: ['Title'] }],
        ],
      );
      const read = await m.sourceLines({ path: file, from: 1, lines: 10 });
      assert.deepEqual(read.lines.map((l) => l.text), [...lines.slice(0, 6), ...lines.slice(7, 10)]);
      assert.equal((await m.import(file)).unchanged, 3);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
  // TOML (Hugo) too; a first "---" never closed is a thematic break, not front matter.
  assert.deepEqual(
    chunkMarkdown(['+++', 'title = "x"', '+++', 'Text.'].join('\n')).map((c) => [c.lineEnd, c.frontMatter]),
    [
      [3, 'toml'],
      [4, undefined],
    ],
  );
  assert.deepEqual(
    chunkMarkdown(['---', 'Just text.'].join('\n')).map((c) => [c.lineEnd, c.frontMatter]),
    [[2, undefined]],
  );
  // A note opening with a break, a heading and another break is Markdown: its heading is seen.
  assert.deepEqual(
    chunkMarkdown(['---', '# Plan', '', 'Steps.', '', '---', 'More.'].join('\n')).map((c) => [c.lineStart, c.headings, c.frontMatter]),
    [
      [1, [], undefined],
      [2, ['Plan'], undefined],
    ],
  );
  assert.equal(chunkMarkdown(['---', '- a', '- b', '---'].join('\n'))[0]!.frontMatter, 'yaml', 'a YAML list is front matter');
});

// ---- 4. One file, two paths ----

test(named('a note imported through a link and through its target is one file, filed under the path a store first held it by'), async () => {
  const { dir, db, store, cleanup } = testStores();
  try {
    const text = '# A\n\nhello\n\n# B\n\nworld\n';
    mkdirSync(join(dir, 'vault'));
    const real = join(dir, 'vault', 'note.md');
    const link = join(dir, 'note-link.md');
    writeFileSync(real, text);
    symlinkSync(real, link);
    const m = await openMemory({ db });
    try {
      const first = await m.import(link);
      assert.deepEqual([first.created, first.path], [2, link]);
      for (const path of [real, link, join(dir, 'vault', '..', 'vault', 'note.md'), real]) {
        const again = await m.import(path);
        assert.deepEqual([again.created, again.unchanged, again.retired, again.path], [0, 2, 0, link], path);
      }
      assert.equal((await memoriesOf(m)).length, 2);
      // memory_get takes either path.
      for (const path of [link, real]) {
        const read = await m.sourceLines({ path, from: 1, lines: 3 });
        assert.equal(read.path, link);
        assert.deepEqual(read.lines.map((l) => l.text), ['# A', '', 'hello']);
      }
    } finally {
      await m.close();
    }

    // A folder holding a note and a link to it: one file, whichever is met first.
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    writeFileSync(join(folder, 'b-note.md'), text);
    symlinkSync(join(folder, 'b-note.md'), join(folder, 'a-link.md'));
    const f = await openMemory({ db: store('folder.db') });
    try {
      assert.deepEqual([(await f.import(join(folder, 'a-link.md'))).created, (await f.import(join(folder, 'b-note.md'))).created], [2, 0]);
      assert.equal((await memoriesOf(f)).length, 2);
    } finally {
      await f.close();
    }

    // A store made by an earlier version holds the note under the path it was named by, now a link.
    const legacyDb = store('legacy.db');
    const old = join(dir, 'old-name.md');
    writeFileSync(old, text);
    const before = await openMemory({ db: legacyDb });
    try {
      assert.equal((await before.import(old)).created, 2);
    } finally {
      await before.close();
    }
    const target = join(dir, 'vault', 'moved.md');
    renameSync(old, target);
    symlinkSync(target, old);
    const l = await openMemory({ db: legacyDb });
    try {
      for (const path of [target, old, target]) {
        const again = await l.import(path);
        assert.deepEqual([again.created, again.unchanged, again.retired, again.path], [0, 2, 0, old], path);
      }
      assert.equal((await memoriesOf(l)).length, 2);
    } finally {
      await l.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a note a store holds twice (a copy since made a link to it) stays twice, gains no third copy, and each import names the other copy'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const text = '# A\n\nhello\n\n# B\n\nworld\n';
    mkdirSync(join(dir, 'vault'));
    const real = join(dir, 'vault', 'note.md');
    const copy = join(dir, 'copy.md');
    const other = join(dir, 'other-link.md');
    writeFileSync(real, text);
    writeFileSync(copy, text);
    let m = await openMemory({ db });
    try {
      assert.deepEqual([(await m.import(real)).created, (await m.import(copy)).created], [2, 2]);
      // The copy is replaced by a link to the note: the store now holds one file twice, as an earlier version left it.
      rmSync(copy);
      symlinkSync(real, copy);
      symlinkSync(real, other);
      for (const [via, filed, also] of [
        [copy, copy, real],
        [real, real, copy],
        [other, real, copy],
      ] as const) {
        // A new handle each time: the other copy is found in the store, not remembered from an earlier import.
        await m.close();
        m = await openMemory({ db });
        const r = await m.import(via);
        assert.deepEqual([r.created, r.unchanged, r.retired, r.path], [0, 2, 0, filed], via);
        assert.deepEqual(r.alsoStoredAs, [{ path: also, keyPrefix: `file:${also}#` }], via);
      }
      // Both copies are kept whole: nothing is merged or dropped without the owner's word.
      assert.deepEqual([(await memoriesOf(m, real)).length, (await memoriesOf(m, copy)).length, (await memoriesOf(m)).length], [2, 2, 4]);
      // A note held once says nothing of other copies.
      writeFileSync(join(dir, 'single.md'), text);
      assert.equal('alsoStoredAs' in (await m.import(join(dir, 'single.md'))), false);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a note imported through a link and forgotten whole stays forgotten when imported through the link again'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    mkdirSync(join(dir, 'vault'));
    const real = join(dir, 'vault', 'note.md');
    const link = join(dir, 'link.md');
    writeFileSync(real, '# Private\n\nsecret\n');
    symlinkSync(real, link);
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(link)).created, 1);
      const [chunk] = await memoriesOf(m);
      const preview = await m.forget((await m.list({ limit: 5 })).items.find((x) => x.text === chunk!.text)!.id);
      await m.confirmForget(preview.token);
      const again = await m.import(link);
      assert.deepEqual([again.created, again.forgotten], [0, 1]);
      assert.equal((await memoriesOf(m)).length, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});
