import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

test(named('recall_range reads a turn longer than maxChars in parts, to its end and on, and never splits a character'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const long = Array.from({ length: 7000 }, (_, i) => `word${i}`).join(' ');
    await m.ingestTranscript({ sessionId: 'S-long', messages: [{ role: 'user', content: 'hello' }, { role: 'user', content: long }, { role: 'assistant', content: 'bye 😀 done' }] });
    let read = '';
    let next: { turn: number; char: number | null } = { turn: 2, char: null };
    const seen: number[] = [];
    for (let calls = 0; calls < 20; calls++) {
      const r = await m.recallRange({ sessionId: 'S-long', turns: `${next.turn}-3`, maxChars: 10_000, ...(next.char !== null ? { fromChar: next.char } : {}) });
      for (const t of r.turns) {
        if (t.turn === 2) read += t.text;
        else seen.push(t.turn);
      }
      if (!r.truncated) break;
      next = { turn: r.nextTurn!, char: r.nextChar };
    }
    assert.equal(read, long, 'the whole turn, in parts');
    assert.deepEqual(seen, [3], 'and the turn after it');
    // A cut never leaves half an emoji: 'bye ' then the emoji whole.
    const cut = await m.recallRange({ sessionId: 'S-long', turns: '3', maxChars: 5 });
    assert.equal(cut.turns[0]!.text, 'bye ');
    assert.equal(cut.nextChar, 4);
    const on = await m.recallRange({ sessionId: 'S-long', turns: '3', maxChars: 5, fromChar: 4 });
    assert.equal(on.turns[0]!.text, '😀 do', 'five UTF-16 units, the emoji being two');
    assert.equal(on.turns[0]!.fromChar, 4);
    const one = await m.recallRange({ sessionId: 'S-long', turns: '3', maxChars: 1, fromChar: 4 });
    assert.equal(one.turns[0]!.text, '😀', 'one whole character at least');
    await m.close();
  } finally {
    await cleanup();
  }
});
