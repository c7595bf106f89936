// `npm run build` (and `npm install`, through "prepare"): compiles src/ to
// dist/ (tsconfig.build.json), so the CLI, the servers and the library run
// as plain JavaScript without a TypeScript loader, and copies the web
// inspector's static files (src/surfaces/inspector/assets) beside it.
//
// The compiler writes a fresh directory that then replaces dist/ whole, so
// no module deleted from src/ lingers and a process starting meanwhile sees
// either the old build or the new one (or none, and runs src/ through tsx).
// The stamp bin/cli-module.js trusts is written only after the compiler
// succeeded.
import { spawnSync } from 'node:child_process';
import { cpSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const at = (path) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const next = at('dist.next');
const old = at('dist.old');
rmSync(next, { recursive: true, force: true });
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  // An install without dev dependencies (npm install --omit=dev) has no compiler: not a failed install.
  console.error('build: typescript is not installed, so dist/ is not built; bin/ runs src/ through tsx (slower to start)');
  process.exit(0);
}
const run = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json', '--outDir', next], { cwd: at(''), stdio: 'inherit' });
if (run.status !== 0) {
  rmSync(next, { recursive: true, force: true });
  console.error('build: the TypeScript compiler failed; dist/ is unchanged');
  process.exit(run.status ?? 1);
}
// Files the compiler does not copy: the web inspector's page, script and style, served from beside its module.
cpSync(at('src/surfaces/inspector/assets'), `${next}/surfaces/inspector/assets`, { recursive: true });
writeFileSync(`${next}/.built`, `${new Date().toISOString()}\n`);
rmSync(old, { recursive: true, force: true });
try {
  renameSync(at('dist'), old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(next, at('dist'));
rmSync(old, { recursive: true, force: true });
