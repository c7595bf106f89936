/**
 * How an import finds the other paths a store holds its file under (a link
 * and its target, src/services/import/file-identity.ts): the walk of the
 * store's files read one key per statement, one statement per file held,
 * so one small new note imported into a store of 5,000 files waited
 * seconds (over ten on PostgreSQL). It reads pages of keys now; these tests
 * check that it still finds every copy, past a page boundary, through a
 * folder link and a file link, and count its statements (never its time).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { openStore } from '../../src/adapters/open-store.ts';
import { localOwner } from '../../src/domain/principal.ts';
import type { MemoryStore } from '../../src/ports/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import type { ServiceContext } from '../../src/services/context.ts';
import { fileIdentity, otherFileCopies } from '../../src/services/import/file-identity.ts';
import { named, testStores } from '../helpers/backend.ts';

/** The real store, with its listKeys statements counted. */
function counted(store: MemoryStore): { ctx: ServiceContext; listKeys: () => number } {
  let n = 0;
  const spy = new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver);
      if (prop === 'listKeys') return (...args: Parameters<MemoryStore['listKeys']>) => (n++, target.listKeys(...args));
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  // The walk reads only the store; the rest of a context is never touched by it.
  return { ctx: { store: spy } as unknown as ServiceContext, listKeys: () => n };
}

test(named('the other copies of a file are found past a page of keys, through a folder link and a file link, in a few statements'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    // A file of 2,100 lines first in key order (more keys than one page of the walk), then 40 notes, then the linked ones.
    const big = join(dir, 'a-big.jsonl');
    writeFileSync(big, Array.from({ length: 2100 }, (_, i) => JSON.stringify({ text: `line ${i} of the big file` })).join('\n') + '\n');
    mkdirSync(join(dir, 'notes'));
    mkdirSync(join(dir, 'vault'));
    symlinkSync(join(dir, 'vault'), join(dir, 'link'));
    const real = join(dir, 'vault', 'x.md');
    writeFileSync(real, '# X\n\nthe linked note\n');
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(big)).created, 2100);
      for (let i = 0; i < 40; i++) {
        writeFileSync(join(dir, 'notes', `n${i}.md`), `# N${i}\n\nnote ${i}\n`);
        await m.import(join(dir, 'notes', `n${i}.md`));
      }
      // Filed under the folder link's path; a file link to the same note is made later, as a vault is rearranged.
      assert.equal((await m.import(join(dir, 'link', 'x.md'))).created, 1);
      writeFileSync(join(dir, 'copy.md'), '# X\n\nthe linked note\n');
      assert.equal((await m.import(join(dir, 'copy.md'))).created, 1);
    } finally {
      await m.close();
    }
    rmSync(join(dir, 'copy.md'));
    symlinkSync(real, join(dir, 'copy.md'));

    const store = await openStore(db, { analyze });
    try {
      const owner = localOwner('default');
      const { ctx, listKeys } = counted(store);
      // Through the real path: filed under the folder link's path (held first in key order), the file link's copy named.
      const filed = await fileIdentity(ctx, owner, real);
      assert.equal(filed, join(dir, 'copy.md'));
      assert.deepEqual(await otherFileCopies(ctx, owner, real, filed), [{ path: join(dir, 'link', 'x.md'), keyPrefix: `file:${join(dir, 'link', 'x.md')}#` }]);
      // One walk for both (kept for the next imports): a page, one more past the big file, and the checks of the paths given.
      // It took one statement per file held (over 40 here).
      assert.ok(listKeys() <= 8, `${listKeys()} listKeys statements`);
      const before = listKeys();
      assert.deepEqual(await otherFileCopies(ctx, owner, join(dir, 'link', 'x.md'), join(dir, 'link', 'x.md')), [{ path: join(dir, 'copy.md'), keyPrefix: `file:${join(dir, 'copy.md')}#` }]);
      assert.ok(listKeys() - before <= 2, 'the walk is not read again within its idle time');
    } finally {
      await store.close();
    }
  } finally {
    await cleanup();
  }
});
