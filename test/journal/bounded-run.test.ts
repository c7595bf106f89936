import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { boundedRun, type BoundedRunSpec } from '../../src/journal/bounded-run.ts';
import { pidAlive } from '../../src/journal/file-lock.ts';
import { sha256File } from '../../src/runtime/file-sha256.ts';
import { tempDir } from './fixtures/example.ts';

const ENV = { PATH: '/usr/bin:/bin' };
const base = (argv: string[], extra: Partial<BoundedRunSpec> = {}): BoundedRunSpec => ({
  argv,
  cwd: '/',
  env: ENV,
  timeoutMs: 10_000,
  maxStdoutBytes: 1 << 20,
  maxStderrBytes: 1 << 20,
  ...extra,
});
const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

test('cat: the program sent and the output come back with digests and byte counts', async () => {
  const program = '(a "é中😀")\n';
  const r = await boundedRun(base(['cat'], { stdin: program }));
  assert.ok(r.ok);
  assert.equal(r.stdoutText, program);
  assert.deepEqual(r.stdin, { bytes: Buffer.byteLength(program), sha256: sha(program) });
  assert.deepEqual(r.stdout, r.stdin);
  assert.deepEqual(r.stderr, { bytes: 0, sha256: sha('') });
  assert.equal(r.executable?.path, realpathSync('/bin/cat'));
  assert.equal(r.exitCode, 0);
});

test('argv reaches the program untouched: no shell expansion', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const tricky = `$(touch ${join(dir, 'pwned')}); * \`id\` "q"`;
    const r = await boundedRun(base(['/bin/sh', '-c', 'printf "%s" "$1"', 'sh', tricky]));
    assert.ok(r.ok);
    assert.equal(r.stdoutText, tricky);
    assert.equal(existsSync(join(dir, 'pwned')), false);
  } finally {
    cleanup();
  }
});

test('the environment and working directory are exactly the ones given', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const r = await boundedRun(base([process.execPath, '-e', 'process.stdout.write(JSON.stringify({env: process.env, cwd: process.cwd()}))'], { env: { ONLY: 'this' }, cwd: dir }));
    assert.ok(r.ok);
    assert.deepEqual(JSON.parse(r.stdoutText), { env: { ONLY: 'this' }, cwd: realpathSync(dir) });
  } finally {
    cleanup();
  }
});

test('sleep past the timeout fails closed as timeout', async () => {
  const r = await boundedRun(base(['sleep', '5'], { timeoutMs: 200 }));
  assert.equal(!r.ok && r.failure, 'timeout');
  assert.equal(r.signal, 'SIGKILL');
});

