/**
 * `mnemos consolidate` while another run holds the namespace's lease does
 * nothing. It printed that report and exited 0, so a cron job or script
 * took it for a run; it exits 6 (`busy`) with the report and says when to
 * try again, as `graph index` and `graph reindex` do.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';
import { stopChild, waitForOutput } from '../helpers/child-wait.ts';

test(named('consolidate exits 6 with its report while another run holds the lease'), async () => {
  const { db, cleanup } = testStores('mnemos-consolidate-busy-');
  const seed = await openMemory({ db });
  await seed.rememberMany(Array.from({ length: 50 }, (_, i) => ({ text: `memo ${i} on subject ${i % 7}` })));
  await seed.close();
  // A run that pauses 60 s at each phase: it holds the lease for as long as the test needs.
  const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../lifecycle/fixtures/consolidate-child.ts'), db, String(Date.now()), '60000'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  try {
    await waitForOutput(child, () => out.includes('progress'), 'it holds the consolidation lease', { what: 'the running consolidation', stderr: () => err });
    let stdout = '';
    let stderr = '';
    const io = { stdout: (s: string) => ((stdout += s), true), stderr: (s: string) => ((stderr += s), true), env: {}, isTTY: false };
    const code = await runCli(['consolidate', '--force', '--json', '--db', db], io);
    assert.equal(code, 6, stderr);
    const report = JSON.parse(stdout);
    assert.equal(report.status, 'busy');
    assert.equal(report.error.code, 'busy');
    assert.match(stderr, /consolidation did not run: another runner .* holds the lease until \S+; try again after that/);
  } finally {
    stopChild(child);
    await cleanup();
  }
});
