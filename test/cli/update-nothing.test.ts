import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';

/** Runs the CLI in-process with --json: exit code, parsed stdout, stderr. */
async function mnemos(args: string[]): Promise<{ code: number; body: any; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli([...args, '--json'], { stdout: (s: string) => ((out += s), true), stderr: (s: string) => ((err += s), true), env: {}, isTTY: false });
  return { code, body: out.trim() ? JSON.parse(out) : undefined, err };
}

// A new user's `mnemos update <id> --yes` (the change forgotten) was told "(input): nothing to change: give at least one field":
// no option named, and "(input)" named nothing they typed.
test(named('mnemos update with no change names the options it takes and writes nothing'), async () => {
  const { db, cleanup } = testStores('mnemos-update-nothing-');
  try {
    const id = (await mnemos(['add', 'Dana prefers tea', '--db', db])).body.id as string;
    for (const extra of [[], ['--yes'], ['--dry-run']]) {
      const r = await mnemos(['update', id, ...extra, '--db', db]);
      assert.equal(r.code, 2, extra.join(' '));
      assert.equal(r.body.error.code, 'validation_failed');
      assert.match(r.body.error.message, /nothing to change: give at least one of --text, --type, .*--metadata/);
      assert.doesNotMatch(r.body.error.message, /\(input\)/);
    }
    const history = await mnemos(['history', id, '--db', db]);
    assert.equal(history.body.versions.length, 1, 'no version was written');
  } finally {
    await cleanup();
  }
});
