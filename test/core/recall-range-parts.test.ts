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
    // A one-unit character before an emoji, read one unit at a time, and an answer whose last unit of room falls there.
    await m.ingestTranscript({ sessionId: 'S-tight', messages: [{ role: 'user', content: 'A'.repeat(30) }, { role: 'assistant', content: 'I😀 am' }] });
    const lone = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(^|[^\uD800-\uDBFF])[\uDC00-\uDFFF]/;
    let pieces = '';
    let from: number | null = null;
    for (let calls = 0; calls < 10; calls++) {
      const r = await m.recallRange({ sessionId: 'S-tight', turns: '2', maxChars: 1, ...(from !== null ? { fromChar: from } : {}) });
      const text = r.turns[0]!.text;
      assert.ok(!lone.test(text), `piece ${JSON.stringify(text)} holds half a character`);
      pieces += text;
      if (!r.truncated) break;
      from = r.nextChar;
    }
    assert.equal(pieces, 'I😀 am');
    const both = await m.recallRange({ sessionId: 'S-tight', turns: '1-2', maxChars: 31 });
    assert.deepEqual(both.turns.map((t) => t.text), ['A'.repeat(30), 'I'], 'within the budget, no half emoji');
    const rest = await m.recallRange({ sessionId: 'S-tight', turns: `${both.nextTurn}`, maxChars: 2, fromChar: both.nextChar! });
    assert.equal(rest.turns[0]!.text, '😀');
    const full = await m.recallRange({ sessionId: 'S-tight', turns: '1-2', maxChars: 30 });
    assert.deepEqual([full.turns.length, full.nextTurn, full.nextChar], [1, 2, null], 'no room for turn 2: it starts the next call');
    await m.close();
  } finally {
    await cleanup();
  }
});
