import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';

/** Runs the CLI in-process with --json: exit code, parsed stdout, stderr. */
async function mnemos(args: string[]): Promise<{ code: number; body: any; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli([...args, '--json'], { stdout: (s: string) => ((out += s), true), stderr: (s: string) => ((err += s), true), env: {}, isTTY: false });
  return { code, body: out.trim() ? JSON.parse(out) : undefined, err };
}

test(named('mnemos list --cursor continues after the last page without repeating what was stored meanwhile'), async () => {
  const { db, cleanup } = testStores('mnemos-list-cursor-');
  try {
    for (const t of ['one', 'two', 'three']) assert.equal((await mnemos(['add', `note ${t}`, '--db', db])).code, 0);
    const first = await mnemos(['list', '--limit', '2', '--db', db]);
    assert.deepEqual(
      first.body.items.map((m: { text: string }) => m.text),
      ['note three', 'note two'],
    );
    assert.equal(first.body.hasMore, true);
    // Stored between the pages: at the head of the newest-first list, where an --offset 2 page would now repeat "note two".
    await mnemos(['add', 'note four', '--db', db]);
    assert.deepEqual(
      (await mnemos(['list', '--limit', '2', '--offset', '2', '--db', db])).body.items.map((m: { text: string }) => m.text),
      ['note two', 'note one'],
      'offset paging repeats (why the cursor exists)',
    );
    const next = await mnemos(['list', '--limit', '2', '--cursor', first.body.nextCursor, '--db', db]);
    assert.deepEqual(
      next.body.items.map((m: { text: string }) => m.text),
      ['note one'],
    );
    assert.equal(next.body.hasMore, false);
    assert.equal(next.body.nextCursor, null);
    const both = await mnemos(['list', '--cursor', first.body.nextCursor, '--offset', '1', '--db', db]);
    assert.equal(both.code, 2);
    assert.match(both.err, /cursor or offset, not both/);
    const other = await mnemos(['list', '--cursor', first.body.nextCursor, '--type', 'fact', '--db', db]);
    assert.equal(other.code, 2);
    assert.match(other.err, /other filters/);
  } finally {
    await cleanup();
  }
});
