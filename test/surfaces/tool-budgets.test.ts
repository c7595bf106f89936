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
