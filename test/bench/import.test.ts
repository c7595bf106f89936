/**
 * `bench import` end to end on a small file: the figures come from a real
 * first import, a real unchanged re-import and real memory_get reads, and the
 * CLI command prints them as one JSON object without touching the benchmark
 * file when told not to.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { benchImport } from '../../src/bench/import.ts';

test('bench import: every line created, then every line unchanged, and lines read back at three places', async () => {
  const phases: string[] = [];
  const r = await benchImport({ n: 300, onProgress: (p) => phases.push(p) });
  assert.equal(r.lines, 300);
  assert.deepEqual([r.first.created, r.first.unchanged], [300, 0]);
  assert.deepEqual([r.again.created, r.again.unchanged], [0, 300]);
  assert.ok(r.first.seconds > 0 && r.first.linesPerSecond > 0 && r.again.linesPerSecond > 0);
  assert.ok(r.sourceLinesMs.start > 0 && r.sourceLinesMs.middle > 0 && r.sourceLinesMs.end > 0);
  assert.ok(r.fileBytes > 300 * 20 && r.peakRssMiB > 0);
  assert.deepEqual(phases, ['writing the file', 'first import', 'importing again']);
});

test('mnemos bench import --json --no-write prints one JSON object', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'mnemos-bench-import-cli-'));
  try {
    const out = spawnSync(process.execPath, [resolve('bin/mnemos.js'), 'bench', 'import', '--n', '50', '--no-write', '--json'], { cwd, encoding: 'utf8' });
    assert.equal(out.status, 0, out.stderr);
    const lines = out.stdout.trim().split('\n');
    assert.equal(lines.length, 1, out.stdout);
    const r = JSON.parse(lines[0]!) as { again: { unchanged: number } };
    assert.equal(r.again.unchanged, 50);
    assert.equal(spawnSync('ls', ['docs'], { cwd }).status === 0, false, 'nothing written into the working directory');
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
});
