import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

const CHAT = '{"role":"user","content":"hello there"}\n{"role":"assistant","content":"hi back"}\n';

/** A folder `real` with chat.jsonl, and two links to it: `a` and `b`. */
function linkedChat(dir: string): { real: string; a: string; b: string } {
  mkdirSync(join(dir, 'real'));
  writeFileSync(join(dir, 'real', 'chat.jsonl'), CHAT);
  symlinkSync(join(dir, 'real'), join(dir, 'a'));
  symlinkSync(join(dir, 'real'), join(dir, 'b'));
  return { real: join(dir, 'real', 'chat.jsonl'), a: join(dir, 'a', 'chat.jsonl'), b: join(dir, 'b', 'chat.jsonl') };
}

for (const order of [
  ['a', 'real', 'b', 'a'],
  ['real', 'a', 'b', 'real'],
] as const) {
  test(named(`a transcript imported through ${order.join(', then ')} is one conversation: its turns stay under the first path`), async () => {
    const { dir, db, cleanup } = testStores();
    try {
      const paths = linkedChat(dir);
      const m = await openMemory({ db });
      try {
        const first = await m.import(paths[order[0]]);
        assert.equal(first.created, 2);
        for (const via of order.slice(1)) {
          const r = await m.import(paths[via]);
          assert.deepEqual([r.created, r.unchanged, r.path], [0, 2, paths[order[0]]], `through ${via}`);
        }
        const items = (await m.list({ limit: 10 })).items;
        assert.deepEqual([...new Set(items.map((x) => x.sessionId))], [paths[order[0]]]);
      } finally {
        await m.close();
      }
    } finally {
      await cleanup();
    }
  });
}

test(named('turns an earlier version filed under the base name through a link stay idempotent through the real path'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const paths = linkedChat(dir);
    const m = await openMemory({ db });
    try {
      for (const [turn, role, text] of [[1, 'user', 'hello there'], [2, 'assistant', 'hi back']] as const) {
        await m.remember({ text, type: 'episode', origin: 'transcript', sessionId: 'chat', key: `transcript:chat#${turn}`, source: { sessionId: 'chat', turnStart: turn, turnEnd: turn, path: paths.a }, metadata: { role } });
      }
      for (const via of [paths.real, paths.a, paths.b]) assert.deepEqual([(await m.import(via)).created, (await m.import(via)).unchanged], [0, 2], via);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a transcript a store holds under two sessions (a copy since made a link to it) gains no third, and each import names the other'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const paths = linkedChat(dir);
    const copy = join(dir, 'copy.jsonl');
    writeFileSync(copy, CHAT);
    let m = await openMemory({ db });
    try {
      assert.deepEqual([(await m.import(paths.real)).created, (await m.import(copy)).created], [2, 2]);
      // The copy is replaced by a link to the file: one conversation held under two sessions, as an earlier version left it.
      rmSync(copy);
      symlinkSync(paths.real, copy);
      for (const [via, filed, also] of [
        [copy, copy, paths.real],
        [paths.real, paths.real, copy],
        [paths.a, paths.real, copy],
      ] as const) {
        await m.close();
        m = await openMemory({ db });
        const r = await m.import(via);
        assert.deepEqual([r.created, r.unchanged, r.path], [0, 2, filed], via);
        assert.deepEqual(r.alsoStoredAs, [{ path: also, keyPrefix: `transcript:${also}#` }], via);
      }
      assert.equal((await m.list({ limit: 10 })).items.length, 4);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

/** A folder under `dir` whose absolute path is at least `length` characters (folders of 200 characters each). */
function deepDir(dir: string, length: number): string {
  let out = dir;
  while (out.length < length) out = join(out, 'd'.repeat(200));
  mkdirSync(out, { recursive: true });
  return out;
}

for (const order of [
  ['a', 'real', 'b', 'a'],
  ['real', 'a', 'b', 'real'],
] as const) {
  for (const reopen of [false, true]) {
    test(named(`a transcript deeper than a session id holds, imported through ${order.join(', then ')}${reopen ? ' (each by a new process)' : ''}, is one conversation`), async () => {
      const { dir, db, cleanup } = testStores();
      try {
        // Each path is past 256 characters, so its session is named by its base name and a hash of the path.
        const paths = linkedChat(deepDir(dir, 300));
        let m = await openMemory({ db });
        try {
          assert.equal((await m.import(paths[order[0]])).created, 2);
          for (const via of order.slice(1)) {
            // A new store handle knows nothing of the links met before: it finds the session in the store.
            if (reopen) {
              await m.close();
              m = await openMemory({ db });
            }
            const r = await m.import(paths[via]);
            assert.deepEqual([r.created, r.unchanged, r.path], [0, 2, paths[order[0]]], `through ${via}`);
          }
          const items = (await m.list({ limit: 10 })).items;
          assert.equal(items.length, 2);
          assert.equal(new Set(items.map((x) => x.sessionId)).size, 1);
          assert.deepEqual([...new Set(items.map((x) => x.source.path))], [paths[order[0]]]);
        } finally {
          await m.close();
        }
      } finally {
        await cleanup();
      }
    });
  }
}
