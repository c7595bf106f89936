import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { EXTRACTION_RULES_VERSION } from '../../src/graph/extract-rules.ts';
import { named, rawSql, testStores } from '../helpers/backend.ts';

/** Runs the CLI in-process: exit code, stdout, stderr. */
async function mnemos(args: string[], isTTY = false): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await runCli(args, { stdout: (s: string) => ((out += s), true), stderr: (s: string) => ((err += s), true), env: {}, isTTY });
  return { code, out, err };
}

test(named('mnemos graph reindex: stale memories again with --json counts, progress on a terminal, --all for current ones too'), async () => {
  const { db, cleanup } = testStores('mnemos-graph-reindex-cli-');
  try {
    assert.match((await mnemos(['graph', 'reindex', '--all', '--db', db])).out, /nothing to re-index: the namespace has no current memory/);
    for (const text of ['Alice Smith works at Initech Labs', 'Omar Haddad met Alice Smith']) assert.equal((await mnemos(['add', text, '--db', db])).code, 0);
    assert.equal((await mnemos(['graph', 'index', '--db', db])).code, 0);
    const none = await mnemos(['graph', 'reindex', '--db', db]);
    assert.equal(none.code, 0);
    assert.match(none.out, new RegExp(`nothing to re-index: every memory is indexed under extraction rules version ${EXTRACTION_RULES_VERSION} \\(--all`));

    // As if indexed by a release before rules versions.
    await rawSql(db, 'UPDATE graph_indexed SET rules_version = 0');
    const r = await mnemos(['graph', 'reindex', '--json', '--db', db]);
    assert.equal(r.code, 0, r.err);
    assert.deepEqual(JSON.parse(r.out), {
      memories: 2,
      entitiesCreated: 0,
      entitiesRemoved: 0,
      mentions: 4,
      mentionsRemoved: 4,
      relationsAdded: 0,
      relationsClosed: 0,
      relationsRemoved: 0,
      rulesVersion: EXTRACTION_RULES_VERSION,
      all: false,
    });
    assert.equal(r.err, '', 'no progress line without a terminal');
    assert.equal(JSON.parse((await mnemos(['graph', 'reindex', '--json', '--db', db])).out).memories, 0);
    // Stale memories found, the human output points at --all for merges the older rules made.
    await rawSql(db, 'UPDATE graph_indexed SET rules_version = 0');
    assert.match((await mnemos(['graph', 'reindex', '--db', db])).out, /^re-indexed 2 memories[^]*\n.*stay merged: mnemos graph reindex --all rebuilds the graph\n$/);

    const all = await mnemos(['graph', 'reindex', '--all', '--db', db], true);
    assert.equal(all.code, 0, all.err);
    assert.match(all.out, new RegExp(`^re-indexed 2 memories under extraction rules version ${EXTRACTION_RULES_VERSION}\\n  entities: 0 added, 0 removed\\n  mentions: 4 found, 4 of the old extraction removed\\n`));
    assert.doesNotMatch(all.out, /--all/);
    assert.match(all.err, /re-indexing the graph/, 'a terminal sees progress');
    assert.match(all.err, /\r\s+\r$/, 'and the line is wiped at the end');

    const help = await mnemos(['graph', '--help']);
    assert.match(help.out + help.err, /reindex/);
  } finally {
    await cleanup();
  }
});
