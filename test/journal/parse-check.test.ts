import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import type { BoundedRunResult } from '../../src/journal/bounded-run.ts';
import { Journal } from '../../src/journal/journal.ts';
import { makeRuntimeParseCheck, type RuntimeCheckConfig } from '../../src/journal/parse-check.ts';
import { REFERENCE_EXAMPLE, record, tempDir } from './fixtures/example.ts';

const CHECKER = join(import.meta.dirname, 'fixtures', 'metta-checker.mjs');
const config = (mode: string, extra: Partial<RuntimeCheckConfig> = {}): RuntimeCheckConfig => ({
  argv: [process.execPath, CHECKER, mode],
  cwd: '/',
  env: {},
  timeoutMs: 30_000,
  passMarker: 'Passed:',
  failPattern: /^(Error|Failed):/m,
  ...extra,
});

test('the hook sends the canonical cluster and accepts a passing runtime', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const runs: BoundedRunResult[] = [];
    const path = join(dir, 'j.metta');
    const journal = await Journal.open(path, { parseCheck: makeRuntimeParseCheck(config('ok', { onRun: (r) => runs.push(r) })) });
    await journal.append(REFERENCE_EXAMPLE);
    assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE);
    assert.equal(runs.length, 1);
    assert.ok(runs[0]!.ok && runs[0]!.stdoutText.startsWith('Passed: 11 atoms'));
    assert.equal(runs[0]!.stdin.sha256, createHash('sha256').update(REFERENCE_EXAMPLE).digest('hex'));
  } finally {
    cleanup();
  }
});

const rejections: Array<[string, string, string, string]> = [
  ['runtime exits non-zero', 'ok', record('mc-x', 'c-x', ['(About c-x forbidden)']), 'exit_nonzero'],
  ['runtime prints an error but exits 0', 'error-output', record('mc-x', 'c-x'), 'rejected_output'],
  ['runtime prints no pass marker', 'silent', record('mc-x', 'c-x'), 'rejected_output'],
  ['runtime hangs', 'hang', record('mc-x', 'c-x'), 'timeout'],
  ['runtime floods stdout', 'flood', record('mc-x', 'c-x'), 'stdout_limit'],
];
for (const [name, mode, text, failure] of rejections) {
  test(`the hook fails closed when the ${name}; the journal is untouched`, async () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'j.metta');
      // Only the hanging runtime gets a short timeout; the others must not time out on a busy machine.
      const timeoutMs = mode === 'hang' ? 700 : 30_000;
      const journal = await Journal.open(path, { parseCheck: makeRuntimeParseCheck(config(mode, { timeoutMs, maxStdoutBytes: 4096 })) });
      await assert.rejects(journal.append(text), (e: unknown) => {
        assert.ok(MnemosError.is(e, 'validation_failed'));
        assert.equal(e.details?.failure, failure);
        assert.match(e.message, /MeTTa runtime check rejected cluster mc-x/);
        return true;
      });
      assert.equal(existsSync(path), false);
    } finally {
      cleanup();
    }
  });
}

test('a pinned runtime with the wrong hash never runs', async () => {
  const check = makeRuntimeParseCheck(config('ok', { executableSha256: 'f'.repeat(64) }));
  await assert.rejects(Promise.resolve(check('(a)\n', 'mc-x')), (e: unknown) => MnemosError.is(e) && e.details?.failure === 'executable_mismatch');
});
