/**
 * `export --out` replaces its file only when the new one is complete: an
 * export killed part-way (kill -9) wrote into the old backup in place and
 * left a shorter file that imported without a word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { named, testStores } from '../helpers/backend.ts';
import { stopChild, waitForExit } from '../helpers/child-wait.ts';

const BIN = resolve('bin/mnemos.js');

test(named('an export killed part-way leaves the previous --out file whole'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const env = { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' };
    const lines = Array.from({ length: 20_000 }, (_, i) => JSON.stringify({ text: `backup line ${i} `.padEnd(200, 'z') }));
    writeFileSync(join(dir, 'seed.jsonl'), lines.join('\n') + '\n');
    assert.equal(spawnSync(process.execPath, [BIN, 'import', 'seed.jsonl'], { cwd: dir, env }).status, 0);
    const out = join(dir, 'backup.jsonl');
    assert.equal(spawnSync(process.execPath, [BIN, 'export', '--out', out], { cwd: dir, env }).status, 0);
    const before = readFileSync(out);
    assert.equal(before.toString().trim().split('\n').length, 20_000);

    // Again onto the same file, killed once the new export has started writing.
    const child = spawn(process.execPath, [BIN, 'export', '--out', out], { cwd: dir, env, stdio: 'ignore' });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    const writing = () => readdirSync(dir).some((f) => f.startsWith('backup.jsonl.partial-'));
    for (let i = 0; i < 2000 && !writing(); i++) await new Promise((r) => setTimeout(r, 5));
    assert.ok(writing(), 'the new export writes beside the old file');
    child.kill('SIGKILL');
    await exited;
    assert.deepEqual(readFileSync(out), before, 'the previous backup is whole');

    // A completed export replaces it, and leaves no partial file of its own.
    assert.equal(spawnSync(process.execPath, [BIN, 'export', '--out', out], { cwd: dir, env }).status, 0);
    assert.equal(readFileSync(out).toString().trim().split('\n').length, 20_000);
    assert.ok(existsSync(out));
  } finally {
    await cleanup();
  }
});

test("export --out writes into what it names: a link's file (the link stays), a FIFO (a compressor reading it), and keeps a file's mode", async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const env = { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' };
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { cwd: dir, env, encoding: 'utf8' });
    assert.equal(run('add', 'one memory to export').status, 0);
    assert.equal(run('add', 'and another').status, 0);
    const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n').length;

    mkdirSync(join(dir, 'backups'));
    writeFileSync(join(dir, 'backups', 'real.jsonl'), 'old\n');
    symlinkSync(join('backups', 'real.jsonl'), join(dir, 'link.jsonl'));
    symlinkSync(join('backups', 'later.jsonl'), join(dir, 'dangling.jsonl'));
    for (const [link, file] of [['link.jsonl', 'real.jsonl'], ['dangling.jsonl', 'later.jsonl']] as const) {
      assert.equal(run('export', '--out', link).status, 0);
      assert.ok(lstatSync(join(dir, link)).isSymbolicLink(), `${link} is still a link`);
      assert.equal(lines(join(dir, 'backups', file)), 2, `${file} holds the export`);
    }

    writeFileSync(join(dir, 'private.jsonl'), 'secret\n', { mode: 0o600 });
    chmodSync(join(dir, 'private.jsonl'), 0o600);
    assert.equal(run('export', '--out', 'private.jsonl').status, 0);
    assert.equal(statSync(join(dir, 'private.jsonl')).mode & 0o777, 0o600, 'an owner-only backup stays owner-only');
    assert.equal(lines(join(dir, 'private.jsonl')), 2);

    const fifo = join(dir, 'pipe.fifo');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    const reader = spawn('cat', [fifo], { stdio: ['ignore', 'pipe', 'ignore'] });
    let got = '';
    reader.stdout.on('data', (d) => (got += d));
    // An export that never opens the FIFO leaves `cat` blocked on it: stopped, whatever the checks say.
    try {
      assert.equal(run('export', '--out', fifo).status, 0);
      await waitForExit(reader, { what: 'the FIFO reader' });
    } finally {
      stopChild(reader);
    }
    assert.equal(got.trim().split('\n').length, 2, 'the reader got the export');
    assert.ok(lstatSync(fifo).isFIFO(), 'the FIFO is still a FIFO');
  } finally {
    await cleanup();
  }
});
