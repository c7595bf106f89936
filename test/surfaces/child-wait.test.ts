/**
 * The bounded waits the tests use on spawned children that are not servers
 * (test/helpers/child-wait.ts): output that never comes and an exit that
 * never comes both fail with the child's stderr, and the child is stopped
 * (the MCP test's own wait rejected but left `mnemos mcp` running, so the
 * test file's process never ended).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { stopChild, waitForExit, waitForOutput } from '../helpers/child-wait.ts';

function node(script: string) {
  const child = spawn(process.execPath, ['-e', script], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  return { child, out: () => out, err: () => err };
}

/** Until the child has written `text` on stderr: a fixed sleep was slower, and on a loaded machine could end before the child even started. */
const wrote = (c: ReturnType<typeof node>, text: string) =>
  new Promise<void>((resolve) => {
    const check = () => (c.err().includes(text) ? (c.child.stderr.off('data', check), resolve()) : undefined);
    c.child.stderr.on('data', check);
    check();
  });

const closed = (c: ReturnType<typeof node>['child']) => new Promise<void>((resolve) => (c.exitCode !== null || c.signalCode !== null ? resolve() : c.once('exit', () => resolve())));
const lines = (s: string) => (s.match(/\n/g) ?? []).length;

test('output that never comes fails the wait after the bound, with the stderr written before the wait, and the child is stopped', { timeout: 30_000 }, async () => {
  const c = node("process.stderr.write('serving on stdio\\n'); process.stdout.write('{\"id\":1}\\n'); setInterval(() => {}, 1000)");
  await wrote(c, 'serving on stdio\n');
  await assert.rejects(waitForOutput(c.child, () => lines(c.out()) >= 4, '4 replies', { timeoutMs: 2000, what: 'mnemos mcp', stderr: c.err }), /mnemos mcp gave no 4 replies within 2000 ms, and was stopped; stderr: serving on stdio/);
  await closed(c.child);
  assert.equal(c.child.signalCode, 'SIGKILL', 'the silent child does not outlive the wait');
});

test('a child that ends before the output fails the wait at once; output already there resolves it', { timeout: 30_000 }, async () => {
  const c = node("process.stdout.write('one\\n'); process.stderr.write('transport closed\\n'); process.exit(0)");
  await assert.rejects(waitForOutput(c.child, () => lines(c.out()) >= 2, '2 replies', { stderr: c.err }), /the child ended \(code 0\) before 2 replies; stderr: transport closed/);
  await waitForOutput(c.child, () => lines(c.out()) >= 1, '1 reply');
  const slow = node("setTimeout(() => process.stdout.write('a\\n'), 100); setTimeout(() => process.stdout.write('b\\n'), 200); setTimeout(() => {}, 300)");
  await waitForOutput(slow.child, () => lines(slow.out()) >= 2, '2 lines');
  assert.equal(slow.out(), 'a\nb\n');
  await closed(slow.child);
});

test('an exit that never comes fails the wait after the bound, and the child is stopped; an exit is reported', { timeout: 30_000 }, async () => {
  // The handler is in place before the line is written, so the SIGTERM sent once it is read is ignored.
  const stuck = node("process.on('SIGTERM', () => {}); process.stderr.write('finishing calls...\\n'); setInterval(() => {}, 1000)");
  await wrote(stuck, 'finishing calls...\n');
  stuck.child.kill('SIGTERM');
  await assert.rejects(waitForExit(stuck.child, { timeoutMs: 2000, what: 'mnemos mcp', stderr: stuck.err }), /mnemos mcp did not exit within 2000 ms, and was stopped; stderr: finishing calls/);
  await closed(stuck.child);
  assert.equal(stuck.child.signalCode, 'SIGKILL');
  const done = node("process.exit(4)");
  assert.deepEqual(await waitForExit(done.child), { code: 4, signal: null });
  assert.deepEqual(await waitForExit(done.child), { code: 4, signal: null }, 'asking again after the end still answers');
  const waiting = node("process.stdin.on('data', () => {})");
  stopChild(waiting.child);
  assert.equal((await waitForExit(waiting.child)).signal, 'SIGKILL');
});
