import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { openMemory } from '../../src/index.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';

const BIN = resolve('bin/mnemos.js');

/** The real CLI in `cwd` on store `db` (MNEMOS_DB; '' is the default ./.mnemos/memory.db in `cwd`). */
function cli(cwd: string, db: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' } });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

function json(cwd: string, db: string, ...args: string[]) {
  const r = cli(cwd, db, ...args, '--json');
  const lines = r.stdout.trim().split('\n');
  assert.equal(lines.length, 1, `--json must print exactly one line, got: ${r.stdout}`);
  return { ...r, body: JSON.parse(lines[0]!) };
}

test(named('the real CLI: add, search, get, update, history, forget, export/import, status, audit verify'), async () => {
  const t = testStores();
  const dir = t.dir;
  // On SQLite the default store (./.mnemos/memory.db in the temp cwd) is fresh, so this also covers the default.
  const db = BACKEND === 'sqlite' ? '' : t.db;
  try {
    const added = json(dir, db, 'add', 'Caroline went to the LGBTQ support group on 7 May 2023', '--type', 'episode', '--tag', 'support');
    assert.equal(added.code, 0, added.stderr);
    assert.equal(added.body.status, 'created');
    const id = added.body.id as string;

    const found = json(dir, db, 'search', 'support group');
    assert.equal(found.body.hits[0].memory.id, id);
    assert.equal(found.body.hits[0].why.ranks.keyword, 1);
    const none = json(dir, db, 'search', 'volcano');
    assert.equal(none.body.hits.length, 0);
    assert.match(none.body.explain.message, /volcano/);

    assert.match(cli(dir, db, 'get', id).stdout, /LGBTQ support group/);
    const dry = json(dir, db, 'update', id, '--text', 'Caroline went to the support group on 7 May 2023');
    assert.equal(dry.body.applied, false);
    assert.equal(json(dir, db, 'get', id).body.version, 1, 'a dry run changes nothing');
    const upd = json(dir, db, 'update', id, '--text', 'Caroline went to the support group on 7 May 2023', '--yes');
    assert.equal(upd.body.applied, true);
    const hist = json(dir, db, 'history', upd.body.result.id);
    assert.equal(hist.body.versions.length, 2);
    assert.deepEqual(hist.body.audit.map((a: { action: string }) => a.action), ['create', 'update']);

    const exported = cli(dir, db, 'export');
    assert.equal(exported.stdout.trim().split('\n').length, 2);

    const fDry = json(dir, db, 'forget', id);
    assert.equal(fDry.body.applied, false);
    assert.equal(fDry.body.preview.removes.memories, 2);
    const f = json(dir, db, 'forget', id, '--yes', '--reason', 'test');
    assert.equal(f.body.applied, true);
    const gone = cli(dir, db, 'get', id);
    assert.equal(gone.code, 3);
    assert.match(gone.stderr, /forgotten/);

    const status = json(dir, db, 'status');
    assert.equal(status.body.memories.total, 0);
    const audit = json(dir, db, 'audit', 'verify');
    assert.equal(audit.code, 0);
    assert.equal(audit.body.ok, true);
  } finally {
    await t.cleanup();
  }
});

test(named('CLI errors go to stderr with a non-zero code and say what to fix'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const empty = cli(dir, db, 'add', '');
    assert.equal(empty.code, 2);
    assert.equal(empty.stdout, '');
    assert.match(empty.stderr, /text/);
    const badType = cli(dir, db, 'add', 'x', '--type', 'nonsense');
    assert.equal(badType.code, 2);
    assert.match(badType.stderr, /type/);
    const unknown = cli(dir, db, 'frobnicate');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /unknown command/);
    const badOpt = cli(dir, db, 'search', 'x', '--bogus');
    assert.equal(badOpt.code, 2);
    const asJson = cli(dir, db, 'get', 'nope', '--json');
    assert.equal(JSON.parse(asJson.stdout).error.code, 'not_found');
  } finally {
    await cleanup();
  }
});

