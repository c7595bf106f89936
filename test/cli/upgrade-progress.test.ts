import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { named, testStores } from '../helpers/backend.ts';
import { backBeforeReanalysis, spacelessTexts } from '../helpers/pre-reanalysis.ts';
import { spawnServe } from '../surfaces/serve-helpers.ts';

/** The CLI as a terminal sees it (isTTY), or as a script does. */
async function cli(argv: string[], isTTY: boolean): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY });
  return { code, out, err };
}

async function oldStore(db: string, n: number): Promise<void> {
  const m = await openMemory({ db });
  try {
    await m.rememberMany(spacelessTexts(n).map((text) => ({ text })));
  } finally {
    await m.close();
  }
  await backBeforeReanalysis(db);
}

// The first command after an upgrade re-indexed a large store for minutes and printed nothing: it looked hung.
test(named('the first command after an upgrade says on stderr that it re-indexes texts, and --json output stays clean'), async () => {
  const stores = testStores();
  try {
    await oldStore(stores.db, 1200);
    const json = await cli(['list', '--db', stores.db, '--json', '--limit', '2'], false);
    assert.equal(json.code, 0, json.err);
    assert.match(json.err, /^upgrading store: re-indexing 1,200 texts \(once, after an upgrade of mnemos\)\n/);
    assert.match(json.err, /upgrading store: re-indexed 1,200 texts\n$/);
    assert.doesNotMatch(json.out, /upgrading/);
    assert.equal((JSON.parse(json.out) as { items: unknown[] }).items.length, 2, 'stdout is the JSON answer alone');

    // Upgraded: the next command is quiet again.
    const after = await cli(['list', '--db', stores.db, '--json', '--limit', '2'], false);
    assert.equal(after.err, '');

    // On a terminal: the progress line other long work draws, wiped, then what was done; `migrate` says it too.
    await backBeforeReanalysis(stores.db);
    const tty = await cli(['migrate', '--db', stores.db], true);
    assert.equal(tty.code, 0, tty.err);
    assert.match(tty.err, /^\rupgrading store: re-indexing 0 of 1,200 texts/);
    assert.match(tty.err, /\r {20,}\rupgrading store: re-indexed 1,200 texts\n$/);
    assert.match(tty.out, /schema version \d+/);
    assert.doesNotMatch(tty.out, /upgrading/);
  } finally {
    await stores.cleanup();
  }
});

// A server started on an old store spent the upgrade before its address line with no word in its log.
test(named('mnemos serve logs the upgrade to stderr before it listens'), async () => {
  const stores = testStores();
  try {
    await oldStore(stores.db, 30);
    const server = await spawnServe(stores.db, ['--consolidate-every-ms', '0']);
    try {
      const log = server.stderr();
      const started = log.indexOf('upgrading store: re-indexing 30 texts');
      const ended = log.indexOf('upgrading store: re-indexed 30 texts\n');
      assert.ok(started >= 0 && ended > started, log);
      assert.ok(ended < log.indexOf('mnemos serve: http://'), 'said before the address line');
    } finally {
      await server.stop();
    }
  } finally {
    await stores.cleanup();
  }
});
