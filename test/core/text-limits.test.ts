import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';
import { MAX_TEXT_CHARS } from '../../src/services/inputs.ts';
import { StoreEpisodes } from '../../src/services/cycle/store-episodes.ts';
import { charCount } from '../../src/domain/unicode.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';

/**
 * A memory's text limit is one number of characters (code points: an emoji
 * is one) on every way in: add, a JSONL line, a Markdown line, the cycle's
 * episodes. Markdown and the cycle counted UTF-16 units, so a text of
 * emoji that add and JSONL import stored was refused there.
 */

const EMOJI = '\u{1F600}';

test('charCount counts code points: a surrogate pair is one character, a lone half is one too', () => {
  assert.equal(charCount(''), 0);
  assert.equal(charCount(EMOJI.repeat(3)), 3);
  assert.equal(charCount('a\uD83D'), 2);
  assert.equal(charCount('\uDE00\uD83D'), 2);
  assert.equal(charCount('👨‍👩‍👧'), 5, 'a ZWJ sequence is its code points');
});

test(named('a line of as many emoji as the limit allows is stored from Markdown as from add and JSONL; one more is refused everywhere, counted in characters'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const fits = EMOJI.repeat(MAX_TEXT_CHARS);
    const over = EMOJI.repeat(MAX_TEXT_CHARS + 1);
    const md = join(t.dir, 'emoji.md');
    writeFileSync(md, `${fits}\n`);
    const imported = await m.import(md);
    assert.equal(imported.created, 1);
    const stored = (await m.list({})).items;
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.text, fits, 'stored exactly as given');

    const jsonl = join(t.dir, 'emoji.jsonl');
    writeFileSync(jsonl, `${JSON.stringify({ text: `${fits.slice(2)}!` })}\n`);
    assert.equal((await m.import(jsonl)).created, 1);
    await m.remember({ text: `${fits.slice(4)}?!` });

    const tooLong = join(t.dir, 'over.md');
    writeFileSync(tooLong, `${over}\n`);
    await assert.rejects(m.import(tooLong), (err: unknown) => MnemosError.is(err, 'validation_failed') && new RegExp(`has ${MAX_TEXT_CHARS + 1} characters`).test(err.message));
    await assert.rejects(m.remember({ text: over }), (err: unknown) => MnemosError.is(err, 'validation_failed') && err.details?.field === 'text');
    assert.equal((await m.list({})).total, 3, 'nothing of the refused ones was written');
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('the cycle holds an episode and a blackboard value to the same characters: emoji fit as they fit add'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const now = new Date().toISOString();
    const episode = (id: string, value: string) => ({ eventId: id, blackboardKey: 'goal.achieved', valueSnapshot: value, salience: 0.9, tick: 1, sourceModule: 'goal', tags: [], validFrom: now, transactionTime: now, labels: ['Episode'], readOnly: false });
    // The episode text is `goal.achieved = "<value>"`: 18 characters around the value.
    const room = MAX_TEXT_CHARS - 'goal.achieved = ""'.length;
    const episodes = new StoreEpisodes(m.store);
    await episodes.persistEpisodes(m.principal, [episode('fits', EMOJI.repeat(room))]);
    await assert.rejects(episodes.persistEpisodes(m.principal, [episode('over', EMOJI.repeat(room + 1))]), (err: unknown) => MnemosError.is(err, 'limit_exceeded') && err.details?.chars === MAX_TEXT_CHARS + 1);
    assert.equal((await m.list({ filter: { types: ['episode'] } })).total, 1);

    const cycle = m.cycle();
    await cycle.write('goal.emoji', EMOJI.repeat(MAX_TEXT_CHARS - 'goal.emoji'.length - 5));
    await assert.rejects(cycle.write('goal.emoji2', EMOJI.repeat(MAX_TEXT_CHARS)), (err: unknown) => MnemosError.is(err, 'limit_exceeded'));
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('a filter value no store can hold (NUL, half a surrogate pair) is the same validation_failed naming the filter on both backends'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    await m.remember({ text: 'alpha filter probe', tags: ['t'], sessionId: 's' });
    const filters: [string, Record<string, unknown>][] = [
      ['sessionId', { sessionId: 's\u0000' }],
      ['agentId', { agentId: '\u0000' }],
      ['tags', { tags: ['t\u0000'] }],
      ['labels', { labels: ['\uD800'] }],
      ['sessionId', { sessionId: '\uDFFFs' }],
    ];
    for (const [field, filter] of filters) {
      const named = (err: unknown) => MnemosError.is(err, 'validation_failed') && String(err.details?.field).startsWith(`filter.${field}`);
      await assert.rejects(m.list({ filter }), named, JSON.stringify(filter));
      await assert.rejects(m.search({ query: 'alpha', filter }), named, JSON.stringify(filter));
    }
    assert.equal((await m.list({ filter: { sessionId: 's', tags: ['t'] } })).total, 1);
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('memory_get {path} with a path no store can hold is validation_failed naming path on both backends'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    for (const path of [join(t.dir, 'notes\u0000.md'), join(t.dir, '\uD800.md')]) {
      await assert.rejects(
        runTool(findTool(TOOLS, 'memory_get'), { path }, { memory: m, surfaceParts: [] }),
        (err: unknown) => MnemosError.is(err, 'validation_failed') && err.details?.field === 'path',
        JSON.stringify(path),
      );
    }
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('a capitalised word thousands of letters long is no name: graph indexing and consolidation go on past it on both backends'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    // Letters of the supplementary ideograph plane, varied so that PostgreSQL cannot compress the value under its index limit.
    let seed = 7;
    const letters = Array.from({ length: 2000 }, () => String.fromCodePoint(0x20000 + ((seed = (seed * 48271) % 2147483647) % 40000))).join('');
    await m.remember({ text: `Yesterday A${letters} met Dana Smith in Lisbon.` });
    await m.remember({ text: 'Dana Smith likes tea.' });
    const indexed = await m.lifecycle.indexGraph({ limit: 100 });
    assert.equal(indexed.memories, 2);
    const dana = await m.lifecycle.entity('Dana Smith');
    assert.equal(dana.entities.length, 1);
    assert.equal((await m.lifecycle.entity(`A${letters}`)).entities.length, 0, 'the long word was not made an entity');
    const run = await m.lifecycle.consolidate({ force: true });
    assert.equal(run.status, 'done');
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('a key and principal id within their limits but past what PostgreSQL can index are refused as limit_exceeded there, not a raw driver error'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    let seed = 11;
    const rnd = (n: number) => Array.from({ length: n }, () => String.fromCodePoint(0x20000 + ((seed = (seed * 48271) % 2147483647) % 40000))).join('');
    const guest = m.as({ role: 'guest', namespace: 'default', id: rnd(256) });
    const write = guest.remember({ text: 'guest note under a long key', key: rnd(512) });
    if (m.store.backend === 'postgres') {
      // The unique index of current source keys holds namespace, owner id and key: about 3,100 bytes here.
      await assert.rejects(write, (err: unknown) => MnemosError.is(err, 'limit_exceeded') && /index/.test(err.message));
      assert.equal((await m.list({})).total, 0, 'nothing was written');
    } else {
      assert.equal((await write).status, 'created', 'SQLite has no index row limit');
    }
  } finally {
    await m.close();
    await t.cleanup();
  }
});
