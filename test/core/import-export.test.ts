import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { chunkMarkdown } from '../../src/services/import/markdown.ts';
import { embeddingsFor } from '../../src/services/embeddings.ts';
import { named, testStores } from '../helpers/backend.ts';

const MD = `# Project Atlas

Atlas ships the parser on Friday.
The owner is Dana.

## Risks

The tokenizer is slow on huge files.

\`\`\`ts
const a = 1;

const b = 2;
\`\`\`

## People
Dana leads; Omar reviews.
`;

test('markdown chunks keep exact lines and never split code fences', () => {
  const chunks = chunkMarkdown(MD, 10);
  const lines = MD.split('\n');
  for (const c of chunks) assert.equal(c.text, lines.slice(c.lineStart - 1, c.lineEnd).join('\n'));
  const fence = chunks.find((c) => c.text.includes('const a'));
  assert.ok(fence?.text.includes('const b'), 'a fenced block stays in one chunk');
  assert.deepEqual(chunks.find((c) => c.text.includes('Omar'))?.headings, ['Project Atlas', 'People']);
});

test(named('markdown import is idempotent, updates changed chunks and retires vanished ones'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'notes.md');
    writeFileSync(file, MD);
    const m = await openMemory({ db: db });
    const first = await m.import(file);
    assert.ok(first.created >= 3);
    const again = await m.import(file);
    assert.equal(again.created, 0);
    assert.equal(again.unchanged, first.created);
    const hit = (await m.search('Omar reviews')).hits[0]!;
    assert.equal(hit.memory.source.path, file);
    const lines = MD.split('\n');
    assert.equal(hit.memory.text, lines.slice(hit.memory.source.lineStart! - 1, hit.memory.source.lineEnd).join('\n'));

    writeFileSync(file, MD.replace('Omar reviews', 'Priya reviews').replace('## Risks\n\nThe tokenizer is slow on huge files.\n\n', ''));
    const changed = await m.import(file);
    assert.ok(changed.superseded + changed.created >= 1);
    assert.ok(changed.retired >= 1);
    assert.equal((await m.search('Omar')).hits.length, 0);
    assert.equal((await m.search('Priya')).hits.length, 1);
    assert.equal((await m.search('tokenizer')).hits.length, 0);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('a file whose name has a character outside the BMP imports, reads back and retires like any other'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'ideas \u{1F4A1}.md');
    writeFileSync(file, '# Ideas\n\nA lamp that dims itself.\n\n## Later\n\nA kettle with a timer.\n');
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(file)).created, 2);
      assert.deepEqual((await m.sourceLines({ path: file, from: 3, lines: 1 })).lines, [{ line: 3, text: 'A lamp that dims itself.' }]);
      writeFileSync(file, '# Ideas\n\nA lamp that dims itself.\n');
      const again = await m.import(file);
      assert.deepEqual([again.created, again.unchanged, again.retired], [0, 1, 1], 'the vanished chunk retires');
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('transcripts: one episode per turn, idempotent by session + turn, same text in two sessions kept twice'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'chat.jsonl');
    writeFileSync(
      file,
      [
        { role: 'user', content: 'haha', sessionId: 's1', timestamp: '2023-05-08T13:56:00Z' },
        { role: 'assistant', content: 'glad you liked it', sessionId: 's1' },
        { role: 'user', content: 'haha', sessionId: 's2' },
      ]
        .map((x) => JSON.stringify(x))
        .join('\n'),
    );
    const m = await openMemory({ db: db });
    const r = await m.import(file);
    assert.equal(r.format, 'transcript-jsonl');
    assert.equal(r.created, 3);
    assert.equal((await m.import(file)).created, 0);
    const hahas = await m.list({ filter: { types: ['episode'] }, limit: 10 });
    assert.equal(hahas.items.filter((x) => x.text === 'haha').length, 2);
    const first = hahas.items.find((x) => x.sessionId === 's1' && x.text === 'haha')!;
    assert.equal(first.validFrom, '2023-05-08T13:56:00.000Z');
    assert.deepEqual([first.source.turnStart, first.source.turnEnd], [1, 1]);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named("a file's turn whose speaker changed (role or name) becomes a new version on re-import; an unchanged file stays unchanged"), async () => {
  const { dir, db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const file = join(dir, 'chat.jsonl');
    const write = (...msgs: object[]) => writeFileSync(file, msgs.map((x) => JSON.stringify(x)).join('\n') + '\n');
    const turn = async () => (await m.list({ filter: { sessionId: 'fs' } })).items.find((x) => x.source.turnStart === 1)!;
    write({ role: 'user', content: 'file turn' }, { role: 'assistant', content: 'a reply' });
    assert.equal((await m.import(file, { sessionId: 'fs' })).created, 2);
    const again = await m.import(file, { sessionId: 'fs' });
    assert.deepEqual([again.created, again.unchanged, again.superseded], [0, 2, 0], 'the same file changes nothing');
    const before = await turn();

    // Only the role changed: it answered unchanged and kept "user".
    write({ role: 'assistant', content: 'file turn' }, { role: 'assistant', content: 'a reply' });
    const roleChanged = await m.import(file, { sessionId: 'fs' });
    assert.deepEqual([roleChanged.created, roleChanged.unchanged, roleChanged.superseded], [0, 1, 1]);
    const now = await turn();
    assert.equal(now.metadata.role, 'assistant');
    assert.equal(now.lineageId, before.lineageId, 'a new version of the same turn');
    assert.equal(now.version, 2);
    assert.equal((await m.history(before.id)).versions.length, 2);

    // A name added is a speaker change too; the file read again after it is unchanged.
    write({ role: 'assistant', content: 'file turn', name: 'helper' }, { role: 'assistant', content: 'a reply' });
    assert.equal((await m.import(file, { sessionId: 'fs' })).superseded, 1);
    assert.equal((await turn()).metadata.name, 'helper');
    const same = await m.import(file, { sessionId: 'fs' });
    assert.deepEqual([same.created, same.unchanged, same.superseded], [0, 2, 0]);
    assert.equal((await m.list({ filter: { sessionId: 'fs' } })).total, 2, 'one current version per turn');
    assert.equal((await m.verifyAudit()).ok, true);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('import reports progress: embedding climbs to every new text before the one write'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'many.jsonl');
    writeFileSync(file, Array.from({ length: 1200 }, (_, i) => JSON.stringify({ text: `imported line ${i} about lanterns`, key: `line-${i}` })).join('\n'));
    const m = await openMemory({ db });
    try {
      const seen: { phase: string; done: number; total: number }[] = [];
      await m.import(file, { onProgress: (p) => seen.push({ phase: p.phase, done: p.done, total: p.total }) });
      const embedding = seen.filter((p) => p.phase === 'embedding');
      assert.ok(embedding.length >= 2, `several embedding updates: ${JSON.stringify(seen)}`);
      assert.ok(embedding.every((p, i) => p.total === 1200 && (i === 0 || p.done > embedding[i - 1]!.done)));
      assert.equal(embedding.at(-1)!.done, 1200);
      assert.deepEqual(seen.map((p) => p.phase).filter((ph, i, all) => ph !== all[i - 1]), ['parsing', 'embedding', 'writing', 'done']);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('JSONL lines without a key are identified by file and line: re-import adds nothing, a changed line is a new version, a vanished one retires'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'notes.jsonl');
    const write = (...texts: (string | { text: string; key: string })[]) =>
      writeFileSync(file, texts.map((t) => JSON.stringify(typeof t === 'string' ? { text: t } : t)).join('\n') + '\n');
    const m = await openMemory({ db });
    try {
      write('haha', 'haha', 'the lamp is fixed', { text: 'tea with Dana', key: 'k1' });
      const first = await m.import(file);
      assert.deepEqual([first.created, first.unchanged], [4, 0], 'the same text on two lines is two memories');
      const again = await m.import(file);
      assert.deepEqual([again.created, again.unchanged, again.superseded, again.retired], [0, 4, 0, 0], 're-importing the file adds nothing');

      write('haha', 'hehe', 'the lamp is fixed', { text: 'tea with Dana', key: 'k1' });
      const edited = await m.import(file);
      assert.deepEqual([edited.created, edited.unchanged, edited.superseded, edited.retired], [0, 3, 1, 0]);
      const hehe = (await m.search('hehe')).hits[0]!.memory;
      assert.equal((await m.history(hehe.id)).versions.length, 2, 'line 2 keeps its old version');
      assert.deepEqual(hehe.source, { path: file, lineStart: 2, lineEnd: 2 });

      write('haha', 'hehe', { text: 'tea with Dana', key: 'k1' });
      const shorter = await m.import(file);
      assert.deepEqual([shorter.created, shorter.unchanged, shorter.superseded, shorter.retired], [0, 3, 0, 1], 'line 3 is gone: its memory retires');
      assert.equal((await m.search('lamp fixed')).hits.length, 0);

      // The exact source line reads back as written.
      const lines = await m.sourceLines({ path: file, from: 2, lines: 1 });
      assert.deepEqual(lines.lines, [{ line: 2, text: JSON.stringify({ text: 'hehe' }) }]);
      assert.equal(lines.note, undefined);

      // Emptied: every line-keyed memory retires; the keyed one stays (its identity is its key, not the file).
      writeFileSync(file, '');
      const emptied = await m.import(file);
      assert.deepEqual([emptied.created, emptied.retired], [0, 2]);
      assert.equal((await m.search('tea Dana')).hits.length, 1);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('re-import embeds only what changed: unchanged lines, chunks and exported records keep their vectors'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const jsonl = join(dir, 'notes.jsonl');
    const md = join(dir, 'notes.md');
    const writeJsonl = (...texts: string[]) => writeFileSync(jsonl, texts.map((t, i) => JSON.stringify(i === 0 ? { text: t, key: 'own-key' } : { text: t })).join('\n') + '\n');
    writeJsonl('tea with Dana', 'the lamp is fixed', 'haha', 'haha');
    writeFileSync(md, MD);
    const m = await openMemory({ db });
    try {
      // What the embedder is asked for: each import's embedding phase announces its total.
      const embedded = async (file: string) => {
        let total = 0;
        const r = await m.import(file, { onProgress: (p) => void (p.phase === 'embedding' && (total = p.total)) });
        return { ...r, total };
      };
      // Keys are looked up one page of keys at a time, except under the file's own prefix, whose memories the
      // vanished-line check lists anyway: a first import of a big file looks up nothing.
      const lookups: string[][] = [];
      const listKeys = m.store.listKeys.bind(m.store);
      m.store.listKeys = (p, filter, ...rest) => (filter.sourceKeys && lookups.push(filter.sourceKeys.keys), listKeys(p, filter, ...rest));
      // Ids are looked up only for memory records (export lines): plain lines get fresh ids.
      const idLookups: string[][] = [];
      const getMany = m.store.getMany.bind(m.store);
      m.store.getMany = (p, ids) => (idLookups.push(ids), getMany(p, ids));
      const first = [await embedded(jsonl), await embedded(md)];
      assert.deepEqual(first.map((r) => r.total), first.map((r) => r.created), 'a first import embeds every new text');
      assert.deepEqual(lookups, [['own-key']]);
      assert.deepEqual(idLookups, []);
      const all = (await m.status()).embeddings.vectors;
      assert.equal(all, first[0]!.created + first[1]!.created);

      const again = [await embedded(jsonl), await embedded(md)];
      assert.deepEqual(again.map((r) => [r.total, r.created, r.superseded]), [[0, 0, 0], [0, 0, 0]], 'nothing new, nothing embedded');
      assert.equal((await m.status()).embeddings.vectors, all, 'the unchanged memories kept their vectors');

      writeJsonl('tea with Dana', 'the lamp is broken', 'haha', 'haha');
      writeFileSync(md, MD.replace('Omar reviews', 'Priya reviews'));
      const edited = [await embedded(jsonl), await embedded(md)];
      assert.deepEqual(edited.map((r) => [r.total, r.superseded]), [[1, 1], [1, 1]], 'only the changed line and the changed chunk');
      assert.equal((await m.status()).embeddings.vectors, all);
      assert.equal((await m.search('lamp broken')).hits[0]!.memory.text, 'the lamp is broken');

      // Conversation turns, identified by session and turn.
      const chat = join(dir, 'chat.jsonl');
      writeFileSync(chat, ['hello there', 'general kenobi'].map((content, i) => JSON.stringify({ role: i ? 'assistant' : 'user', content, sessionId: 'c1' })).join('\n'));
      assert.deepEqual([(await embedded(chat)).total, (await embedded(chat)).total], [2, 0]);

      // An export imported back into the same store: every record is already there.
      const lines: string[] = [];
      await m.export((l) => void lines.push(l));
      const exported = join(dir, 'export.jsonl');
      writeFileSync(exported, lines.join(''));
      idLookups.length = 0; // searches above read their hits by id too
      const back = await embedded(exported);
      assert.deepEqual([back.total, back.created], [0, 0]);
      // Current records for their vectors; closed ones for whether the store holds them still current (to close them).
      assert.equal(idLookups.flat().length, lines.length, 'each record of the export was looked up by id once');
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a client resending a keyed batch has nothing embedded again; a changed text is'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    try {
      const svc = (await embeddingsFor((m as unknown as { ctx: Parameters<typeof embeddingsFor>[0] }).ctx, m.principal))!;
      const asked: string[] = [];
      const embed = svc.embed.bind(svc);
      svc.embed = (texts, opts) => (asked.push(...texts), embed(texts, opts));
      const batch = [
        { text: 'the boiler was serviced', key: 'client-1' },
        { text: 'the boiler was serviced', key: 'client-2' },
      ];
      await m.rememberMany(batch, 'supersede');
      assert.equal(asked.length, 2);
      const retry = await m.rememberMany(batch, 'supersede');
      assert.deepEqual(retry.map((r) => r.status), ['unchanged', 'unchanged']);
      assert.equal(asked.length, 2, 'the retry embedded nothing');
      const changed = await m.rememberMany([batch[0]!, { text: 'the boiler failed again', key: 'client-2' }], 'supersede');
      assert.deepEqual(changed.map((r) => r.status), ['unchanged', 'superseded']);
      assert.deepEqual(asked.slice(2), ['the boiler failed again']);
      assert.equal((await m.status()).embeddings.vectors, 2);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a long JSONL file: its lines read back and retire when they vanish, however far down they are'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'long.jsonl');
    const line = (i: number) => JSON.stringify({ text: `entry ${i}`, visibility: 'shared' });
    const lines = (n: number) => Array.from({ length: n }, (_, i) => line(i)).join('\n') + '\n';
    const m = await openMemory({ db });
    try {
      // Past one page of the stale check (10,000): the vanished lines are the last ones listed.
      writeFileSync(file, lines(10_030));
      assert.equal((await m.import(file)).created, 10_030);
      // How memory_get {path} finds the memories: by the asked lines' keys, or by walking the file's memories.
      const how: string[] = [];
      const list = m.store.list.bind(m.store);
      m.store.list = (p, filter, ...rest) => (how.push(filter.sourceKeys ? 'keys' : filter.sourceKeyPrefix ? 'walk' : 'other'), list(p, filter, ...rest));
      const deep = await m.sourceLines({ path: file, from: 10_025, lines: 2 });
      assert.deepEqual(deep.lines, [10_024, 10_025].map((i) => ({ line: i + 1, text: line(i) })));
      assert.deepEqual(how.splice(0), ['keys'], 'every asked line has its key');
      // The owner reads the file: lines past its end need no memory.
      const end = await m.sourceLines({ path: file, from: 10_029, lines: 10 });
      assert.deepEqual(end.lines.map((l) => l.line), [10_029, 10_030]);
      assert.deepEqual(how.splice(0), ['keys']);
      // A guest, who does not read the file, gets the stored text of the same lines, by their keys too.
      const asGuest = m.as({ role: 'guest', namespace: 'default', id: 'g1' });
      const guest = await asGuest.sourceLines({ path: file, from: 10_029, lines: 10 });
      assert.deepEqual(guest.lines, [{ line: 10_029, text: 'entry 10028' }, { line: 10_030, text: 'entry 10029' }]);
      assert.deepEqual(how.splice(0), ['keys']);
      // Inside the file, the keys find the owner's shared lines for the guest.
      assert.deepEqual((await asGuest.sourceLines({ path: file, from: 5, lines: 1 })).lines, [{ line: 5, text: 'entry 4' }]);
      assert.deepEqual(how.splice(0), ['keys']);
      m.store.list = list;
      writeFileSync(file, lines(10_000));
      const r = await m.import(file);
      assert.deepEqual([r.created, r.unchanged, r.retired], [0, 10_000, 30]);
      assert.equal((await m.status()).memories.byLifecycle.archived ?? 0, 0);
      assert.equal((await m.search('entry 10029')).hits.some((h) => h.memory.text === 'entry 10029'), false);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a file too large to hold in memory stops early with what to do, and writes nothing'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const jsonl = join(dir, 'big.jsonl');
    writeFileSync(jsonl, Array.from({ length: 200 }, (_, i) => JSON.stringify({ text: `line ${i} of a file too large` })).join('\n'));
    const md = join(dir, 'big.md');
    writeFileSync(md, Array.from({ length: 200 }, (_, i) => `## Part ${i}\n\nParagraph ${i}.\n`).join('\n'));
    const m = await openMemory({ db });
    try {
      // A budget of about 100 memories: the default is 60% of V8's heap, which a test cannot fill.
      const budget = 100 * 1_300;
      for (const file of [jsonl, md]) {
        await assert.rejects(m.import(file, { memoryBudgetBytes: budget }), (err: Error & { code?: string }) => {
          assert.equal(err.code, 'limit_exceeded');
          assert.match(err.message, /too large to import as one file: at (line|item) \d+ .*Nothing was written\. Split it into smaller files.*max-old-space-size/);
          return true;
        });
      }
      assert.equal((await m.status()).memories.total, 0);
      // Within the budget the same files import.
      assert.equal((await m.import(jsonl, { memoryBudgetBytes: 1_000 * 1_300 })).created, 200);
      assert.ok((await m.import(md)).created > 100);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('a bad line stops the import with its line number and writes nothing from the file'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'mem.jsonl');
    writeFileSync(file, `${JSON.stringify({ text: 'good one' })}\n${JSON.stringify({ text: 'good two' })}\n{"text": 5}\n`);
    const m = await openMemory({ db: db });
    await assert.rejects(m.import(file), (err: Error & { code?: string }) => err.code === 'validation_failed' && /mem\.jsonl:3/.test(err.message) && /text/.test(err.message));
    assert.equal((await m.status()).memories.total, 0);
    writeFileSync(file, `${JSON.stringify({ text: 'good one' })}\nnot json\n`);
    await assert.rejects(m.import(file), /mem\.jsonl:2: not valid JSON/);
    assert.equal((await m.status()).memories.total, 0);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('export is lossless: export, import into an empty store, export again gives identical bytes'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    const x = await a.remember({ text: 'Dana moved to Porto', type: 'fact', tags: ['people'], validFrom: '2024-02-01T00:00:00Z', metadata: { confidence: 0.9, nested: { k: [1, 2] } } });
    await a.update(x.id, { text: 'Dana moved to Lisbon', validFrom: '2024-06-01T00:00:00Z' });
    await a.remember({ text: 'prefers tea', type: 'preference', emotionalValence: 0.4, expiresAt: '2099-01-01T00:00:00Z', key: 'client-1', sessionId: 's9' });
    const lines: string[] = [];
    await a.export((l) => void lines.push(l));
    const out1 = join(dir, 'out1.jsonl');
    writeFileSync(out1, lines.join(''));
    await a.close();

    const b = await openMemory({ db: store('b.db') });
    const r = await b.import(out1);
    assert.equal(r.created, 3);
    assert.equal((await b.import(out1)).created, 0, 're-importing an export adds nothing');
    const lines2: string[] = [];
    await b.export((l) => void lines2.push(l));
    assert.equal(lines2.join(''), readFileSync(out1, 'utf8'));
    // The restored store knows both versions, bi-temporally.
    const now = await b.search('Dana');
    assert.equal(now.hits.length, 1);
    assert.equal(now.hits[0]!.memory.text, 'Dana moved to Lisbon');
    await b.close();
  } finally {
    await cleanup();
  }
});

test(named('source keys: a guest cannot write under a key another principal holds, and learns nothing about its content'), async () => {
  const { db, cleanup } = testStores();
  try {
    const owner = await openMemory({ db: db });
    const mine = await owner.remember({ text: 'owner secret plan', key: 'transcript:s1#1' });
    const guest = owner.as({ role: 'guest', namespace: 'default', id: 'g1' });
    const same = await guest.remember({ text: 'owner secret plan', key: 'transcript:s1#1' }).catch((e) => e);
    const different = await guest.remember({ text: 'a wrong guess', key: 'transcript:s1#1' }).catch((e) => e);
    assert.equal(same.code, 'forbidden');
    assert.equal(same.message, different.message, 'a right and a wrong guess get the same answer');
    assert.equal(JSON.stringify(same.details).includes(mine.id), false);
    // The guest's own keys work as idempotency keys; the owner may reuse the same key for its own memory.
    const g = await guest.remember({ text: 'guest note', key: 'client-7' });
    assert.equal((await guest.remember({ text: 'guest note', key: 'client-7' })).status, 'unchanged');
    const o = await owner.remember({ text: 'owner note', key: 'client-7' });
    assert.equal(o.status, 'created');
    assert.notEqual(o.id, g.id);
    await owner.close();
  } finally {
    await cleanup();
  }
});

test(named('memory_get {path} says when its character budget cut the lines short, and where to go on'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'wide.jsonl');
    const text = (i: number) => `line ${i} `.padEnd(120, 'x');
    writeFileSync(file, Array.from({ length: 1500 }, (_, i) => JSON.stringify({ text: text(i) })).join('\n') + '\n');
    const m = await openMemory({ db });
    try {
      assert.equal((await m.import(file)).created, 1500);
      const seen: number[] = [];
      let from: number | null = 1;
      let calls = 0;
      while (from !== null && calls++ < 10) {
        const r = await m.sourceLines({ path: file, from, lines: 1500 - from + 1 });
        seen.push(...r.lines.map((l) => l.line));
        if (r.truncated) assert.match(r.note ?? '', new RegExp(`ask again with from ${r.nextFrom}`));
        from = r.nextFrom;
      }
      assert.ok(calls > 1, 'the first answer was cut');
      assert.deepEqual(seen, Array.from({ length: 1500 }, (_, i) => i + 1), 'every line once, in order');
      const whole = await m.sourceLines({ path: file, from: 1, lines: 10 });
      assert.deepEqual([whole.truncated, whole.nextFrom], [false, null]);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

test(named('an export restored over an earlier one closes the versions it closes: one current version, keyed or not; an older export changes nothing'), async () => {
  const { dir, db, store, cleanup } = testStores();
  try {
    const source = await openMemory({ db });
    const dump = async (name: string) => {
      const lines: string[] = [];
      await source.export((l) => void lines.push(l));
      writeFileSync(join(dir, name), lines.join(''));
      return join(dir, name);
    };
    const plain = await source.remember({ text: 'Dana lives in Lisbon' });
    const keyed = await source.remember({ text: 'the office is on floor 2', key: 'notes#office' });
    const first = await dump('first.jsonl');
    await source.update(plain.id, { text: 'Dana lives in Porto' });
    await source.remember({ text: 'the office is on floor 5', key: 'notes#office' }, 'supersede');
    const second = await dump('second.jsonl');
    await source.close();

    const target = await openMemory({ db: store('restored.db') });
    try {
      assert.equal((await target.import(first)).created, 2);
      // A partial export holding a closed version without its successor closes nothing: the memory keeps a current version.
      const partial = join(dir, 'partial.jsonl');
      writeFileSync(partial, readFileSync(second, 'utf8').split('\n').filter((l) => l && JSON.parse(l).id === plain.id).join('\n') + '\n');
      assert.notEqual(JSON.parse(readFileSync(partial, 'utf8')).supersededAt, null);
      assert.deepEqual([(await target.import(partial)).superseded], [0]);
      assert.equal((await target.get(plain.id)).supersededAt, null);
      const r = await target.import(second);
      assert.deepEqual([r.created, r.superseded], [2, 2], JSON.stringify(r));
      const current = (await target.list({})).items.map((m) => m.text).sort();
      assert.deepEqual(current, ['Dana lives in Porto', 'the office is on floor 5']);
      assert.equal((await target.history(keyed.id)).versions.filter((v) => v.supersededAt === null).length, 1);
      // Restoring either export again, or the older one last, changes nothing.
      for (const file of [second, first]) {
        const again = await target.import(file);
        assert.deepEqual([again.created, again.superseded], [0, 0], `${file}: ${JSON.stringify(again)}`);
      }
      assert.deepEqual((await target.list({})).items.map((m) => m.text).sort(), current);
      assert.equal((await target.verifyAudit()).ok, true);
    } finally {
      await target.close();
    }
  } finally {
    await cleanup();
  }
});

test(named("a chunk that left its file is retired at the import's clock, as the changed ones are superseded"), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const clock = { t: Date.parse('2026-01-01T00:00:00Z') };
    const m = await openMemory({ db, now: () => clock.t });
    try {
      const file = join(dir, 'notes.md');
      writeFileSync(file, '# One\n\nfirst part\n\n# Two\n\nsecond part\n');
      assert.equal((await m.import(file)).created, 2);
      clock.t += 60_000;
      writeFileSync(file, '# One\n\nfirst part, changed\n');
      const r = await m.import(file);
      assert.deepEqual([r.superseded, r.retired], [1, 1]);
      const closed = (await m.list({ filter: { knownAt: '2026-01-01T00:00:30Z' } })).items;
      assert.equal(closed.length, 2, 'both chunks were current half a minute in');
      for (const c of closed) assert.equal(c.supersededAt, '2026-01-01T00:01:00.000Z', `${c.text}: closed at the import's time`);
      assert.deepEqual((await m.list({ filter: { knownAt: '2026-01-01T00:05:00Z' } })).items.map((x) => x.text), ['# One\n\nfirst part, changed']);
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});

// A guest's memory claiming the owner's file as its source filled the owner's "exact source lines" with its text.
test(named("memory_get {path} gives the caller's own chunks of a file first: a guest's memory citing the owner's file does not change the owner's lines"), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const file = join(dir, 'notes.md');
    writeFileSync(file, '# Bank\nAccount 12-34\nat First Bank.\n\n# Plans\nShip it on time.\nCall Ana.\n');
    const m = await openMemory({ db });
    try {
      await m.import(file);
      const before = await m.sourceLines({ path: file, from: 1, lines: 7 });
      const guest = m.as({ role: 'guest', namespace: 'default', id: 'g1' });
      const key = `file:${file}#L1-L7`;
      await guest.remember({ text: 'a\nb\nc\nd\ne\nf\nAccount 66-66 at Evil Bank.', key, source: { path: file, lineStart: 1, lineEnd: 7 } });
      const after = await m.sourceLines({ path: file, from: 1, lines: 7 });
      assert.deepEqual(after.lines, before.lines);
      assert.ok(after.lines.some((l) => l.text === 'Account 12-34'));
      assert.ok(!after.lines.some((l) => /Evil|^d$/.test(l.text)), JSON.stringify(after.lines));
      assert.equal(after.note, undefined, 'the lines are the file on disk');
      // Re-imported as one chunk under the same key the guest holds: the owner's own chunk answers.
      writeFileSync(file, 'Account 12-34\nat First Bank.\nShip it on time.\nCall Ana.\nline five\nline six\nline seven\n');
      await m.import(file);
      const again = await m.sourceLines({ path: file, from: 1, lines: 7 });
      assert.deepEqual(again.lines.map((l) => l.text), ['Account 12-34', 'at First Bank.', 'Ship it on time.', 'Call Ana.', 'line five', 'line six', 'line seven']);
      // The guest still reads what it wrote, and only that.
      assert.ok((await guest.sourceLines({ path: file, from: 7, lines: 1 })).lines[0]!.text.includes('Evil Bank'));
    } finally {
      await m.close();
    }
  } finally {
    await cleanup();
  }
});