/** Alive and not a zombie (an orphaned zombie waits for a reaper that a container's pid 1 may not be). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(')') + 2));
  } catch {
    return pidAlive(pid);
  }
}

test('a timeout kills the whole process group: grandchildren are gone too', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const pidFile = join(dir, 'pid');
    const r = await boundedRun(base(['/bin/sh', '-c', `sleep 30 & echo $! > ${pidFile}; wait`], { timeoutMs: 300 }));
    assert.equal(!r.ok && r.failure, 'timeout');
    const pid = Number(readFileSync(pidFile, 'utf8'));
    await new Promise((res) => setTimeout(res, 100));
    assert.equal(running(pid), false, `background sleep ${pid} must be killed with its group`);
  } finally {
    cleanup();
  }
});

const failures: Array<[string, BoundedRunSpec, string]> = [
  ['stdout ceiling', base([process.execPath, '-e', 'process.stdout.write("x".repeat(100000))'], { maxStdoutBytes: 1000 }), 'stdout_limit'],
  ['stderr ceiling', base([process.execPath, '-e', 'process.stderr.write("x".repeat(100000))'], { maxStderrBytes: 10 }), 'stderr_limit'],
  ['non-zero exit', base(['/bin/sh', '-c', 'echo partial; exit 3']), 'exit_nonzero'],
  ['killed by a signal', base(['/bin/sh', '-c', 'kill -TERM $$']), 'signal'],
  ['invalid UTF-8 on stdout', base([process.execPath, '-e', 'process.stdout.write(Buffer.from([0x61, 0xff, 0xfe]))']), 'malformed_output'],
  ['invalid UTF-8 on stderr', base([process.execPath, '-e', 'process.stderr.write(Buffer.from([0xc3]))']), 'malformed_output'],
  ['unknown program', base(['no-such-program-mnemos']), 'not_found'],
  ['bare name with no PATH', base(['cat'], { env: {} }), 'not_found'],
  ['relative PATH entries are ignored', base(['cat'], { env: { PATH: 'bin:.' }, cwd: '/' }), 'not_found'],
  ['relative cwd', base(['cat'], { cwd: 'tmp' }), 'invalid_spec'],
  ['missing cwd', base(['cat'], { cwd: '/no/such/dir' }), 'invalid_spec'],
  ['env key with =', base(['cat'], { env: { 'A=B': 'x' } }), 'invalid_spec'],
  ['NUL in argv', base(['cat', 'a\0b']), 'invalid_spec'],
  ['zero timeout', base(['cat'], { timeoutMs: 0 }), 'invalid_spec'],
  ['empty argv', base([]), 'invalid_spec'],
  ['argv over budget after resolution', base(['cat', 'x'.repeat(50)], { maxArgvBytes: 40 }), 'invalid_spec'],
  ['env over budget', base(['cat'], { env: { PATH: '/bin', BIG: 'y'.repeat(100) }, maxEnvBytes: 50 }), 'invalid_spec'],
  ['stdin over budget', base(['cat'], { stdin: 'z'.repeat(100), maxStdinBytes: 10 }), 'invalid_spec'],
  ['malformed pin', base(['cat'], { executableSha256: 'abc' }), 'invalid_spec'],
];
for (const [name, spec, failure] of failures) {
  test(`fails closed: ${name}`, async () => {
    const r = await boundedRun(spec);
    assert.equal(r.ok, false, name);
    assert.equal(!r.ok && r.failure, failure, !r.ok ? r.message : '');
    assert.ok(!r.ok && r.message.length > 0);
  });
}

test('a ceiling keeps exactly the allowed bytes and their digest', async () => {
  const r = await boundedRun(base([process.execPath, '-e', 'process.stdout.write("x".repeat(100000))'], { maxStdoutBytes: 1000 }));
  assert.deepEqual(r.stdout, { bytes: 1000, sha256: sha('x'.repeat(1000)) });
});

test('executable pinning: the hashed path is the launched path; a wrong pin runs nothing', async () => {
  const real = realpathSync('/bin/sh');
  const good = await boundedRun(base(['sh', '-c', 'echo ok'], { executableSha256: sha256File(real) }));
  assert.ok(good.ok);
  assert.deepEqual(good.executable, { path: real, sha256: sha256File(real) });
  const { dir, cleanup } = tempDir();
  try {
    const marker = join(dir, 'ran');
    const bad = await boundedRun(base(['sh', '-c', `touch ${marker}`], { executableSha256: '0'.repeat(64) }));
    assert.equal(!bad.ok && bad.failure, 'executable_mismatch');
    assert.equal(existsSync(marker), false);
  } finally {
    cleanup();
  }
});

test('a program that ignores stdin is fine; large output within the ceiling is captured whole', async () => {
  const ignore = await boundedRun(base(['/bin/true'], { stdin: 'q'.repeat(2_000_000) }));
  assert.ok(ignore.ok);
  const big = 'ab'.repeat(2_000_000);
  const echoed = await boundedRun(base(['/bin/cat'], { stdin: big, maxStdoutBytes: 4_000_000 }));
  assert.ok(echoed.ok);
  assert.equal(echoed.stdout.sha256, sha(big));
});
