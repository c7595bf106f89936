import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/** A folder under `dir` whose absolute path is exactly `length` characters, folders of `char` repeated (each under 255 bytes). */
function deepDir(dir: string, length: number, char = 'd'): string {
  const per = Math.floor(240 / Buffer.byteLength(char));
  let out = dir;
  for (let left = length - [...out].length - 1; left > 0; left = length - [...out].length - 1) out = join(out, char.repeat(Math.min(per, left === per + 1 ? per - 1 : left)));
  assert.equal([...out].length, length);
  mkdirSync(out, { recursive: true });
  return out;
}

test(named('a note and a JSONL file deeper than a key holds import, stay idempotent and are found by path'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const deep = deepDir(dir, 600);
    const note = join(deep, 'n.md');
    const lines = join(deep, 'n.jsonl');
    writeFileSync(note, '# Deep\n\nthe deep note\n');
    writeFileSync(lines, '{"text":"the deep line"}\n');
    const m = await openMemory({ db });
    try {
      for (const f of [note, lines]) {
        const first = await m.import(f);
        assert.ok(first.created >= 1, f);
        const again = await m.import(f);
        assert.deepEqual([again.created, again.superseded, again.retired], [0, 0, 0], 're-importing adds nothing');
      }
      const items = (await m.list({ limit: 10 })).items;
      for (const mem of items) {
        assert.ok([...mem.sourceKey!].length <= 512, mem.sourceKey!);
        assert.ok(mem.source.path === note || mem.source.path === lines, 'the path is kept whole in source.path');
      }
      assert.deepEqual((await m.sourceLines({ path: lines, from: 1, lines: 1 })).lines.map((l) => l.text), ['{"text":"the deep line"}']);
      // Two deep files differing only near the start of their paths stay two files.
      const twin = deepDir(join(dir, 'e'), 600);
      writeFileSync(join(twin, 'n.jsonl'), '{"text":"the deep line"}\n');
      assert.equal((await m.import(join(twin, 'n.jsonl'))).created, 1);
      assert.equal((await m.import(lines)).unchanged, 1);
      // Forgotten stays forgotten under the digest form too.
      const line = (await m.list({ limit: 10 })).items.find((x) => x.source.path === lines)!;
      await m.confirmForget((await m.forget(line.id, 'asked')).token);
      assert.deepEqual([(await m.import(lines)).forgotten, (await m.search('the deep line')).hits.filter((h) => h.memory.source.path === lines).length], [1, 0]);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a deep JSONL file an earlier version keyed by its path is re-keyed once, never held twice'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(deepDir(dir, 482), 'x.jsonl');
    writeFileSync(file, '{"text":"kept once"}\n');
    const m = await openMemory({ db });
    try {
      // What an earlier version stored for this line: its key holds the path itself.
      await m.remember({ text: 'kept once', key: `file:${file}#L1`, source: { path: file, lineStart: 1, lineEnd: 1 } });
      const r = await m.import(file);
      assert.deepEqual([r.created, r.retired], [1, 1]);
      assert.equal((await m.search('kept once')).hits.length, 1);
      assert.equal((await m.import(file)).unchanged, 1);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a line forgotten from a deep JSONL file an earlier version keyed by its path stays forgotten when the file is re-keyed'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(deepDir(dir, 482), 'x.jsonl');
    writeFileSync(file, '{"text":"forget me"}\n{"text":"keep me"}\n');
    const m = await openMemory({ db });
    try {
      // What an earlier version stored for these lines: keys that hold the path itself. The first is then forgotten.
      const gone = await m.remember({ text: 'forget me', key: `file:${file}#L1`, source: { path: file, lineStart: 1, lineEnd: 1 } });
      await m.remember({ text: 'keep me', key: `file:${file}#L2`, source: { path: file, lineStart: 2, lineEnd: 2 } });
      await m.confirmForget((await m.forget(gone.id, 'asked')).token);
      const r = await m.import(file);
      assert.deepEqual([r.created, r.forgotten, r.retired], [1, 1, 1], 'the kept line is re-keyed, the forgotten one stays out');
      const held = async () => (await m.list({ limit: 10 })).items.filter((x) => x.text === 'forget me');
      assert.deepEqual(await held(), []);
      assert.equal((await m.import(file)).forgotten, 1);
      // Forgotten as text of the file too: moved to another line, it still stays out.
      writeFileSync(file, '{"text":"keep me"}\n{"text":"new line"}\n{"text":"forget me"}\n');
      const moved = await m.import(file);
      assert.deepEqual([moved.forgotten, (await held()).length], [1, 0]);
      // Restored on purpose, it comes back under the new key.
      assert.equal((await m.import(file, { includeForgotten: true })).created, 1);
      assert.deepEqual((await held()).map((x) => x.sourceKey!.startsWith('file:sha256:')), [true]);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a line with its own source, forgotten from a deep JSONL file an earlier version keyed by its path, stays forgotten when the file is re-keyed'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(deepDir(dir, 482), 'x.jsonl');
    // The lines say where their text came from, so source.path is not the file's path.
    const cites = (line: number) => ({ path: '/notes/elsewhere.md', lineStart: line, lineEnd: line });
    writeFileSync(file, `${JSON.stringify({ text: 'forget the cited line', source: cites(7) })}\n${JSON.stringify({ text: 'keep the cited line', source: cites(9) })}\n`);
    const m = await openMemory({ db });
    try {
      // What an earlier version stored: keys that hold the file's path, the lines' own source. The first is then forgotten.
      const gone = await m.remember({ text: 'forget the cited line', key: `file:${file}#L1`, source: cites(7) });
      await m.remember({ text: 'keep the cited line', key: `file:${file}#L2`, source: cites(9) });
      await m.confirmForget((await m.forget(gone.id, 'asked')).token);
      const r = await m.import(file);
      // The old key form was built from source.path, which is not this file: the forgotten line came back.
      assert.deepEqual([r.created, r.forgotten, r.retired], [1, 1, 1], 'the kept line is re-keyed, the forgotten one stays out');
      const held = async () => (await m.list({ limit: 10 })).items.filter((x) => x.text === 'forget the cited line');
      assert.deepEqual(await held(), []);
      assert.equal((await m.import(file)).forgotten, 1);
      const kept = (await m.list({ limit: 10 })).items.find((x) => x.text === 'keep the cited line')!;
      assert.deepEqual(kept.source, cites(9), 'the line keeps the source it gave');
      // Restored on purpose, it comes back under the new key, and a later import finds it unchanged.
      assert.equal((await m.import(file, { includeForgotten: true })).created, 1);
      assert.deepEqual((await held()).map((x) => x.sourceKey!.startsWith('file:sha256:')), [true]);
      assert.equal((await m.import(file)).unchanged, 2);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a chunk forgotten from a deep note an earlier version keyed by its path stays forgotten when the note is re-keyed'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(deepDir(dir, 482), 'x.md');
    writeFileSync(file, 'forget this chunk\n');
    const m = await openMemory({ db });
    try {
      const gone = await m.remember({ text: 'forget this chunk', key: `file:${file}#L1-L1`, source: { path: file, lineStart: 1, lineEnd: 1 } });
      await m.confirmForget((await m.forget(gone.id, 'asked')).token);
      const r = await m.import(file);
      assert.deepEqual([r.created, r.forgotten], [0, 1]);
      assert.equal((await m.list({ limit: 10 })).items.length, 0);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

for (const reopen of [false, true]) {
  test(named(`a deep note and JSONL file imported through a linked folder and then its target${reopen ? ' (each by a new process)' : ''} are held once`), async () => {
    const { dir, db, cleanup } = testStores();
    try {
      // Past 480 characters through either path, so both key the file by a digest of the path.
      const deep = deepDir(dir, 600);
      mkdirSync(join(deep, 'real'));
      symlinkSync(join(deep, 'real'), join(deep, 'link'));
      writeFileSync(join(deep, 'real', 'n.md'), '# Deep\n\nthe deep note\n');
      writeFileSync(join(deep, 'real', 'n.jsonl'), '{"text":"the deep line"}\n');
      let m = await openMemory({ db });
      try {
        for (const name of ['n.md', 'n.jsonl']) {
          const [link, real] = [join(deep, 'link', name), join(deep, 'real', name)];
          assert.equal((await m.import(link)).created, 1);
          if (reopen) {
            await m.close();
            m = await openMemory({ db });
          }
          const again = await m.import(real);
          assert.deepEqual([again.created, again.unchanged, again.path], [0, 1, link], name);
        }
        assert.equal((await m.list({ limit: 10 })).items.length, 2);
      } finally {
        await m.close();
      }
    } finally {
      await cleanup();
    }
  });
}

test(named('a deep path of 4-byte characters imports on either backend (PostgreSQL indexes keys up to 2,704 bytes)'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    try {
      // Just under the plain-key limit (480 characters, about 1,900 bytes) and well past it.
      for (const length of [475, 900]) {
        const file = join(deepDir(join(dir, String(length)), length, '🚀'), 'n.md');
        writeFileSync(file, '# 🚀\n\nrocket note\n');
        const r = await m.import(file);
        assert.equal(r.created, 1, file);
        assert.equal((await m.import(file)).unchanged, 1);
      }
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});
