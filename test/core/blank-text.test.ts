import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, MnemosError } from '../../src/index.ts';
import { testStores } from '../helpers/backend.ts';
import { workingMemoryNote } from '../../src/surfaces/tools/working-memory-note.ts';
import { runTool } from '../../src/surfaces/tools/run-tool.ts';

/**
 * Text that shows nothing is blank: zero-width space and joiners, word
 * joiner and byte-order mark, with or without whitespace, were stored while
 * "   " was refused. Every way in (add, update, the MCP note, each import
 * format) is refused the same way, and nothing is written.
 */

const INVISIBLE = ['\u200b', '\u200c \u200d', '\u2060\n', '\ufeff', ' \u200b\u200c\u200d\u2060\ufeff '];
const blank = (err: unknown) => {
  assert.ok(MnemosError.is(err), `expected a MnemosError, got ${String(err)}`);
  assert.equal(err.code, 'validation_failed');
  assert.match(err.message, /must not be blank/);
  return true;
};

test('text of only invisible characters and whitespace is refused as blank on every way in', async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const kept = await m.remember({ text: 'visible \u200b text with a zero-width space is kept' });
    for (const text of INVISIBLE) {
      await assert.rejects(m.remember({ text }), blank, JSON.stringify(text));
      await assert.rejects(m.update(kept.id, { text }), blank, JSON.stringify(text));
      await assert.rejects(runTool(workingMemoryNote, { note: text }, { memory: m, surfaceParts: [] }), blank, JSON.stringify(text));
    }
    const jsonl = join(t.dir, 'zw.jsonl');
    writeFileSync(jsonl, `${JSON.stringify({ text: '\u200b\u2060 ' })}\n`);
    await assert.rejects(m.import(jsonl), blank);
    const chat = join(t.dir, 'chat.json');
    writeFileSync(chat, JSON.stringify([{ role: 'user', content: '\ufeff\u200d' }]));
    await assert.rejects(m.import(chat, { format: 'transcript' }), blank);
    // A Markdown file of nothing else is a file of blank lines: it imports nothing, as one of spaces does.
    const md = join(t.dir, 'zw.md');
    writeFileSync(md, '\u200b\n\n\u200d\ufeff\n');
    assert.equal((await m.import(md)).created, 0);
    const page = await m.list({ limit: 10 });
    assert.deepEqual(page.items.map((x) => x.id), [kept.id]);
  } finally {
    await m.close();
    await t.cleanup();
  }
});
