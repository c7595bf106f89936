import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { expandImportPaths } from '../../src/services/import/import-paths.ts';
import type { ImportFormat } from '../../src/services/import/import-file.ts';

/** A notes folder with the things a real one has around its notes. */
function tree(): string {
  const root = mkdtempSync(join(tmpdir(), 'mnemos-paths-'));
  const files = ['b.md', 'a.MD', 'notes.txt', 'chat.json', 'log.jsonl', 'x.ndjson', 'k.metta', 'img.png', 'sub/c.markdown', 'sub/deep/d.md', '.hidden.md', '.git/e.md', 'node_modules/pkg/f.md'];
  for (const f of files) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    writeFileSync(join(root, f), '# x\n');
  }
  symlinkSync(root, join(root, 'sub', 'loop'));
  symlinkSync(join(root, 'b.md'), join(root, 'z-link.md'));
  symlinkSync(join(root, 'gone.md'), join(root, 'dangling.md'));
  return root;
}

test('a directory becomes its importable files, sorted, without hidden entries, node_modules or followed directory links', () => {
  const root = tree();
  try {
    const cases: { format?: ImportFormat; want: string[] }[] = [
      { want: ['a.MD', 'b.md', 'chat.json', 'k.metta', 'log.jsonl', 'sub/c.markdown', 'sub/deep/d.md', 'x.ndjson', 'z-link.md'] },
      { format: 'markdown', want: ['a.MD', 'b.md', 'notes.txt', 'sub/c.markdown', 'sub/deep/d.md', 'z-link.md'] },
      { format: 'jsonl', want: ['log.jsonl', 'x.ndjson'] },
      { format: 'transcript-jsonl', want: ['log.jsonl', 'x.ndjson'] },
      { format: 'transcript', want: ['chat.json'] },
      { format: 'metta', want: ['k.metta'] },
    ];
    for (const c of cases) {
      const got = expandImportPaths([root], c.format).map((p) => relative(root, p));
      assert.deepEqual(got, c.want, `format ${c.format ?? '(detected)'}`);
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('files stay as given and in order; a missing path, a file of no known format or a folder with nothing to import is an error', () => {
  const root = tree();
  try {
    const png = join(root, 'img.png');
    assert.deepEqual(expandImportPaths([png, join(root, 'sub')], 'markdown'), [png, join(root, 'sub', 'c.markdown'), join(root, 'sub', 'deep', 'd.md')]);
    // Without --format, a file whose extension names no format is refused before any file is read or written.
    assert.throws(() => expandImportPaths([join(root, 'b.md'), png]), (e: { code?: string; message: string }) => e.code === 'validation_failed' && /cannot tell the format of .*img\.png/.test(e.message));
    assert.throws(() => expandImportPaths([join(root, 'b.md'), join(root, 'missing')]), (e: { code?: string; message: string }) => e.code === 'not_found' && e.message.includes('missing'));
    mkdirSync(join(root, 'empty'));
    assert.throws(() => expandImportPaths([join(root, 'empty')]), (e: { code?: string; message: string }) => e.code === 'validation_failed' && /no importable files under .*empty/.test(e.message));
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test('a file that cannot be read stops the import before any file is written, naming it', () => {
  const root = tree();
  const locked = join(root, 'sub', 'locked.md');
  chmodSync(root, 0o755);
  writeFileSync(locked, '# private\n');
  chmodSync(locked, 0o000);
  // Root reads any file: the check runs as nobody, as a user without the right would.
  const asRoot = process.getuid?.() === 0;
  try {
    if (asRoot) process.seteuid!(65534);
    // Sorted after a.md and b.md: found only when those were already written.
    assert.throws(
      () => expandImportPaths([root]),
      (e: { code?: string; message: string }) => e.code === 'not_found' && e.message.includes(locked) && /nothing was imported/.test(e.message),
    );
  } finally {
    if (asRoot) process.seteuid!(0);
    rmSync(root, { recursive: true, force: true });
  }
});
