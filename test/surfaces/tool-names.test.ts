/**
 * The original tool set's parameter names (shared/reference/agent-tools.md:
 * "Our own schemas may add fields; they should not rename these") are
 * accepted beside ours, and mean the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';
import { openMemory, type Mnemos } from '../../src/surfaces/library/open-memory.ts';
import { named, testStores } from '../helpers/backend.ts';

const call = (memory: Mnemos, name: string, input: unknown) => runTool(findTool(TOOLS, name), input, { memory, surfaceParts: [] }) as Promise<Record<string, any>>;

test(named("recall_range, deep_recall and memory_status take the original tool set's names"), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    await m.ingestTranscript({
      sessionId: 's1',
      messages: [
        { role: 'user', content: 'look up the ferry times' },
        { role: 'tool', content: '{"ferry": "09:10, 11:40"}' },
        { role: 'assistant', content: 'The ferry leaves at 09:10 and 11:40.' },
      ],
    });
    await m.remember({ text: 'The ferry pier is behind the old market', type: 'fact' });
    const ours = await call(m, 'recall_range', { sessionId: 's1', turns: '1-3', maxChars: 30 });
    const theirs = await call(m, 'recall_range', { session_id: 's1', entries: { from: 1, to: 3 }, max_chars: 30 });
    assert.deepEqual(theirs, ours);
    const noTools = await call(m, 'recall_range', { session_id: 's1', include_tool_results: false });
    assert.deepEqual(noTools.turns.map((t: { turn: number }) => t.turn), [1, 3]);
    await assert.rejects(call(m, 'recall_range', { sessionId: 's1', session_id: 's2' }), /name the same thing/);
    await assert.rejects(call(m, 'recall_range', { max_chars: 10 }), /sessionId/);

    const plain = await call(m, 'deep_recall', { query: 'ferry' });
    assert.equal(plain.memories, undefined);
    const both = await call(m, 'deep_recall', { query: 'ferry', include_memory: true });
    assert.deepEqual(both.memories.map((x: { text: string }) => x.text), ['The ferry pier is behind the old market']);
    assert.ok(both.hits.length > 0);

    const status = await call(m, 'memory_status', { action: 'status' });
    assert.equal(status.sync, undefined);
    assert.match((await call(m, 'memory_status', { action: 'sync' })).sync, /nothing to sync/);
    await assert.rejects(call(m, 'memory_status', { action: 'purge' }), /action/);
  } finally {
    await m.close();
    await cleanup();
  }
});
