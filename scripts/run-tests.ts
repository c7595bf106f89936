/**
 * Runs every test file under test/ with node's test runner. Node 20 does not
 * expand globs, so the file list is built here. Extra arguments filter by
 * substring: `npm test -- sqlite` runs only files whose path contains "sqlite".
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';

function collect(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) collect(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(process.cwd(), path));
  }
  return out;
}

const filters = process.argv.slice(2);
const files = collect('test').filter((f) => filters.length === 0 || filters.some((s) => f.includes(s)));
if (files.length === 0) {
  console.error(`no test files match ${filters.join(', ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-reporter=spec', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