test(named('CLI import of markdown and transcripts is idempotent; --db and MNEMOS_DB pick the store'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    writeFileSync(join(dir, 'notes.md'), '# Plans\n\nShip the parser on Friday.\n\nReview with Dana.\n');
    writeFileSync(join(dir, 'chat.json'), JSON.stringify({ sessionId: 'sess-1', messages: [{ role: 'user', content: 'hello there' }, { role: 'assistant', content: 'hi!' }] }));
    const db = store(join('custom', 'x.db'));
    const first = json(dir, '', 'import', 'notes.md', 'chat.json', '--db', db);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.body.total.created, 3);
    const second = json(dir, '', 'import', 'notes.md', 'chat.json', '--db', db);
    assert.equal(second.body.total.created, 0);
    assert.equal(second.body.total.unchanged, 3);
    const r = spawnSync(process.execPath, [BIN, 'status', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db } });
    assert.equal(JSON.parse(r.stdout).memories.total, 3);
    const out = join(dir, 'dump.jsonl');
    assert.equal(json(dir, '', 'export', '--out', out, '--db', db).body.memories, 3);
    assert.equal(readFileSync(out, 'utf8').trim().split('\n').length, 3);
  } finally {
    await cleanup();
  }
});

test(named('a long file imports whole: its lines never pass through the call stack as arguments'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    // A 100 KB stack makes 15,000 lines do what 130,000 did with the default one: overflow a spread.
    const lines = Array.from({ length: 15_000 }, (_, i) => JSON.stringify({ text: `line ${i} of the long export`, type: 'fact' }));
    writeFileSync(join(dir, 'long.jsonl'), lines.join('\n') + '\n');
    const db = store('long.db');
    const r = spawnSync(process.execPath, ['--stack-size=100', BIN, 'import', 'long.jsonl', '--json'], { cwd: dir, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(JSON.parse(r.stdout).total.created, 15_000);
    assert.equal(json(dir, db, 'status').body.memories.total, 15_000);
  } finally {
    await cleanup();
  }
});

test(named('a Markdown file past the longest string is refused at once, with what to do instead'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    // Sparse: 600 MB long, no disk used, and never read.
    const big = join(dir, 'huge.md');
    writeFileSync(big, '# start\n');
    truncateSync(big, 600 * 2 ** 20);
    const db = store('huge.db');
    const r = cli(dir, db, 'import', 'huge.md');
    assert.equal(r.code, 2, r.stderr);
    assert.match(r.stderr, /huge\.md is too large to read at once \(600 MiB.*split it/);
    assert.equal(json(dir, db, 'status').body.memories.total, 0);
  } finally {
    await cleanup();
  }
});

test(named('CLI import of a directory takes the notes under it, skips hidden folders, and a missing path writes nothing'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const vault = join(dir, 'vault');
    mkdirSync(join(vault, 'projects'), { recursive: true });
    mkdirSync(join(vault, '.obsidian'));
    writeFileSync(join(vault, 'daily.md'), '# Monday\n\nCalled the plumber about the leak.\n');
    writeFileSync(join(vault, 'projects', 'parser.md'), '# Parser\n\nShip the parser on Friday.\n');
    writeFileSync(join(vault, '.obsidian', 'workspace.md'), '# not a note\n');
    writeFileSync(join(vault, 'photo.png'), 'not text');
    const db = store('dir.db');
    const missing = cli(dir, db, 'import', 'vault', 'nope.md');
    assert.notEqual(missing.code, 0);
    assert.match(missing.stderr, /nope\.md/);
    const status = json(dir, db, 'status').body;
    // Not even the store was created (status refuses to create one, a SQLite file or a PostgreSQL schema).
    assert.equal(status.error.code, 'not_found', 'a missing path is found before anything is written');
    const first = json(dir, db, 'import', 'vault');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.body.files.map((f: { path: string }) => f.path), [join(vault, 'daily.md'), join(vault, 'projects', 'parser.md')]);
    assert.equal(first.body.total.created, 2);
    assert.equal(json(dir, db, 'import', 'vault').body.total.unchanged, 2, 'a second import of the directory adds nothing');
    const empty = cli(dir, db, 'import', join('vault', '.obsidian'), '--format', 'jsonl');
    assert.notEqual(empty.code, 0);
    assert.match(empty.stderr, /no importable files under .*\.jsonl/);
  } finally {
    await cleanup();
  }
});

