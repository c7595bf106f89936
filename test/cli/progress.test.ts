import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { named, testStores } from '../helpers/backend.ts';

/** The CLI as a terminal sees it (isTTY), or as a script does. */
async function cli(argv: string[], isTTY: boolean): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env: {}, isTTY });
  return { code, out, err };
}

async function seed(db: string, n: number): Promise<void> {
  const m = await openMemory({ db });
  try {
    await m.rememberMany(Array.from({ length: n }, (_, i) => ({ text: `progress note ${i}: the build of service ${i % 7} ran on host ${i}`, type: 'fact' as const })));
  } finally {
    await m.close();
  }
}

// Long work on a large store (minutes at a million memories) showed nothing on a terminal until it ended.
test(named('consolidate, copy and export draw a progress line on a terminal, and leave stdout as it was'), async () => {
  const stores = testStores();
  try {
    await seed(stores.db, 1200);

    const run = await cli(['consolidate', '--db', stores.db], true);
    assert.equal(run.code, 0, run.err);
    assert.match(run.err, /consolidating: loading memories/);
    assert.match(run.err, /consolidating: lifecycle done \(1 of 6 steps\)/);
    assert.match(run.err, /consolidating: vectors done \(6 of 6 steps\)/);
    assert.ok(run.err.endsWith('\r'), 'the line is wiped before the report is printed');
    assert.match(run.out, /^consolidation /m);

    const target = stores.store('copy.db');
    const copied = await cli(['copy', '--from', stores.db, '--to', target, '--batch', '500'], true);
    assert.equal(copied.code, 0, copied.err);
    assert.match(copied.err, /copying: 500 memory versions/);
    assert.match(copied.err, /copying: comparing the exports of both stores/);
    assert.match(copied.err, /copying: the ledger/);
    assert.match(copied.out, /^copied 1200 versions/);

    const out = join(stores.dir, 'all.jsonl');
    const exported = await cli(['export', '--db', stores.db, '--out', out], true);
    assert.equal(exported.code, 0, exported.err);
    assert.match(exported.err, /exporting: 1 memory versions written to /);
    assert.match(exported.out, /^exported \d+ memory versions to /);

    // Scripts read both streams whole: no progress without a terminal or with --json.
    for (const [argv, isTTY] of [
      [['consolidate', '--db', stores.db, '--force'], false],
      [['consolidate', '--db', stores.db, '--force', '--json'], true],
      [['copy', '--from', stores.db, '--to', target, '--json'], true],
      [['export', '--db', stores.db, '--out', out, '--json'], true],
    ] as const) {
      const r = await cli([...argv], isTTY);
      assert.equal(r.code, 0, r.err);
      assert.equal(r.err, '', `${argv.join(' ')} wrote to stderr`);
    }
  } finally {
    await stores.cleanup();
  }
});

// The import bar printed file names raw (an ESC in a name recoloured the terminal), left one finished bar per file
// on screen, and the error of a failing file was printed on the end of its bar.
test(named('import on a terminal keeps one progress line, shows escapes in names, and wipes it before the summary or an error'), async () => {
  const stores = testStores();
  try {
    const dir = join(stores.dir, 'notes');
    mkdirSync(dir);
    const odd = join(dir, 'a\x1b[31mred.md');
    writeFileSync(odd, '# one\n\nfirst note\n');
    writeFileSync(join(dir, 'b.md'), '# two\n\nsecond note\n');
    const ok = await cli(['import', dir, '--db', stores.db], true);
    assert.equal(ok.code, 0, ok.err);
    assert.ok(!ok.err.includes('\x1b'), 'no raw escape reaches the terminal');
    assert.ok(!ok.err.includes('\n'), 'the bar is rewritten in place, not left once per file');
    assert.ok(ok.err.endsWith('\r'), 'the line is wiped before the summary');
    assert.match(ok.err, /a\\x1b\[31mred\.md/);
    assert.match(ok.out, /a\\x1b\[31mred\.md \(markdown\): 1 new/);

    writeFileSync(join(dir, 'c.md'), Buffer.from('# three\n\n\xff\n', 'latin1'));
    const bad = await cli(['import', dir, '--db', stores.db], true);
    assert.equal(bad.code, 2);
    const at = bad.err.indexOf('mnemos: ');
    assert.ok(at > 0 && bad.err[at - 1] === '\r', 'the error starts on a wiped line');
    assert.ok(!bad.err.includes('\x1b'), 'nor in the error, which names the files imported before');
    assert.equal(bad.err.match(/Nothing of \S+c\.md was written/gi)?.length, 1, 'said once');
  } finally {
    await stores.cleanup();
  }
});
