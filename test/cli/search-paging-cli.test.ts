import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';

/** Runs the CLI in-process: exit code, stdout, stderr. */
async function mnemos(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s: string) => ((out += s), true), stderr: (s: string) => ((err += s), true), env: {}, isTTY: false });
  return { code, out, err };
}

test(named('mnemos search --json says hasMore and nextOffset, and --offset nextOffset gives the next page'), async () => {
  const { db, cleanup } = testStores('mnemos-search-paging-');
  try {
    for (let i = 0; i < 5; i++) assert.equal((await mnemos(['add', `harbour note ${i}`, '--db', db])).code, 0);
    const first = JSON.parse((await mnemos(['search', 'harbour', '--limit', '2', '--db', db, '--json'])).out);
    assert.equal(first.hits.length, 2);
    assert.deepEqual([first.hasMore, first.nextOffset], [true, 2]);
    const seen = first.hits.map((h: { memory: { id: string } }) => h.memory.id);
    let next = first.nextOffset;
    while (next !== null) {
      const page = JSON.parse((await mnemos(['search', 'harbour', '--limit', '2', '--offset', String(next), '--db', db, '--json'])).out);
      seen.push(...page.hits.map((h: { memory: { id: string } }) => h.memory.id));
      next = page.nextOffset;
    }
    assert.equal(seen.length, 5);
    assert.equal(new Set(seen).size, 5, 'no result on two pages');
    // Without --json the next page is named; the last page names none.
    assert.match((await mnemos(['search', 'harbour', '--limit', '2', '--db', db])).out, /more results: --offset 2/);
    assert.doesNotMatch((await mnemos(['search', 'harbour', '--limit', '2', '--offset', '4', '--db', db])).out, /more results/);
    // --limit at its maximum still knows whether more follow.
    const big = JSON.parse((await mnemos(['search', 'harbour', '--limit', '200', '--db', db, '--json'])).out);
    assert.deepEqual([big.hits.length, big.hasMore, big.nextOffset], [5, false, null]);
  } finally {
    await cleanup();
  }
});
