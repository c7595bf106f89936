/**
 * Tool answers go into an LLM's context: memory_search and deep_recall
 * bound the text they return and mark what they cut, where a dozen long
 * turns came back as megabytes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';
import { openMemory, type Mnemos } from '../../src/surfaces/library/open-memory.ts';
import { named, testStores } from '../helpers/backend.ts';

const call = (memory: Mnemos, name: string, input: unknown) => runTool(findTool(TOOLS, name), input, { memory, surfaceParts: [] }) as Promise<Record<string, any>>;

test(named('memory_search and deep_recall bound the text they return, cut it between characters and mark it'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const long = (i: number) => `harbour lighthouse keeper ${i} `.padEnd(30_000, 'w') + '😀 end';
    await m.ingestTranscript({ sessionId: 's1', messages: Array.from({ length: 6 }, (_, i) => ({ role: 'user' as const, content: long(i) })) });

    const found = await call(m, 'memory_search', { query: 'harbour lighthouse keeper' });
    const texts = found.results.map((r: { text: string }) => r.text.length);
    assert.equal(found.results.length, 6, 'every result is listed');
    assert.ok(texts.reduce((a: number, b: number) => a + b, 0) <= 20_000, `default budget: ${texts}`);
    assert.equal(found.results[0].truncated, true, 'a 30,000-character text does not fit the default 20,000');
    assert.equal(found.results[0].text.length, 20_000);
    const wide = await call(m, 'memory_search', { query: 'harbour lighthouse keeper', maxChars: 60_000 });
    assert.equal(wide.results[0].text, (await m.get(wide.results[0].id)).text, 'the first text whole');
    assert.equal(wide.results[1].truncated, true);
    assert.match(wide.truncated, /memory_get \{id\}/);

    const deep = await call(m, 'deep_recall', { query: 'harbour lighthouse keeper', context: 1, maxChars: 45_000 });
    let total = 0;
    for (const h of deep.hits) total += h.text.length + h.context.reduce((n: number, c: { text: string }) => n + c.text.length, 0);
    assert.ok(total <= 45_000, `deep_recall within its budget: ${total}`);
    assert.equal(deep.truncated, true);
    assert.match(deep.searched, /cut \d+ texts/);
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    for (const h of deep.hits) assert.ok(!lone.test(h.text));
    await assert.rejects(call(m, 'deep_recall', { query: 'x', maxChars: 60_001 }), /maxChars/);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('memory_list bounds the text of a page, marks what it cut, and its cursor still reaches every memory once'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    // Six memories of 30,000 characters: one full page was 180,000 characters (a page of 100 could be 20 MB).
    const long = (i: number) => `list page text ${i} `.padEnd(30_000, 'w') + '😀 end';
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push((await m.remember({ text: long(i), type: 'fact' })).id);
    const whole = new Map(await Promise.all(ids.map(async (id) => [id, (await m.get(id)).text] as const)));

    const page = await call(m, 'memory_list', { limit: 6 });
    const lengths = page.items.map((i: { text: string }) => i.text.length);
    assert.equal(page.items.length, 6, 'every memory of the page is listed, cut or not');
    assert.ok(lengths.reduce((a: number, b: number) => a + b, 0) <= 20_000, `default budget: ${lengths}`);
    assert.equal(page.items[0].text.length, 20_000);
    assert.ok(page.items.every((i: { truncated?: boolean }) => i.truncated === true), 'each text is cut (the later ones to nothing)');
    assert.match(page.truncated, /maxChars 20000 cut 6 texts.*memory_get \{id\}/);
    assert.equal(page.total, 6);

    const wide = await call(m, 'memory_list', { limit: 6, maxChars: 60_000 });
    assert.equal(wide.items[0].text, whole.get(wide.items[0].id), 'a text that fits is whole');
    assert.equal(wide.items[0].truncated, undefined, 'and not marked');
    assert.equal(wide.items[2].truncated, true);

    // A tiny budget cuts every text of every page; the cursor still walks all six, once each, in order.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 10; pages++) {
      const p = await call(m, 'memory_list', { limit: 4, maxChars: 5, ...(cursor ? { cursor } : {}) });
      for (const item of p.items) {
        assert.equal(item.text, whole.get(item.id)!.slice(0, item === p.items[0] ? 5 : 0), 'the first text of a page takes the budget');
        assert.equal(item.truncated, true);
        seen.push(item.id);
      }
      if (!p.hasMore) break;
      cursor = p.nextCursor;
    }
    assert.deepEqual(seen, [...ids].reverse(), 'newest first, none skipped or repeated');

    // Nothing cut: no mark and no note.
    const one = await call(m, 'memory_list', { limit: 1, maxChars: 60_000 });
    assert.equal(one.items[0].text, whole.get(one.items[0].id));
    assert.equal(one.truncated, undefined);

    await assert.rejects(call(m, 'memory_list', { maxChars: 60_001 }), /maxChars/);
    await assert.rejects(call(m, 'memory_list', { maxChars: 0 }), /maxChars/);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('maxCharsEach gives every memory of a list page and of a search its own beginning, even after a long first one'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const short = ['the short reef note one', 'the short reef note two', 'the short reef note three'];
    for (const t of short) await m.remember({ text: t, type: 'fact' });
    // Stored last, so listed first (newest first): without a cap it used up the page's budget.
    const long = 'the long reef chronicle '.padEnd(70_000, 'r');
    const longId = (await m.remember({ text: long, type: 'fact' })).id;

    const before = await call(m, 'memory_list', { limit: 4, maxChars: 60_000 });
    assert.equal(before.items[0].id, longId);
    assert.deepEqual(before.items.slice(1).map((i: { text: string }) => i.text), ['', '', ''], 'the budget alone: nothing left for the rest');

    const page = await call(m, 'memory_list', { limit: 4, maxChars: 60_000, maxCharsEach: 1000 });
    assert.equal(page.items[0].text, long.slice(0, 1000));
    assert.equal(page.items[0].truncated, true);
    assert.deepEqual(page.items.slice(1).map((i: { text: string }) => i.text), [...short].reverse(), 'every later memory whole');
    assert.ok(page.items.slice(1).every((i: { truncated?: boolean }) => i.truncated === undefined));
    assert.equal(page.truncated, 'maxCharsEach 1000 cut 1 text (marked truncated); memory_get {id} gives a memory whole');
    assert.equal(page.total, 4);

    const found = await call(m, 'memory_search', { query: 'reef', maxResults: 10, maxChars: 60_000, maxCharsEach: 1000 });
    assert.equal(found.results.length, 4);
    for (const r of found.results) assert.equal(r.text, r.id === longId ? long.slice(0, 1000) : short.find((t) => t === r.text), 'each result its own beginning');
    assert.match(found.truncated, /^maxCharsEach 1000 cut 1 text/);

    for (const tool of ['memory_list', 'memory_search']) {
      for (const bad of [0, 60_001, 2.5, '100']) {
        await assert.rejects(call(m, tool, { ...(tool === 'memory_search' ? { query: 'reef' } : {}), maxCharsEach: bad }), (e: any) => e.code === 'validation_failed' && e.details?.field === 'maxCharsEach', `${tool} ${bad}`);
      }
    }
  } finally {
    await m.close();
    await cleanup();
  }
});
