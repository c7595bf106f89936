/**
 * A folder import leaves out what it cannot read as a note (a broken link, a
 * link loop) and keeps going, but says so: such entries were left out without
 * a word, and the owner believed the note had been imported.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { named, testStores } from '../helpers/backend.ts';
import { tempDir } from '../helpers/temp.ts';
import { listImportPaths } from '../../src/services/import/import-paths.ts';

const BIN = resolve('bin/mnemos.js');

function cli(cwd: string, db: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

test(named('a folder import names the broken links it skipped, with the reason, in --json and in its human output'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const tree = join(dir, 'tree');
    mkdirSync(tree);
    writeFileSync(join(tree, 'note.md'), '# Note\n\nThe boiler is serviced in May.\n');
    symlinkSync('/nonexistent', join(tree, 'dangling.md'));
    symlinkSync('loopself.md', join(tree, 'loopself.md'));
    // Not importable by its extension: not a note the owner meant, so not listed.
    symlinkSync('/nonexistent', join(tree, 'dangling.png'));

    const r = cli(dir, db, 'import', 'tree', '--json');
    assert.equal(r.code, 0, r.stderr);
    const body = JSON.parse(r.stdout.trim());
    assert.deepEqual(body.files.map((f: { path: string }) => f.path), [join(tree, 'note.md')]);
    assert.equal(body.total.created, 1, 'the broken links do not stop the import');
    const skipped = body.skipped as { path: string; reason: string }[];
    assert.deepEqual(skipped.map((s) => s.path), [join(tree, 'dangling.md'), join(tree, 'loopself.md')]);
    assert.match(skipped[0]!.reason, /broken link to \/nonexistent/);
    assert.match(skipped[1]!.reason, /broken link: it loops/);

    const human = cli(dir, db, 'import', 'tree');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /note\.md \(markdown\): 0 new, 1 unchanged/);
    assert.match(human.stdout, /skipped .*\/tree\/dangling\.md: broken link to \/nonexistent/);
    assert.match(human.stdout, /skipped .*\/tree\/loopself\.md: broken link: it loops/);

    // A folder holding only broken links names them in its error.
    const only = join(dir, 'only');
    mkdirSync(only);
    symlinkSync('/nonexistent', join(only, 'gone.md'));
    const none = cli(dir, db, 'import', 'only');
    assert.notEqual(none.code, 0);
    assert.match(none.stderr, /no importable files under only .*skipped: .*\/only\/gone\.md \(broken link to \/nonexistent/);
  } finally {
    await cleanup();
  }
});

test('a file named on the command line, or a folder without broken links, skips nothing', () => {
  const { dir, cleanup } = tempDir('mnemos-skip-');
  try {
    writeFileSync(join(dir, 'a.md'), '# A\n');
    assert.deepEqual(listImportPaths([join(dir, 'a.md'), dir]), { files: [join(dir, 'a.md'), join(dir, 'a.md')], skipped: [] });
  } finally {
    cleanup();
  }
});