test(named('the CLI refuses what it used to drop or misread: extra words, --dry-run with --yes, a --db that names no store'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const db = store('guards.db');
    const words = cli(dir, db, 'add', 'Dana', 'likes', 'tea');
    assert.equal(words.code, 2);
    assert.match(words.stderr, /unexpected argument "likes".*in quotes/);
    const added = json(dir, db, 'add', 'Dana likes tea');
    assert.equal(added.code, 0, added.stderr);
    const id = added.body.id as string;
    assert.equal(json(dir, db, 'get', id).body.text, 'Dana likes tea');

    const both = cli(dir, db, 'forget', id, '--dry-run', '--yes');
    assert.equal(both.code, 2);
    assert.match(both.stderr, /not both/);
    assert.equal(json(dir, db, 'get', id).body.text, 'Dana likes tea', 'a dry run with --yes forgot nothing');
    assert.equal(cli(dir, db, 'update', id, '--text', 'Dana likes coffee', '--dry-run', '-y').code, 2);
    assert.equal(json(dir, db, 'history', id).body.versions.length, 1);

    // An empty filter or tag is refused, not dropped: `--tag ''` searched and listed everything, and add stored no tag.
    for (const args of [['search', 'tea', '--tag', ''], ['list', '--tag', ''], ['list', '--type', ''], ['list', '--lifecycle', 'activated,'], ['add', 'Evan likes tea', '--tag', '']]) {
      const r = cli(dir, db, ...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, /has an empty value/);
    }
    assert.equal(json(dir, db, 'list').body.total, 1, 'the refused add wrote nothing');

    // Global options before the command, and --json honoured there on success too.
    const early = cli(dir, '', '--db', db, '--json', 'get', id);
    assert.equal(early.code, 0, early.stderr);
    assert.equal(JSON.parse(early.stdout).text, 'Dana likes tea');
    assert.equal(cli(dir, '', 'token', '--db', db, 'list', '--json').code, 0);

    if (BACKEND === 'sqlite') {
      const typo = cli(dir, '', 'list', '--db', 'typo.db', '--json');
      assert.equal(typo.code, 3);
      assert.equal(JSON.parse(typo.stdout).error.code, 'not_found');
      assert.equal(existsSync(join(dir, 'typo.db')), false, 'a read command creates no store');
      const copy = cli(dir, '', 'copy', '--from', 'nosuch.db', '--to', 'out.db');
      assert.equal(copy.code, 3);
      assert.equal(existsSync(join(dir, 'nosuch.db')), false);
      // Commands that read, preview or change a memory that must exist: none makes a store at a typo.
      for (const args of [['consolidate', '--status'], ['forget', id, '--dry-run'], ['update', id, '--text', 'x', '--yes'], ['pin', 'retire', 'ab.c'], ['pin', 'confirm', 'p1'], ['pin', 'reject', 'p1'], ['token', 'revoke', 'tok_1']]) {
        const r = cli(dir, '', ...args, '--db', 'typo2.db');
        assert.equal(r.code, 3, `${args.join(' ')}: ${r.stderr}`);
        assert.equal(existsSync(join(dir, 'typo2.db')), false, args.join(' '));
      }
      // Running a consolidation may start a store, as `add` may.
      assert.equal(cli(dir, '', 'consolidate', '--db', 'fresh.db').code, 0);
      assert.equal(existsSync(join(dir, 'fresh.db')), true);
    }
  } finally {
    await cleanup();
  }
});

test(named('CLI export to a path it cannot write, and import of a file of no known format, fail cleanly before writing'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const db = store('io.db');
    assert.equal(cli(dir, db, 'add', 'something to export').code, 0);
    const noDir = json(dir, db, 'export', '--out', join(dir, 'missing', 'x.jsonl'));
    assert.equal(noDir.code, 2);
    assert.equal(noDir.body.error.field ?? noDir.body.error.details.field, 'out');
    assert.doesNotMatch(noDir.stderr, /node:events|Unhandled/);
    assert.equal(json(dir, db, 'export', '--out', dir).code, 2, 'a directory is not a file');

    writeFileSync(join(dir, 'a.md'), '# A note\n\nWritten first.\n');
    writeFileSync(join(dir, 'c.csv'), 'x\n');
    const mixed = cli(dir, db, 'import', 'a.md', 'c.csv');
    assert.equal(mixed.code, 2);
    assert.match(mixed.stderr, /cannot tell the format of c\.csv/);
    assert.equal(json(dir, db, 'list').body.total, 1, 'a.md was not written either');

    writeFileSync(join(dir, 'b.json'), '');
    const later = cli(dir, db, 'import', 'a.md', 'b.json');
    assert.equal(later.code, 2);
    assert.match(later.stderr, /imported before it: .*a\.md \(1 new/);
  } finally {
    await cleanup();
  }
});

test(named('human search and context show pinned ledger facts, value included'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const db = store('pins.db');
    assert.equal(cli(dir, db, 'pin', 'set', 'dana.drink', 'tea').code, 0);
    const found = cli(dir, db, 'search', 'dana.drink');
    assert.match(found.stdout, /dana\.drink = tea/);
    assert.doesNotMatch(found.stdout, /^nothing found/m);
    assert.match(cli(dir, db, 'context', 'dana.drink', '--max-tokens', '100').stdout, /dana\.drink: tea/);
  } finally {
    await cleanup();
  }
});

