/**
 * A heading is copied into the `headings` metadata of every chunk under it: a
 * 150,000-character heading over 50 subsections stored about 150 KB in each
 * of 51 memories. Each heading is capped there; the chunks' text is not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { HEADING_CUT, MAX_HEADING_CHARS, markdownInputs } from '../../src/services/import/markdown.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

type Exported = { text: string; supersededAt: string | null; source: { path?: string; lineStart?: number }; metadata: { headings?: string[] } };

const LONG = 'Quarterly review of the boiler, the roof and the garden '.repeat(2700).trim(); // ~150,000 characters

function longHeadingFile(): string {
  let s = `# ${LONG}\n\nWhat this file is about.\n\n`;
  for (let i = 0; i < 50; i++) s += `## Part ${i}\n\nNote ${i}: check the valve.\n\n`;
  return s;
}

test(named('a very long heading is cut in each chunk\'s headings metadata, never in the text, and a re-import stays unchanged'), async () => {
  const t = testStores();
  const file = join(t.dir, 'long.md');
  writeFileSync(file, longHeadingFile());
  const m = await openMemory({ db: t.db });
  try {
    const first = await m.import(file);
    assert.equal(first.created, 52);
    const lines: string[] = [];
    await m.export((l) => void lines.push(l));
    const mems = lines.map((l) => JSON.parse(l) as Exported).filter((r) => r.supersededAt === null);
    assert.equal(mems.length, 52);
    const cut = LONG.slice(0, MAX_HEADING_CHARS) + HEADING_CUT;
    for (const x of mems) {
      assert.equal(x.metadata.headings?.[0], cut, `chunk at line ${x.source.lineStart}`);
      assert.ok(JSON.stringify(x.metadata).length < 1000, `chunk at line ${x.source.lineStart} holds ${JSON.stringify(x.metadata).length} characters of metadata`);
    }
    // The heading line is its own chunk, and its text is the whole line as written.
    assert.equal(mems.find((x) => x.source.lineStart === 1)?.text, `# ${LONG}`);
    assert.equal(mems.find((x) => x.text.startsWith('## Part 7'))?.metadata.headings?.[1], 'Part 7');

    const again = await m.import(file);
    assert.deepEqual([again.created, again.unchanged, again.superseded, again.retired], [0, 52, 0, 0]);
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('a store imported before the cap, with the whole heading in its metadata, finds the file unchanged'), async () => {
  const t = testStores();
  const file = join(t.dir, 'long.md');
  writeFileSync(file, longHeadingFile());
  const m = await openMemory({ db: t.db });
  try {
    await m.import(file);
    await m.close();
    // As earlier versions wrote it: the whole heading in every chunk's metadata (only the text decides "unchanged").
    await rawSql(t.db, 'UPDATE memories SET metadata = ?', JSON.stringify({ headings: [LONG] }));
    const m2 = await openMemory({ db: t.db });
    try {
      const again = await m2.import(file);
      assert.deepEqual([again.created, again.unchanged, again.superseded, again.retired], [0, 52, 0, 0]);
      // Unchanged chunks are not rewritten: they keep the metadata they were stored with until their text changes.
      const lines: string[] = [];
      await m2.export((l) => void lines.push(l));
      assert.equal(lines.length, 52);
      for (const l of lines) assert.deepEqual((JSON.parse(l) as Exported).metadata.headings, [LONG]);
    } finally {
      await m2.close();
    }
  } finally {
    await t.cleanup();
  }
});

test('a heading is cut before a surrogate pair, never inside it; short headings are kept whole', () => {
  const h = 'a'.repeat(MAX_HEADING_CHARS - 1) + '😀' + 'b'.repeat(10);
  const [chunk] = markdownInputs('/x.md', `# ${h}\n\n# short one\n\ntext\n`).map((c) => c.input.metadata as { headings: string[] });
  assert.equal(chunk!.headings[0], 'a'.repeat(MAX_HEADING_CHARS - 1) + HEADING_CUT);
  const last = markdownInputs('/x.md', `# ${h}\n\n# short one\n\ntext\n`).at(-1)!.input.metadata as { headings: string[] };
  assert.deepEqual(last.headings, ['short one']);
});
