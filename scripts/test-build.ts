/**
 * `npm test` runs the test files as plain JavaScript, compiled here, instead
 * of through tsx: Node 20 runs a loader's hooks on a thread of their own and
 * every module crosses to it, so each test process spent about one
 * CPU-second more (loader start plus some 300 modules through the hooks) than
 * the same process on compiled code, over 282 file runs a quarter of the suite.
 *
 * Each test/ file is compiled alone (isolatedModules holds for the project)
 * into .test-build/ at the same depth as test/, so paths a test builds from
 * its own folder (`../../bin/mnemos.js`, `../../package.json`, the inspector's
 * assets under `../../src`) name the same files as before. Its imports of
 * src/ modules are pointed at dist/, the compiled build `npm test` makes
 * first (from the same sources, by the project's own compiler settings:
 * what `mnemos` and `import 'mnemos'` run); imports of other test files at
 * their compiled copies. Every file of test/ is also linked in under its own
 * name, so fixtures spawned by path (`node --import tsx fixtures/x.ts`) or
 * read as text still run from test/ itself, through tsx, as before.
 *
 * A file run on its own (`node --import tsx --test test/...`) still runs
 * src/ through tsx; this only changes how `npm test` runs them.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import ts from 'typescript';

/** The folder the compiled tests are written to, beside test/ (its name is in .gitignore). */
export const TEST_BUILD = '.test-build';

/** Where `npm test` runs a test file from: test/a/b.test.ts -> .test-build/a/b.test.js. */
export function compiledPath(root: string, testFile: string): string {
  return join(root, TEST_BUILD, relative(join(root, 'test'), resolve(root, testFile))).replace(/\.([cm]?)ts$/, '.$1js');
}

/**
 * The specifier a compiled file at `outFile` uses for `spec`, written in the
 * test file `file`: a relative .ts import of src/ goes to dist/ (same path,
 * .js), one of test/ to its compiled copy; anything else is left as written.
 */
function mapSpecifier(root: string, file: string, outFile: string, spec: string): string {
  if (!spec.startsWith('.') || !/\.[cm]?ts$/.test(spec)) return spec;
  const target = resolve(dirname(file), spec);
  const src = join(root, 'src') + sep;
  const test = join(root, 'test') + sep;
  let mapped: string;
  if (target.startsWith(src)) mapped = join(root, 'dist', target.slice(src.length));
  else if (target.startsWith(test)) mapped = join(root, TEST_BUILD, target.slice(test.length));
  else return spec;
  mapped = mapped.replace(/\.([cm]?)ts$/, '.$1js');
  const rel = relative(dirname(outFile), mapped).split(sep).join('/');
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** A transformer that rewrites the module specifiers of import and export declarations and of `import('...')`. */
function specifierRewriter(map: (spec: string) => string): ts.TransformerFactory<ts.SourceFile> {
  return (context) => {
    const f = context.factory;
    const visit = (node: ts.Node): ts.Node => {
      if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
        return f.updateImportDeclaration(node, node.modifiers, node.importClause, f.createStringLiteral(map(node.moduleSpecifier.text)), node.attributes);
      }
      if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
        return f.updateExportDeclaration(node, node.modifiers, node.isTypeOnly, node.exportClause, f.createStringLiteral(map(node.moduleSpecifier.text)), node.attributes);
      }
      if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments.length >= 1 && ts.isStringLiteral(node.arguments[0]!)) {
        const [first, ...rest] = node.arguments;
        return f.updateCallExpression(node, node.expression, node.typeArguments, [f.createStringLiteral(map((first as ts.StringLiteral).text)), ...rest.map((a) => ts.visitEachChild(a, visit, context))]);
      }
      return ts.visitEachChild(node, visit, context);
    };
    return (sf) => ts.visitEachChild(sf, visit, context);
  };
}

const COMPILER_OPTIONS: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  module: ts.ModuleKind.ESNext,
  verbatimModuleSyntax: true,
  isolatedModules: true,
};

/**
 * Writes .test-build/ afresh from test/ (into a new folder that then replaces
 * the old one whole, so no compiled copy of a deleted test lingers).
 */
export function buildTests(root: string): void {
  const out = join(root, TEST_BUILD);
  const next = `${out}.next`;
  rmSync(next, { recursive: true, force: true });
  const walk = (dir: string): void => {
    const outDir = join(next, relative(join(root, 'test'), dir));
    mkdirSync(outDir, { recursive: true });
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(file);
        continue;
      }
      symlinkSync(file, join(outDir, entry.name));
      if (!/\.[cm]?ts$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      const outFile = join(out, relative(join(root, 'test'), file)).replace(/\.([cm]?)ts$/, '.$1js');
      const result = ts.transpileModule(readFileSync(file, 'utf8'), {
        fileName: file,
        compilerOptions: COMPILER_OPTIONS,
        reportDiagnostics: true,
        transformers: { after: [specifierRewriter((spec) => mapSpecifier(root, file, outFile, spec))] },
      });
      const errors = (result.diagnostics ?? []).filter((d) => d.category === ts.DiagnosticCategory.Error);
      if (errors.length > 0) throw new Error(`${relative(root, file)}: ${ts.flattenDiagnosticMessageText(errors[0]!.messageText, '\n')}`);
      // 'wx': never through a link of the same name (a .js file beside its .ts in test/), and never over one.
      writeFileSync(join(outDir, entry.name.replace(/\.([cm]?)ts$/, '.$1js')), result.outputText, { flag: 'wx' });
    }
  };
  walk(join(root, 'test'));
  rmSync(out, { recursive: true, force: true });
  renameSync(next, out);
}
