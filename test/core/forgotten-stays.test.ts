import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/** Forget, then read the same source again: what was forgotten must not come back without a word. */

async function forgetText(m: Awaited<ReturnType<typeof openMemory>>, needle: string): Promise<string> {
  const hit = (await m.list({ limit: 100 })).items.find((x) => x.text.includes(needle));
  assert.ok(hit, `a memory with "${needle}"`);
  await m.confirmForget((await m.forget(hit.id, 'asked')).token);
  return hit.lineageId;
}

test(named('a forgotten Markdown chunk stays forgotten when the unchanged file is imported again, unless asked'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'notes.md');
    writeFileSync(file, '# Bank\n\nthe pin hint is zanzibarquokka\n\n# Garden\n\nthe roses need water\n');
    const m = await openMemory({ db });
    assert.equal((await m.import(file)).created, 2);
    const lineage = await forgetText(m, 'zanzibarquokka');

    const again = await m.import(file);
    assert.deepEqual([again.created, again.unchanged, again.forgotten], [0, 1, 1]);
    assert.equal((await m.search('zanzibarquokka')).hits.length, 0);
    await assert.rejects(m.get(lineage), { code: 'forgotten' });

    // The chunk changed since: new content from that place is stored.
    writeFileSync(file, '# Bank\n\nthe pin hint changed to otherword\n\n# Garden\n\nthe roses need water\n');
    assert.equal((await m.import(file)).created, 1);
    writeFileSync(file, '# Bank\n\nthe pin hint is zanzibarquokka\n\n# Garden\n\nthe roses need water\n');
    const back = await m.import(file, { includeForgotten: true });
    assert.equal(back.forgotten, 0);
    assert.equal((await m.search('zanzibarquokka')).hits.length, 1, 'asked for, the forgotten chunk is written again');
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('an old export imported again does not restore the versions forgotten since'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const { id } = await m.remember({ text: 'Dana moved to Porto' });
    await m.update(id, { text: 'Dana moved to Lisbon' });
    await m.remember({ text: 'the deploy key rotates on Mondays' });
    const lines: string[] = [];
    await m.export((l) => void lines.push(l));
    const backup = join(dir, 'backup.jsonl');
    writeFileSync(backup, lines.join('\n') + '\n');
    await forgetText(m, 'Lisbon');

    const r = await m.import(backup);
    assert.deepEqual([r.created, r.unchanged, r.forgotten], [0, 1, 2], 'both versions of the forgotten memory stay forgotten');
    assert.equal((await m.search('Dana')).hits.length, 0);
    assert.equal((await m.import(backup, { includeForgotten: true })).created, 2);
    assert.equal((await m.history(id)).versions.length, 2);
    // Forgotten again: the second forget renews the tombstone (it failed on the tombstone's key).
    await forgetText(m, 'Lisbon');
    await assert.rejects(m.get(id), { code: 'forgotten' });
    assert.equal((await m.import(backup)).forgotten, 2);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('a transcript posted again, and a keyed write sent again, do not bring back a forgotten turn or key'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const chat = { sessionId: 's1', messages: [{ role: 'user', content: 'hello there' }, { role: 'user', content: 'my diagnosis is private' }, { role: 'assistant', content: 'noted' }] };
    await m.ingestTranscript(chat);
    const lineage = await forgetText(m, 'diagnosis');
    const again = await m.ingestTranscript(chat);
    assert.deepEqual(
      again.results.map((r) => r.status),
      ['unchanged', 'forgotten', 'unchanged'],
    );
    assert.equal(again.results[1]!.id, lineage);
    assert.equal((await m.search('diagnosis')).hits.length, 0);

    // A key with this text was forgotten: the same write again stores nothing; other text under the key is new.
    const first = await m.remember({ text: 'the locker code is 4417', key: 'locker' });
    await m.confirmForget((await m.forget(first.id, 'asked')).token);
    const results = await m.rememberMany([
      { text: 'the locker code is 4417', key: 'locker' },
      { text: 'a brand new memory', key: 'fresh' },
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['forgotten', 'created'],
    );
    assert.equal((await m.remember({ text: 'the locker code is 9902', key: 'locker' })).status, 'created');
    // "haha" forgotten in one session says nothing of "haha" in another.
    await m.ingestTranscript({ sessionId: 's2', messages: [{ role: 'user', content: 'haha' }] });
    await forgetText(m, 'haha');
    assert.equal((await m.ingestTranscript({ sessionId: 's3', messages: [{ role: 'user', content: 'haha' }] })).results[0]!.status, 'created');
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('every version stays forgotten, also through a changed chunk changing back; a restored memory can be forgotten again'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'pin.md');
    const m = await openMemory({ db });
    // Two versions of one chunk, then the lineage is forgotten: the older text stays forgotten too.
    writeFileSync(file, '# Bank\n\nMy bank PIN is 4711.\n');
    await m.import(file);
    writeFileSync(file, '# Bank\n\nMy bank PIN is 9999.\n');
    assert.equal((await m.import(file)).superseded, 1);
    await forgetText(m, '9999');
    writeFileSync(file, '# Bank\n\nMy bank PIN is 4711.\n');
    assert.equal((await m.import(file)).forgotten, 1, 'the older version');
    // The chunk says something else, then the forgotten text again: what it said meanwhile is closed.
    writeFileSync(file, '# Bank\n\nNothing about the bank here.\n');
    assert.equal((await m.import(file)).created, 1);
    writeFileSync(file, '# Bank\n\nMy bank PIN is 9999.\n');
    const back = await m.import(file);
    assert.deepEqual([back.superseded, back.forgotten], [0, 1]);
    assert.deepEqual((await m.list()).items, [], 'neither the forgotten text nor the stale one is current');
    assert.equal((await m.search('4711')).hits.length + (await m.search('9999')).hits.length, 0);

    // Restored on purpose, then forgotten again: the second forget works, and the text stays forgotten after it.
    assert.equal((await m.import(file, { includeForgotten: true })).created, 1);
    assert.equal((await m.search('9999')).hits.length, 1);
    await forgetText(m, '9999');
    assert.equal((await m.search('9999')).hits.length, 0);
    assert.equal((await m.import(file)).forgotten, 1);
    assert.equal((await m.consolidate({ force: true })).status, 'done');
    assert.equal((await m.verifyAudit()).ok, true);
    await m.close();
  } finally {
    await cleanup();
  }
});

// Keyed by its lines alone, a forgotten chunk came back when a line was added above it: every later chunk
// then has new line numbers, so new keys, and the next import of the edited notes wrote the text again.
test(named('a forgotten chunk or JSONL line stays forgotten when lines are added above it, unless asked'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const md = join(dir, 'notes.md');
    const jsonl = join(dir, 'facts.jsonl');
    writeFileSync(md, '# Bank\n\nthe pin hint is zanzibarquokka\n\n# Garden\n\nthe roses need water\n');
    writeFileSync(jsonl, '{"text":"the safe code is quetzalmarmot"}\n{"text":"lunch is at noon"}\n');
    const m = await openMemory({ db });
    try {
      await m.import(md);
      await m.import(jsonl);
      await forgetText(m, 'zanzibarquokka');
      await forgetText(m, 'quetzalmarmot');

      writeFileSync(md, 'A line added on top.\n\n# Bank\n\nthe pin hint is zanzibarquokka\n\n# Garden\n\nthe roses need water\n');
      writeFileSync(jsonl, '{"text":"a fact added on top"}\n{"text":"the safe code is quetzalmarmot"}\n{"text":"lunch is at noon"}\n');
      const a = await m.import(md);
      const b = await m.import(jsonl);
      assert.equal(a.forgotten, 1, JSON.stringify(a));
      assert.equal(b.forgotten, 1, JSON.stringify(b));
      assert.equal((await m.search('zanzibarquokka')).hits.length, 0, 'the forgotten chunk did not come back');
      assert.equal((await m.search('quetzalmarmot')).hits.length, 0, 'the forgotten line did not come back');
      // The rest of the file is imported as usual (its chunks moved, so they are new keys).
      assert.ok((await m.search('roses')).hits.some((h) => h.memory.text.includes('roses need water')));

      // Another file's same text is its own content.
      const other = join(dir, 'other.md');
      writeFileSync(other, '# Bank\n\nthe pin hint is zanzibarquokka\n');
      assert.equal((await m.import(other)).created, 1);

      // Asked for, it comes back, and a later import of the file leaves it be.
      const back = await m.import(md, { includeForgotten: true });
      assert.equal(back.created, 1, JSON.stringify(back));
      assert.equal((await m.import(md)).unchanged, 3);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a chunk whose lines now hold forgotten text is counted retired, and a keyed write says which version it closed'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'notes.md');
    writeFileSync(file, '# Garden\n\nthe roses need water\n\n# Bank\n\nthe pin hint is zanzibarquokka\n');
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(file)).created, 2);
      await forgetText(m, 'zanzibarquokka');
      // The sections swap: the forgotten text now sits where the garden chunk was, which moves below it.
      writeFileSync(file, '# Bank\n\nthe pin hint is zanzibarquokka\n\n# Garden\n\nthe roses need water\n');
      const r = await m.import(file);
      assert.deepEqual([r.created, r.forgotten, r.retired, r.superseded], [1, 1, 1, 0], 'the garden chunk of lines 1-3, closed, is counted');
      const current = (await m.list({ limit: 10 })).items;
      assert.deepEqual(current.map((x) => x.text), ['# Garden\n\nthe roses need water'], 'one garden chunk, no forgotten text');

      const first = await m.remember({ text: 'locker code is quokkazanzibar', key: 'locker' });
      await forgetText(m, 'quokkazanzibar');
      const other = await m.remember({ text: 'locker is empty', key: 'locker' });
      const [again] = await m.rememberMany([{ text: 'locker code is quokkazanzibar', key: 'locker' }], 'supersede');
      assert.equal(again!.status, 'forgotten');
      assert.equal(again!.id, first.id);
      assert.equal(again!.retiredId, other.id, 'the answer names the version it closed');
      assert.notEqual((await m.get(other.id)).supersededAt, null, 'closed');
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});
