import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { cli, cliJson, PLN_CLUSTER, REFERENCE_EXAMPLE, tempDir } from './helpers.ts';

/**
 * The real `node bin/mnemos.js` once per journal sub-command and for the
 * metta import/export (the detailed cases run in-process in the other files;
 * each spawn costs seconds on a loaded machine). SQLite only: it is about
 * the binary; the store half (metta export, import into a fresh store) is
 * metta-roundtrip's CLI test, which runs on both backends.
 */
test('the real binary: journal validate/append/query/view/derive/export and export/import --format metta', () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE + PLN_CLUSTER);
    assert.equal(cliJson(dir, 'journal', 'validate', 'ex.metta').body.valid, true);
    const app = cli(dir, 'journal', 'append', '.mnemos/journal.metta', 'ex.metta');
    assert.equal(app.code, 0, app.stderr);
    assert.match(app.stdout, /appended 2 clusters/);
    const q = cliJson(dir, 'journal', 'query', '.mnemos/journal.metta', '--by', 'about', '--value', 'parser');
    assert.equal(q.body.clusters[0].text, REFERENCE_EXAMPLE);
    assert.match(cli(dir, 'journal', 'view', '.mnemos/journal.metta', '--kind', 'prompt', '--max-chars', '500').stdout, /ship the parser by Friday/);
    const d = cliJson(dir, 'journal', 'derive', '.mnemos/journal.metta', '--query', '(T a)');
    assert.deepEqual(d.body.answers.map((a: { tv: unknown; proof: string }) => [a.tv, a.proof]), [[{ s: 0.7600000000000001, c: 0.52 }, '(rule-proof rule-1 f-1)']]);
    assert.equal(cli(dir, 'journal', 'export', '.mnemos/journal.metta', '--format', 'pettachainer').stdout, '(: f-1 (S a) (STV 0.8 0.6))\n(: rule-1 (Implication (S $x) (T $x)) (STV 0.9 0.8))\n');

    assert.equal(cli(dir, 'import', 'ex.metta').code, 0);
    assert.equal(cli(dir, 'export', '--format', 'metta', '--out', 'mem.metta').code, 0);
    const imp = cliJson(dir, 'import', '--db', 'fresh.db', 'mem.metta');
    assert.equal(imp.code, 0, imp.stderr);
    assert.equal(cli(dir, 'export', '--db', 'fresh.db', '--format', 'metta').stdout, readFileSync(join(dir, 'mem.metta'), 'utf8'));
  } finally {
    cleanup();
  }
});

/**
 * A journal folder the system refuses to create (under /proc mkdir says ENOENT
 * though the parent exists) was an `internal` error (exit 1) with a bare mkdir
 * message. Spawned with a timeout: on Node 20 a recursive mkdir there never
 * returned, and a hang must fail the test, not stall the run.
 */
test('the real binary: journal append into a folder that cannot be created is unavailable and names it', { skip: !existsSync('/proc/self') }, () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE);
    const r = spawnSync(process.execPath, [resolve('bin/mnemos.js'), 'journal', 'append', '/proc/nope/j.metta', 'ex.metta', '--json'], {
      cwd: dir, encoding: 'utf8', timeout: 30_000, env: { ...process.env, MNEMOS_DB: '', MNEMOS_NAMESPACE: '' },
    });
    assert.equal(r.error, undefined, 'the CLI must answer, not hang');
    assert.equal(r.status, 7, r.stdout + r.stderr);
    const body = JSON.parse(r.stdout.trim());
    assert.equal(body.error.code, 'unavailable');
    assert.match(body.error.message, /folder \/proc\/nope/);
    assert.equal(body.error.details.folder, '/proc/nope');
  } finally {
    cleanup();
  }
});
