import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { tempDir } from '../helpers/temp.ts';

// SQLite only: README's library samples as a new user runs them, from a project that installed Mnemos,
// against the compiled package (dist/ and its type declarations), not src/.
const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const { buildProblem } = (await import(join(ROOT, 'bin/cli-module.js'))) as { buildProblem: (root?: string) => string | null };

/** The ```ts blocks of README's "Quick start: library" section, in order. */
function librarySamples(): string[] {
  const section = README.split('## Quick start: library')[1]!.split('\n## ')[0]!;
  return [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * One program of the samples, as a reader puts them together: the second
 * block (the scheduler) runs before the first block's `mem.close()`, as its
 * comment says; the store is a file of the test's own; what the samples
 * found is printed for the test to check.
 */
function program(samples: string[], db: string): string {
  const lines = samples.join('\n').split('\n');
  const close = lines.filter((l) => /^await mem\.close\(\);/.test(l.trim()));
  assert.equal(close.length, 1, 'the samples close the store once');
  const body = lines.filter((l) => !close.includes(l)).join('\n').replaceAll("'./.mnemos/memory.db'", JSON.stringify(db));
  assert.notEqual(body, lines.join('\n'), "the first sample names the store as './.mnemos/memory.db'");
  return `${body}
console.log(JSON.stringify({ id, found: hits.map((h) => h.memory.id), explained: Object.keys(explain), nextOffset, guest: guest.principal.role, gone: await mem.get(id).then(() => false, (e: { code?: string }) => e.code) }));
${close.join('\n')}
`;
}

/**
 * README showed code no test ran: its calls, option names and the fields it
 * destructures (hits, explain, nextOffset, preview.token) could drift from
 * the library unnoticed. Compiled strictly against the package's declarations
 * (types that no longer fit fail here) and run with plain node.
 */
test("README's library samples type-check against the package's declarations and run against dist/", () => {
  if (buildProblem() !== null) {
    const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(built.status, 0, built.stderr);
  }
  const samples = librarySamples();
  assert.ok(samples.length >= 2, 'README has the quick-start and scheduler samples');
  const tmp = tempDir('mnemos-readme-lib-');
  try {
    mkdirSync(join(tmp.dir, 'node_modules'));
    symlinkSync(ROOT, join(tmp.dir, 'node_modules/mnemos'), 'dir');
    writeFileSync(join(tmp.dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(tmp.dir, 'use.ts'), program(samples, join(tmp.dir, 'memory.db')));
    const options = { module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', strict: true, skipLibCheck: true, types: [], outDir: 'out' };
    writeFileSync(join(tmp.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['use.ts'] }));
    const env = { ...process.env, NODE_OPTIONS: '', MNEMOS_EMBEDDINGS: 'builtin' };
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tmp.dir], { cwd: tmp.dir, encoding: 'utf8', env });
    assert.equal(tsc.status, 0, `README's samples do not type-check:\n${tsc.stdout}${tsc.stderr}\n${readFileSync(join(tmp.dir, 'use.ts'), 'utf8')}`);
    const run = spawnSync(process.execPath, [join(tmp.dir, 'out/use.js')], { cwd: tmp.dir, encoding: 'utf8', env, timeout: 120_000 });
    assert.equal(run.status, 0, run.stdout + run.stderr);
    const seen = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { id: string; found: string[]; explained: string[]; nextOffset: unknown; guest: string; gone: unknown };
    assert.deepEqual(seen.found, [seen.id], 'the search finds the memory the sample stored');
    assert.ok(seen.explained.includes('lists'), 'explain says what was searched');
    assert.equal(seen.nextOffset, null);
    assert.equal(seen.guest, 'guest');
    assert.equal(seen.gone, 'forgotten', 'after confirmForget the memory is gone, and get says so');
  } finally {
    tmp.cleanup();
  }
});
