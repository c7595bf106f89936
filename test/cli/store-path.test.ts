import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { join, resolve } from 'node:path';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { tempDir } from '../helpers/temp.ts';
import { openMemory } from '../../src/index.ts';

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

/**
 * The CLI run as a user who may not write what the test made: as root (which
 * may write anything) through setpriv as nobody, otherwise as this user after
 * the test's chmod. Null when neither is possible here.
 */
function asUnprivileged(args: string[], cwd: string): SpawnSyncReturns<string> | null {
  const cli = [resolve('bin/mnemos.js'), ...args];
  const root = process.getuid?.() === 0;
  if (root && !existsSync('/usr/bin/setpriv')) return null;
  const [cmd, argv] = root ? ['/usr/bin/setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...cli]] : [process.execPath, cli];
  return spawnSync(cmd, argv, { cwd, encoding: 'utf8', timeout: 60_000, env: { ...process.env, MNEMOS_EMBEDDINGS: 'off', HOME: cwd } });
}

/**
 * A store this user may not write (another user's file, a read-only folder
 * or disk) failed at its first write as an `internal` error (exit 1) saying
 * "attempt to write a readonly database", naming no file, even for `list`;
 * a new store in a read-only folder was "unable to open database file". Both
 * now name what is not writable, and change nothing.
 */
test('a --db this user may not write is refused naming the file or folder, and nothing is changed', { skip: process.platform !== 'linux' }, async () => {
  const tmp = tempDir('mnemos-store-ro-');
  try {
    chmodSync(tmp.dir, 0o755);
    const made = await cli(tmp.dir, ['add', 'Dana likes tea', '--db', 'locked/memory.db', '--json']);
    assert.equal(made.code, 0, made.err);
    const file = join(tmp.dir, 'locked/memory.db');
    const before = readFileSync(file);
    chmodSync(file, 0o444);
    chmodSync(join(tmp.dir, 'locked'), 0o555);
    for (const args of [['list'], ['add', 'Bob likes coffee']]) {
      const r = asUnprivileged([...args, '--db', file, '--json'], tmp.dir);
      if (r === null) return;
      assert.equal(r.status, 7, `${args[0]}: ${r.stdout}${r.stderr}`);
      const e = JSON.parse(r.stdout).error;
      assert.equal(e.code, 'unavailable');
      assert.equal(e.details.field, 'db');
      assert.match(e.message, /cannot write the SQLite store at .*locked\/memory\.db: the file is not writable/);
    }
    const fresh = asUnprivileged(['add', 'Bob likes coffee', '--db', join(tmp.dir, 'locked/new.db'), '--json'], tmp.dir)!;
    assert.equal(fresh.status, 7, fresh.stdout + fresh.stderr);
    assert.match(JSON.parse(fresh.stdout).error.message, /its folder .*locked is not writable/);
    assert.deepEqual(readdirSync(join(tmp.dir, 'locked')), ['memory.db'], 'no -wal, -shm or new store was made');
    assert.deepEqual(readFileSync(file), before);
  } finally {
    chmodSync(join(tmp.dir, 'locked'), 0o755);
    tmp.cleanup();
  }
});

/**
 * Anything but a postgres:// URL was taken as a file path: `--db
 * mysql://host/db`, `Postgres://...` (the scheme in another case) or
 * `file:///tmp/m.db` made a folder `mysql:` (`Postgres:`, `file:`) in the
 * working folder and a new SQLite store in it, and reported success.
 */
test('a --db that is a URL of another kind is refused naming what to give, and creates nothing', async () => {
  const tmp = tempDir('mnemos-store-url-');
  try {
    const cases: [string, RegExp][] = [
      ['mysql://u:secret@host/db', /^mysql:\/\/\*\*\*@host\/db is a mysql:\/\/ URL; a store is a SQLite file path or a postgres:\/\/ URL\. Nothing was created$/],
      ['Postgres://u@host/db', /write the scheme in lower case: postgres:\/\//],
      [`file://${join(tmp.dir, 'm.db')}`, /give the file path itself, without file:\/\//],
    ];
    for (const [db, message] of cases) {
      for (const argv of [['add', 'Dana likes tea'], ['list']]) {
        const r = await cli(tmp.dir, [...argv, '--db', db, '--json']);
        assert.equal(r.code, 2, `${argv[0]} --db ${db}: ${r.out}`);
        const e = JSON.parse(r.out).error;
        assert.equal(e.code, 'validation_failed');
        assert.equal(e.details.field, 'db');
        assert.match(e.message, message);
        assert.doesNotMatch(r.out + r.err, /secret/);
      }
      // In the test's folder: without the check, the library made the folder and store in the working folder.
      const was = process.cwd();
      process.chdir(tmp.dir);
      try {
        await assert.rejects(openMemory({ db }), (e: Error & { code?: string }) => e.code === 'validation_failed' && message.test(e.message));
      } finally {
        process.chdir(was);
      }
    }
    assert.deepEqual(readdirSync(tmp.dir), [], 'no folder or store was made');
  } finally {
    tmp.cleanup();
  }
});