test(named('second round: an empty number, a closed pipe, a file that is not a store, --json with no command, update --expires-at'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const db = store('second.db');
    const empty = cli(dir, db, 'add', 'importance left empty', '--importance', '');
    assert.equal(empty.code, 2);
    assert.match(empty.stderr, /--importance must be a number/);
    // The 40 memories the export pipes are written through the library, one write each as 40 `add`s would make:
    // the CLI's add is tested above and below, and forty spawned processes took most of this file's time.
    const seed = await openMemory({ db });
    try {
      for (let i = 0; i < 40; i++) await seed.remember({ text: `memory number ${i} for the export` });
    } finally {
      await seed.close();
    }
    assert.equal(json(dir, db, 'list').body.total, 40);
    // A reader that stops early: no stack trace, a clean exit.
    const piped = spawnSync('bash', ['-c', `node ${JSON.stringify(BIN)} export | head -c 10`], { cwd: dir, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db, MNEMOS_NAMESPACE: '' } });
    assert.equal(piped.stdout.length, 10);
    assert.doesNotMatch(piped.stderr, /EPIPE|Error/);
    assert.match(cli(dir, db, 'audit', 'verify').stdout, /memories of namespace default checked/);
    const id = json(dir, db, 'add', 'expires later').body.id as string;
    const upd = json(dir, db, 'update', id, '--expires-at', '2099-01-01T00:00:00Z', '--yes');
    assert.equal(upd.code, 0, upd.stderr);
    assert.equal(json(dir, db, 'get', upd.body.result.id).body.expiresAt, '2099-01-01T00:00:00.000Z');
    // --valid-to none reopens a validity the CLI closed, as --expires-at none clears a time to live.
    const closed = json(dir, db, 'update', upd.body.result.id, '--valid-to', '2098-01-01T00:00:00Z', '--yes');
    assert.equal(json(dir, db, 'get', closed.body.result.id).body.validTo, '2098-01-01T00:00:00.000Z');
    const reopened = json(dir, db, 'update', closed.body.result.id, '--valid-to', 'none', '--yes');
    assert.equal(reopened.code, 0, reopened.stderr);
    assert.equal(json(dir, db, 'get', reopened.body.result.id).body.validTo, null);
    const noJsonCommand = json(dir, db);
    assert.equal(noJsonCommand.code, 2);
    assert.equal(noJsonCommand.body.error.code, 'validation_failed');
    // A stored escape sequence is shown, not obeyed, in human output; --json keeps the exact text.
    const escaped = json(dir, db, 'add', 'tea \u001b[31mred\u001b[0m').body.id as string;
    assert.equal(cli(dir, db, 'get', escaped).stdout.includes('\u001b'), false);
    assert.match(cli(dir, db, 'get', escaped).stdout, /tea \\x1b\[31mred\\x1b\[0m/);
    assert.equal(json(dir, db, 'get', escaped).body.text, 'tea \u001b[31mred\u001b[0m');
    // --version answers with the version; an unknown option with no command is an error, not the help and exit 0.
    const version = cli(dir, db, '--version');
    assert.equal(version.code, 0);
    assert.match(version.stdout, /^mnemos \d+\.\d+\.\d+\n$/);
    // With --json, one JSON object (it was "no command given").
    const versionJson = cli(dir, db, '--version', '--json');
    assert.equal(versionJson.code, 0, versionJson.stderr);
    assert.match(JSON.parse(versionJson.stdout).version, /^\d+\.\d+\.\d+$/);
    const bogus = cli(dir, db, '--bogus');
    assert.equal(bogus.code, 2);
    assert.match(bogus.stderr, /no command given/);
    assert.equal(cli(dir, db).code, 0, 'a bare mnemos still prints the help');
    if (BACKEND === 'sqlite') {
      writeFileSync(join(dir, 'notes.txt'), 'just some text, not a database\n'.repeat(200));
      const notDb = cli(dir, join(dir, 'notes.txt'), 'list');
      assert.equal(notDb.code, 2);
      assert.match(notDb.stderr, /not a Mnemos store/);
      // Another application's SQLite database: refused, and left as it was (no WAL, no tables of ours).
      const other = join(dir, 'other.db');
      const foreign = new Database(other);
      foreign.exec('CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT)');
      foreign.close();
      const status = cli(dir, other, 'status');
      assert.equal(status.code, 2);
      assert.match(status.stderr, /another application/);
      const after = new Database(other, { readonly: true });
      assert.deepEqual(after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all(), ['customers']);
      assert.equal(after.pragma('journal_mode', { simple: true }), 'delete');
      after.close();
    }
  } finally {
    await cleanup();
  }
});
