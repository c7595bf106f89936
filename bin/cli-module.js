// Finds the CLI module for bin/mnemos.js and bin/start.js: the compiled build
// (dist/, written by `npm run build`, which `npm install` runs; its bundle
// dist/cli/main.js when there is one) when it is
// complete and at least as new as every file under src/; otherwise src/
// itself through the tsx loader, with a note on stderr. A stale build never
// runs: after an edit without a rebuild, the edited source is what runs.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

function newestMtime(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Why the build under `root` cannot run, or null when it can. Only a
 * checkout (a .git beside src/) is checked for edits since the build: an
 * installed package ships its build, and npm writes the files of a package
 * it installs in no set order with the time of writing, so src/ came out
 * newer than the stamp and every command of a tarball install ran through
 * tsx (1.3 s instead of 0.2).
 */
export function buildProblem(root = ROOT) {
  // Written last by scripts/build.js, so it exists only after a whole, successful build.
  const stamp = join(root, 'dist/.built');
  if (!existsSync(stamp)) return 'dist/ has not been built';
  const src = join(root, 'src');
  if (existsSync(join(root, '.git')) && existsSync(src) && newestMtime(src) > statSync(stamp).mtimeMs) return 'src/ has changed since the last build';
  return null;
}

/** The built CLI module bin/ runs: the bundle (scripts/build.js says why) when the build made one, else the compiled modules. */
export function builtCliEntry(root = ROOT) {
  const bundle = join(root, 'dist/cli/main.js');
  return existsSync(bundle) ? bundle : join(root, 'dist/surfaces/cli/main.js');
}

export async function loadCli() {
  const problem = buildProblem();
  if (problem === null) return import(pathToFileURL(builtCliEntry()).href);
  process.stderr.write(`mnemos: running src/ through tsx (${problem}; \`npm run build\` makes start-up faster)\n`);
  const { register } = await import('tsx/esm/api');
  register();
  return import(pathToFileURL(join(ROOT, 'src/surfaces/cli/main.ts')).href);
}
