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
import { cpSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { relative, sep } from 'node:path';
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
await bundleCli(next);
writeFileSync(`${next}/.built`, `${new Date().toISOString()}\n`);
rmSync(old, { recursive: true, force: true });
try {
  renameSync(at('dist'), old);
} catch (err) {
  if (err.code !== 'ENOENT') throw err;
}
renameSync(next, at('dist'));
rmSync(old, { recursive: true, force: true });

/**
 * The CLI again as one bundle with its lazily loaded commands in chunks of
 * their own (dist/cli/), which bin/ runs when it is there: Node resolves,
 * reads and links each ES module on its own, and loading the CLI's 330 of
 * them was most of the 0.28 s a command such as `mnemos list` took (0.17 s
 * bundled). dist/ stays whole beside it: the library's exports, the worker
 * threads' entries and the tests use it.
 *
 * A bundled module no longer sits where it was compiled, so each
 * `import.meta.url` (worker entries, the inspector's files, package.json)
 * is made to name the module's own file in dist/ again. Native and optional
 * packages stay outside, loaded from node_modules as before. Without esbuild
 * (it comes with tsx) no bundle is made and bin/ runs dist/ as it is.
 */
async function bundleCli(dist) {
  let esbuild;
  try {
    esbuild = await import('esbuild');
  } catch {
    console.error('build: esbuild is not installed, so the CLI is not bundled; bin/ runs dist/ as compiled (slower to start)');
    return;
  }
  const outdir = `${dist}/cli`;
  const ownUrl = {
    name: 'own-import-meta-url',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(dist + sep)) return undefined;
        const text = readFileSync(args.path, 'utf8');
        if (!text.includes('import.meta.url')) return { contents: text, loader: 'js' };
        const back = relative(outdir, args.path).split(sep).join('/');
        return { contents: text.replaceAll('import.meta.url', `new URL(${JSON.stringify(back)}, import.meta.url).href`), loader: 'js' };
      });
    },
  };
  await esbuild.build({
    entryPoints: [`${dist}/surfaces/cli/main.js`],
    outdir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'warning',
    external: ['better-sqlite3', 'sqlite-vec', 'usearch', 'pg', 'pg-native', '@huggingface/transformers', 'onnxruntime-node', 'tsx', 'esbuild', 'typescript'],
    // Bundled CommonJS packages call require(); an ES module has none of its own.
    banner: { js: "import { createRequire as mnemosRequire } from 'node:module'; const require = mnemosRequire(import.meta.url);" },
    plugins: [ownUrl],
  });
}
