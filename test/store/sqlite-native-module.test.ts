import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { nativeModuleHint } from '../../src/adapters/sqlite/connection.ts';
import { tempDir } from '../helpers/temp.ts';

// SQLite only, and no store: what a user sees when better-sqlite3's compiled module cannot be loaded.
const ROOT = resolve(import.meta.dirname, '../..');

test('a better-sqlite3 that cannot load gets a remedy; other failures to open get none', () => {
  const cases: [string, boolean][] = [
    ['Could not locate the bindings file. Tried:\n → /p/node_modules/better-sqlite3/build/better_sqlite3.node', true],
    ["The module '/p/node_modules/better-sqlite3/build/Release/better_sqlite3.node'\nwas compiled against a different Node.js version using\nNODE_MODULE_VERSION 108. This version of Node.js requires\nNODE_MODULE_VERSION 115.", true],
    ['/lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38\' not found (required by /p/node_modules/better-sqlite3/build/Release/better_sqlite3.node)', true],
    ['unable to open database file', false],
    ['file is not a database', false],
  ];
  for (const [message, hinted] of cases) {
    const hint = nativeModuleHint(message);
    if (hinted) assert.match(hint, /npm rebuild better-sqlite3/, message);
    else assert.equal(hint, '', message);
  }
});

test('mnemos installed without better-sqlite3 compiled (--ignore-scripts) says to rebuild it, and creates nothing', () => {
  // The package as npm installs it, its dependencies beside it, better-sqlite3 without its build/.
  const tmp = tempDir('mnemos-no-native-');
  try {
    const pkg = join(tmp.dir, 'node_modules/mnemos');
    for (const part of ['bin', 'dist', 'src', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
    const deps = join(pkg, 'node_modules');
    mkdirSync(deps);
    for (const name of readdirSync(join(ROOT, 'node_modules'))) {
      if (name !== 'better-sqlite3' && !name.startsWith('.')) symlinkSync(join(ROOT, 'node_modules', name), join(deps, name), 'dir');
    }
    cpSync(join(ROOT, 'node_modules/better-sqlite3'), join(deps, 'better-sqlite3'), { recursive: true, filter: (src) => !src.includes(`${join('better-sqlite3', 'build')}`) && !src.includes(join('better-sqlite3', 'deps')) });
    assert.equal(existsSync(join(deps, 'better-sqlite3/build')), false);
    const db = join(tmp.dir, 'm.db');
    const run = spawnSync(process.execPath, [join(pkg, 'bin/mnemos.js'), 'add', 'no native module', '--db', db], { cwd: tmp.dir, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    assert.equal(run.status, 7, run.stderr);
    assert.match(run.stderr, /Could not locate the bindings file/);
    assert.match(run.stderr, /run `npm rebuild better-sqlite3` in the folder that installed Mnemos/);
    assert.equal(existsSync(db), false);
  } finally {
    tmp.cleanup();
  }
});
