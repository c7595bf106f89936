/**
 * `export --out` replaces its file only when the new one is complete: an
 * export killed part-way (kill -9) wrote into the old backup in place and
 * left a shorter file that imported without a word.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { named, testStores } from '../helpers/backend.ts';

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
