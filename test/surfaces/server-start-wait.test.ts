/**
 * The helper the server tests wait with (test/helpers/server-start.ts): a
 * child that exits, cannot be spawned or stays silent fails the wait with
 * its stderr instead of leaving the test file waiting forever.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { waitForStart } from '../helpers/server-start.ts';
import { tempDir } from '../helpers/temp.ts';

const node = (script: string) => spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
const closed = (child: ReturnType<typeof node>) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

// The test's own timeout is the guard: before, a wait on a child like these could only end by the runner's.
test('a child that exits before its start line fails the wait at once, with its stderr and exit code', { timeout: 30_000 }, async () => {
  const child = node("process.stderr.write('cannot open the store: disk full\\n'); process.exit(3)");
  await assert.rejects(waitForStart(child, /listening on (\S+)/, { what: 'the probe' }), (e: Error) => {
    assert.match(e.message, /the probe exited \(code 3\) before its start line/);
    assert.match(e.message, /cannot open the store: disk full/, 'the stderr says why');
    return true;
  });
});

test('a command that cannot be spawned fails the wait, naming why', { timeout: 30_000 }, async () => {
  const tmp = tempDir('mnemos-start-wait-');
  try {
    const child = spawn(join(tmp.dir, 'no-such-server'), [], { stdio: ['ignore', 'pipe', 'pipe'] });
    await assert.rejects(waitForStart(child, /listening/), /could not be started: .*ENOENT/);
  } finally {
    tmp.cleanup();
  }
});

test('a child that stays silent fails the wait after the bound, and is stopped', { timeout: 30_000 }, async () => {
  const child = node("process.stderr.write('opening the store...\\n'); setInterval(() => {}, 1000)");
  await assert.rejects(waitForStart(child, /listening/, { timeoutMs: 5000 }), /printed no start line .* and was stopped; stderr: opening the store/);
  await closed(child);
  assert.equal(child.signalCode, 'SIGKILL', 'the silent child does not outlive the wait');
});

test('the start line is found across chunks, on stderr or stdout, and the match returned', { timeout: 30_000 }, async () => {
  const onErr = node("process.stderr.write('mnemos serve: http://127.0.0.1:'); setTimeout(() => { process.stderr.write('4321\\n'); setTimeout(() => process.exit(0), 200); }, 50)");
  const m = await waitForStart(onErr, /mnemos serve: (http:\/\/127\.0\.0\.1:\d+)\n/);
  assert.equal(m[1], 'http://127.0.0.1:4321');
  await closed(onErr);
  const onOut = node("process.stderr.write('log line\\n'); process.stdout.write(JSON.stringify({ port: 7 }) + '\\n'); setTimeout(() => {}, 200)");
  const line = await waitForStart(onOut, /^(\{.*\})\n/, { stream: 'stdout' });
  assert.deepEqual(JSON.parse(line[1]!), { port: 7 });
  await closed(onOut);
});
