/**
 * A store an earlier version filled with one file twice (through a link and
 * through its target) keeps both copies: nothing is merged or dropped
 * without the owner's word. `mnemos import` says so, naming the other copy,
 * in --json and in its plain output, so the owner can forget one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { named, testStores } from '../helpers/backend.ts';

const BIN = resolve('bin/mnemos.js');

function cli(cwd: string, db: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(named('import names the other path a file is also stored under, in --json and in its plain output, and adds nothing there'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    mkdirSync(join(dir, 'vault'));
    const real = join(dir, 'vault', 'note.md');
    const copy = join(dir, 'copy.md');
    writeFileSync(real, '# Note\n\nThe boiler is serviced in May.\n');
    writeFileSync(copy, '# Note\n\nThe boiler is serviced in May.\n');
    assert.equal(cli(dir, db, 'import', real, copy).code, 0);
    // The copy becomes a link to the note: the store holds one file twice.
    rmSync(copy);
    symlinkSync(real, copy);

    const r = cli(dir, db, 'import', 'copy.md', '--json');
    assert.equal(r.code, 0, r.stderr);
    const body = JSON.parse(r.stdout.trim());
    assert.deepEqual(body.files.map((f: { path: string; created: number; unchanged: number }) => [f.path, f.created, f.unchanged]), [[copy, 0, 1]]);
    assert.deepEqual(body.files[0].alsoStoredAs, [{ path: real, keyPrefix: `file:${real}#` }]);

    const human = cli(dir, db, 'import', real);
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /note\.md \(markdown\): 0 new, 1 unchanged/);
    assert.ok(human.stdout.includes(`also stored under ${copy} (source keys file:${copy}#...)`), human.stdout);
    assert.equal((JSON.parse(cli(dir, db, 'list', '--json').stdout.trim()) as { items: unknown[] }).items.length, 2);
  } finally {
    await cleanup();
  }
});
