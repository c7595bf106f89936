import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, it, before } from 'node:test';
import { tempDir } from '../helpers/temp.ts';
import { waitForStart } from '../helpers/server-start.ts';
import { waitForExit } from '../helpers/child-wait.ts';

// SQLite only: the compiled build (dist/) that bin/ runs and that `import 'mnemos'` loads.
const ROOT = resolve(import.meta.dirname, '../..');
const BIN = join(ROOT, 'bin/mnemos.js');
const { buildProblem, builtCliEntry } = (await import(join(ROOT, 'bin/cli-module.js'))) as { buildProblem: (root?: string) => string | null; builtCliEntry: () => string };

/** `npm test` builds first; a file run on its own builds here when dist/ is missing or older than src/. */
function ensureBuilt(): void {
  if (buildProblem() === null) return;
  const run = spawnSync(process.execPath, [join(ROOT, 'scripts/build.js')], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 0, `the build failed: ${run.stderr}`);
  assert.equal(buildProblem(), null);
}

/** Plain node: no TypeScript loader anywhere. */
function node(args: string[], cwd: string) {
  return spawnSync(process.execPath, args, { cwd, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
}

/** A plain JavaScript project with Mnemos installed as `npm install /path/to/mnemos` leaves it (a link in node_modules), running one script. */
function inConsumerProject(script: string) {
  const tmp = tempDir('mnemos-consumer-');
  try {
    mkdirSync(join(tmp.dir, 'node_modules'));
    symlinkSync(ROOT, join(tmp.dir, 'node_modules/mnemos'), 'dir');
    writeFileSync(join(tmp.dir, 'use.mjs'), script);
    return node(['use.mjs'], tmp.dir);
  } finally {
    tmp.cleanup();
  }
}

describe('the compiled build', () => {
  before(ensureBuilt);

  it('bin/ runs it, with no TypeScript loader and nothing on stderr', () => {
    const tmp = tempDir('mnemos-bin-');
    try {
      const db = join(tmp.dir, 'm.db');
      const added = node([BIN, 'add', 'compiled builds start faster', '--db', db, '--json'], tmp.dir);
      assert.equal(added.status, 0, added.stderr);
      assert.equal(added.stderr, '');
      const found = node([BIN, 'search', 'compiled', '--db', db, '--json'], tmp.dir);
      assert.equal(found.stderr, '');
      assert.equal(JSON.parse(found.stdout).hits[0].memory.id, JSON.parse(added.stdout).id);
    } finally {
      tmp.cleanup();
    }
  });

  it('bin/ runs the CLI bundle, whose modules still find what sits beside them: package.json, the inspector files, a search thread', async () => {
    assert.equal(builtCliEntry(), join(ROOT, 'dist/cli/main.js'));
    const version = node([BIN, '--version'], ROOT);
    assert.equal(version.stdout.trim(), `mnemos ${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`);
    const tmp = tempDir('mnemos-bundle-');
    const tokenFile = join(tmp.dir, 'token');
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', join(tmp.dir, 'm.db'), '--search-threads', '1', '--owner-token-file', tokenFile, '--json'], {
      cwd: tmp.dir,
      env: { ...process.env, NODE_OPTIONS: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const start = JSON.parse((await waitForStart(child, /^\{.*\}$/m, { stream: 'stdout', what: 'mnemos serve' }))[0]) as { url: string; searchThreads: number };
      assert.equal(start.searchThreads, 1);
      const asset = await fetch(`${start.url}/inspector/assets/inspector.js`);
      assert.equal(await asset.text(), readFileSync(join(ROOT, 'src/surfaces/inspector/assets/inspector.js'), 'utf8'));
      const auth = { authorization: `Bearer ${readFileSync(tokenFile, 'utf8').trim()}`, 'content-type': 'application/json' };
      const added = (await (await fetch(`${start.url}/v1/memories`, { method: 'POST', headers: auth, body: JSON.stringify({ text: 'bundled lanterns glow' }) })).json()) as { id: string };
      const found = (await (await fetch(`${start.url}/v1/search`, { method: 'POST', headers: auth, body: JSON.stringify({ query: 'lanterns' }) })).json()) as { results: { id: string }[] };
      assert.deepEqual(found.results.map((r) => r.id), [added.id]);
    } finally {
      child.kill('SIGTERM');
      await waitForExit(child, { what: 'mnemos serve' });
      tmp.cleanup();
    }
  });

  it('an installed package runs the build it ships, though npm wrote its src/ after dist/', () => {
    // What npm install of the tarball leaves: the package's files (no .git), each written when npm extracted it.
    const tmp = tempDir('mnemos-installed-');
    try {
      const pkg = join(tmp.dir, 'node_modules/mnemos');
      for (const part of ['bin', 'dist', 'src', 'package.json']) cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
      symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
      const t = Date.now() / 1000;
      utimesSync(join(pkg, 'dist/.built'), t - 60, t - 60);
      const run = node([join(pkg, 'bin/mnemos.js'), 'add', 'installed packages start fast', '--db', join(tmp.dir, 'm.db'), '--json'], tmp.dir);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, '', 'no "running src/ through tsx" note');
    } finally {
      tmp.cleanup();
    }
  });

  it("a plain JavaScript project imports 'mnemos', and training runs on a compiled worker thread", () => {
    const run = inConsumerProject(`import { openMemory } from 'mnemos';
const memory = await openMemory({ db: 'm.db' });
const words = ['river', 'stone', 'garden', 'winter', 'harbor', 'lantern', 'meadow', 'copper', 'violin', 'orchard', 'falcon', 'glacier'];
await memory.rememberMany(Array.from({ length: 120 }, (_, i) => ({ text: words[i % 12] + ' beside the ' + words[(i * 5 + 3) % 12] + ' near ' + words[(i * 7 + 1) % 12] + ' number ' + i })));
const report = await memory.consolidate();
const status = await memory.status();
const hits = await memory.search('garden');
console.log(JSON.stringify({ model: report.model?.status, learned: status.embeddings.learned, hits: hits.hits.length }));
await memory.close();
`);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    assert.equal(out.model, 'trained');
    assert.equal(out.learned, true);
    assert.ok(out.hits > 0);
  });

  it("the seeds' modules the docs name are importable: 'mnemos/journal', 'mnemos/cognition', 'mnemos/pln'", () => {
    const run = inConsumerProject(`import { Journal, queryClusters } from 'mnemos/journal';
import { createMemoryCycle, runScenario, DEFAULT_SALIENCE_REGISTRY, RuleBasedSafetyVerifier } from 'mnemos/cognition';
import { chain, plnPremises } from 'mnemos/pln';
console.log(JSON.stringify([Journal, queryClusters, createMemoryCycle, runScenario, RuleBasedSafetyVerifier, chain, plnPremises].map((f) => typeof f).concat(typeof DEFAULT_SALIENCE_REGISTRY)));
`);
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim()), [...Array(7).fill('function'), 'object']);
  });

  it("a TypeScript project on the older module resolution (node10) finds the types of 'mnemos' and its subpaths", () => {
    // node10 reads no "exports": package.json's "types" and "typesVersions" are what it finds the declarations by.
    const tmp = tempDir('mnemos-ts-node10-');
    try {
      mkdirSync(join(tmp.dir, 'node_modules'));
      symlinkSync(ROOT, join(tmp.dir, 'node_modules/mnemos'), 'dir');
      writeFileSync(
        join(tmp.dir, 'use.ts'),
        `import { openMemory } from 'mnemos';
import { Journal } from 'mnemos/journal';
import { createMemoryCycle } from 'mnemos/cognition';
import { chain } from 'mnemos/pln';
export async function page(): Promise<number | null> {
  const m = await openMemory({ db: 'x.db' });
  return (await m.search({ query: 'x' })).nextOffset;
}
export const parts = [Journal, createMemoryCycle, chain];
`,
      );
      const options = { module: 'esnext', target: 'es2022', moduleResolution: 'node', strict: true, noEmit: true, skipLibCheck: true, types: [] };
      writeFileSync(join(tmp.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: options, files: ['use.ts'] }));
      const run = node([join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', tmp.dir], tmp.dir);
      assert.equal(run.status, 0, run.stdout + run.stderr);
    } finally {
      tmp.cleanup();
    }
  });

  it("serves the web inspector's files, which the compiler does not copy: the build puts them beside the compiled module", () => {
    const run = node(
      ['--input-type=module', '-e', `import { Hono } from 'hono';
const { addInspectorRoutes } = await import(${JSON.stringify(join(ROOT, 'dist/surfaces/inspector/inspector-routes.js'))});
const app = new Hono();
addInspectorRoutes(app);
const out = {};
for (const path of ['/inspector', '/inspector/assets/inspector.js', '/inspector/assets/inspector.css']) out[path] = await (await app.request(path)).text();
console.log(JSON.stringify(out));
`],
      ROOT,
    );
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as Record<string, string>;
    const assets = join(ROOT, 'src/surfaces/inspector/assets');
    assert.equal(out['/inspector'], readFileSync(join(assets, 'index.html'), 'utf8'));
    assert.equal(out['/inspector/assets/inspector.js'], readFileSync(join(assets, 'inspector.js'), 'utf8'));
    assert.equal(out['/inspector/assets/inspector.css'], readFileSync(join(assets, 'inspector.css'), 'utf8'));
  });

  it('is used only when complete and, in a checkout, at least as new as src/ (buildProblem)', () => {
    const tmp = tempDir('mnemos-stamp-');
    try {
      mkdirSync(join(tmp.dir, '.git'));
      mkdirSync(join(tmp.dir, 'src/deep'), { recursive: true });
      writeFileSync(join(tmp.dir, 'src/deep/a.ts'), '');
      assert.match(buildProblem(tmp.dir)!, /not been built/);
      mkdirSync(join(tmp.dir, 'dist'));
      writeFileSync(join(tmp.dir, 'dist/.built'), '');
      const t = Date.now() / 1000;
      utimesSync(join(tmp.dir, 'src/deep/a.ts'), t - 60, t - 60);
      utimesSync(join(tmp.dir, 'dist/.built'), t - 30, t - 30);
      assert.equal(buildProblem(tmp.dir), null);
      utimesSync(join(tmp.dir, 'src/deep/a.ts'), t, t);
      assert.match(buildProblem(tmp.dir)!, /changed since the last build/);
      // An installed package (no .git): npm wrote its src/ after its dist/.built, and that is no edit.
      rmSync(join(tmp.dir, '.git'), { recursive: true });
      assert.equal(buildProblem(tmp.dir), null);
    } finally {
      tmp.cleanup();
    }
  });
});
