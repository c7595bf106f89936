import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { tempDir } from '../helpers/temp.ts';

// SQLite only by nature: these are file-system paths given as --db.
async function cli(cwd: string, argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const env = { MNEMOS_EMBEDDINGS: 'off' };
  const was = process.cwd();
  process.chdir(cwd);
  try {
    const code = await runCli(argv, { stdout: (s) => ((out += s), true), stderr: (s) => ((err += s), true), env, isTTY: false });
    return { code, out, err };
  } finally {
    process.chdir(was);
  }
}

/**
 * A --db that names a folder, an empty --db (the current folder) or a path
 * under a file used to answer `unavailable` (exit 7, as if the disk were
 * away) or `internal` (exit 1, mkdir's EEXIST); it is the caller's mistake:
 * `validation_failed` (exit 2) naming the path, and nothing is created.
 */
test('a --db naming a folder, nothing, or a path under a file is refused as invalid input and creates nothing', async () => {
  const tmp = tempDir('mnemos-store-path-');
  try {
    mkdirSync(join(tmp.dir, 'notes'));
    writeFileSync(join(tmp.dir, 'notes.md'), '# a note\n');
    for (const db of ['notes', 'notes/', '', 'notes.md/x.db', 'notes.md/a/b.db']) {
      const r = await cli(tmp.dir, ['add', 'Dana likes tea', '--db', db, '--json']);
      assert.equal(r.code, 2, `--db "${db}": ${r.out}`);
      const e = JSON.parse(r.out).error;
      assert.equal(e.code, 'validation_failed', `--db "${db}"`);
      assert.equal(e.details.field, 'db');
      assert.match(e.message, /cannot be a Mnemos store: (it is a folder|a part of its folder path is a file)/);
    }
    assert.deepEqual(readdirSync(tmp.dir).sort(), ['notes', 'notes.md']);
    assert.deepEqual(readdirSync(join(tmp.dir, 'notes')), [], 'nothing was created in the folder');
    const ok = await cli(tmp.dir, ['add', 'Dana likes tea', '--db', 'new/sub/memory.db', '--json']);
    assert.equal(ok.code, 0, ok.err);
  } finally {
    tmp.cleanup();
  }
});

/**
 * Node 20's recursive mkdir never returns for `/proc/nope` (procfs answers
 * ENOENT for a folder whose parent exists, and Node's walk retries it
 * forever): `add --db /proc/nope/x.db` spun a core. Run as a child with a
 * deadline so that a return of the hang fails this test instead of stalling
 * the suite.
 */
test('a --db under a folder that cannot be created answers unavailable instead of hanging', { skip: process.platform !== 'linux' }, () => {
  const r = spawnSync(process.execPath, [resolve('bin/mnemos.js'), 'add', 'Dana likes tea', '--db', '/proc/nope/x.db', '--json'], {
    encoding: 'utf8',
    timeout: 20_000,
    env: { ...process.env, MNEMOS_EMBEDDINGS: 'off' },
  });
  assert.equal(r.error, undefined, `the CLI did not answer within 20 s (${r.error?.message})`);
  assert.equal(r.status, 7, r.stdout + r.stderr);
  const e = JSON.parse(r.stdout).error;
  assert.equal(e.code, 'unavailable');
  assert.match(e.message, /cannot create the folder of \/proc\/nope\/x\.db/);
});
