/**
 * Runs every test file under test/ with node's test runner, in two passes at
 * once: the whole suite on SQLite, and the store-backed files (those importing
 * test/helpers/backend.ts) again on PostgreSQL with MNEMOS_TEST_BACKEND=postgres.
 * The PostgreSQL pass needs MNEMOS_TEST_PG_URL; without it the pass is
 * skipped with a loud message, or fails when MNEMOS_TEST_REQUIRE_PG=1 (CI).
 * Within each pass two files run at once (MNEMOS_TEST_CONCURRENCY=n
 * changes that; 1 runs them one by one): node's default is one fewer than the
 * cores, a single file on a two-core machine, and most files spend their time
 * waiting on spawned CLIs, servers and the database. Files can share a pass
 * because each takes its own temp directory, PostgreSQL schema and port 0.
 * Node 20 does not expand globs, so the file list is built here. Extra
 * arguments filter by substring: `npm test -- sqlite` runs only files whose
 * path contains "sqlite".
 *
 * The files run compiled, against dist/ (scripts/test-build.ts says why and
 * how), so dist/ is built first when it is missing or older than src/.
 * MNEMOS_TEST_TSX=1 runs them as before instead, src/ through tsx (slower;
 * a failure's stack then names src/ lines).
 */
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { buildTests, compiledPath } from './test-build.ts';

function collect(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(process.cwd(), path));
  }
  return out;
}

// Importing the backend helper is what makes a file store-backed (see test/helpers/backend.ts).
const storeBacked = (file: string): boolean => /from '[./]+(helpers\/)?backend\.ts'/.test(readFileSync(file, 'utf8'));

function shout(msg: string): void {
  const bar = '!'.repeat(Math.min(msg.length, 100));
  console.error(`\n${bar}\n${msg}\n${bar}\n`);
}

/**
 * One pass of node's test runner on one backend. Its output is kept in a file
 * and printed whole when the pass ends, so the two passes can run at once
 * without their lines interleaving.
 */
function pass(backend: 'sqlite' | 'postgres', files: string[]): Promise<{ ok: boolean; seconds: number }> {
  const start = Date.now();
  const env = { ...process.env, MNEMOS_TEST_BACKEND: backend };
  const log = join(mkdtempSync(join(tmpdir(), 'mnemos-test-log-')), `${backend}.log`);
  const out = openSync(log, 'w');
  console.log(`=== ${backend} pass started: ${files.length} test files, ${concurrency} at a time ===`);
  const run = viaTsx ? ['--import', 'tsx', ...files] : files.map((f) => relative(process.cwd(), compiledPath(process.cwd(), f)));
  const child = spawn(process.execPath, ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...run], { stdio: ['ignore', out, out], env });
  return new Promise((resolve) => {
    child.on('exit', (code) => {
      closeSync(out);
      console.log(`\n=== ${backend} pass: ${files.length} test files ===\n`);
      process.stdout.write(readFileSync(log));
      rmSync(dirname(log), { recursive: true, force: true });
      resolve({ ok: code === 0, seconds: Math.round((Date.now() - start) / 1000) });
    });
  });
}

// Two files of a pass at once: with both passes, four files share a two-core machine. Measured there under
// the same outside load, the passes went from 1212 s and 1504 s to 625 s and 697 s (fewer spawns in
// test/cli/cli-e2e.test.ts were part of it), with no core left idle;
// more files at once were not measured, and would only add to what the timing checks must absorb.
const concurrency = Number(process.env.MNEMOS_TEST_CONCURRENCY || 2);
if (!Number.isInteger(concurrency) || concurrency < 1) {
  console.error(`MNEMOS_TEST_CONCURRENCY must be a whole number of files of at least 1, not ${process.env.MNEMOS_TEST_CONCURRENCY}`);
  process.exit(1);
}

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}

const viaTsx = process.env.MNEMOS_TEST_TSX === '1';
if (!viaTsx) {
  // bin/ is plain JavaScript without declarations: named through a variable, it is imported untyped.
  const cliModule = '../bin/cli-module.js';
  const { buildProblem } = (await import(cliModule)) as { buildProblem: () => string | null };
  const problem = buildProblem();
  if (problem !== null) {
    console.log(`=== building dist/ first: ${problem} ===`);
    if (spawnSync(process.execPath, ['scripts/build.js'], { stdio: 'inherit' }).status !== 0) process.exit(1);
  }
  buildTests(process.cwd());
}

const summary: string[] = [];
let ok = true;
const pgFiles = files.filter(storeBacked);
const runPg = pgFiles.length > 0 && !!process.env.MNEMOS_TEST_PG_URL;
// The passes run at once: most of a test's time is spent waiting on child processes, servers and the
// database, so two runners share two cores well (one after the other took about 12 minutes in CI).
// MNEMOS_TEST_SERIAL=1 runs them one after the other.
const serial = process.env.MNEMOS_TEST_SERIAL === '1';
const sqliteRun = pass('sqlite', files);
const pgRun = runPg ? (serial ? sqliteRun.then(() => pass('postgres', pgFiles)) : pass('postgres', pgFiles)) : null;
const sqlite = await sqliteRun;
ok &&= sqlite.ok;
summary.push(`sqlite: ${sqlite.ok ? 'passed' : 'FAILED'} (${files.length} files, ${sqlite.seconds}s)`);

if (pgFiles.length > 0) {
  if (pgRun) {
    const postgres = await pgRun;
    ok &&= postgres.ok;
    summary.push(`postgres: ${postgres.ok ? 'passed' : 'FAILED'} (${pgFiles.length} files, ${postgres.seconds}s)`);
  } else if (process.env.MNEMOS_TEST_REQUIRE_PG === '1') {
    shout(`FAILED: MNEMOS_TEST_REQUIRE_PG=1 but MNEMOS_TEST_PG_URL is not set; the PostgreSQL pass (${pgFiles.length} store-backed files) cannot run`);
    ok = false;
    summary.push('postgres: FAILED (no MNEMOS_TEST_PG_URL)');
  } else {
    shout(`SKIPPED the PostgreSQL pass (${pgFiles.length} store-backed files): set MNEMOS_TEST_PG_URL=postgres://user:pass@host/db to run it`);
    summary.push('postgres: SKIPPED (no MNEMOS_TEST_PG_URL)');
  }
}
console.log(`\n${summary.join('\n')}`);
process.exit(ok ? 0 : 1);
