import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePgUrl } from '../../src/adapters/postgres/connection.ts';
import { identityDigest } from '../../src/services/state-dir.ts';
import { openMemory } from '../../src/surfaces/library/open-memory.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';
import { REFERENCE_EXAMPLE } from './helpers.ts';

/**
 * Spellings of one PostgreSQL store that differ only in settings that leave
 * the data where it is. Earlier versions named the journal by the whole URL,
 * so each of these opened an empty journal of its own.
 */
function sameDataUrls(url: string): Array<[what: string, url: string]> {
  const u = new URL(url);
  const schema = u.searchParams.get('schema')!;
  const withParam = (k: string, v: string) => {
    const x = new URL(url);
    x.searchParams.set(k, v);
    return x.toString();
  };
  const passwordParam = new URL(url);
  passwordParam.searchParams.set('password', decodeURIComponent(passwordParam.password));
  passwordParam.password = '';
  const viaSearchPath = new URL(url);
  viaSearchPath.searchParams.delete('schema');
  viaSearchPath.searchParams.set('options', `-c search_path=${schema}`);
  const noPort = new URL(url);
  const explicitPort = new URL(url);
  if (noPort.port === '5432') noPort.port = '';
  if (explicitPort.port === '') explicitPort.port = '5432';
  return [
    ['?sslmode=disable', withParam('sslmode', 'disable')],
    ['?application_name=', withParam('application_name', 'mnemos-identity-test')],
    ['?options= with a statement_timeout', withParam('options', '-c statement_timeout=60000')],
    ['?pool_size=', withParam('pool_size', '3')],
    ['the password as ?password=', passwordParam.toString()],
    ['the schema as a search_path in ?options=', viaSearchPath.toString()],
    ['the port left out', noPort.toString()],
    ['the port written out', explicitPort.toString()],
  ];
}

/** The journal name earlier versions gave a server store: a digest of its URL less the user and password. */
function oldJournalName(url: string): string {
  const loc = new URL(parsePgUrl(url).location);
  loc.username = '';
  loc.password = '';
  return `journal.${identityDigest(`postgres:${loc.toString()}`)}.metta`;
}

test(named('one store keeps one engine journal whatever connection settings its URL carries; an old-named journal is taken over'), async () => {
  const stores = testStores();
  const cwd = process.cwd();
  process.chdir(stores.dir); // a server database keeps its journals in ./.mnemos
  try {
    const first = await openMemory({ db: stores.db });
    const path = first.journalPath;
    await first.close();
    if (BACKEND === 'sqlite') {
      // A SQLite store's journal sits beside its file under a fixed name: no identity, nothing to take over.
      assert.equal(path, join(stores.dir, 'journal.metta'));
      return;
    }
    for (const [what, url] of sameDataUrls(stores.db)) {
      const m = await openMemory({ db: url });
      try {
        assert.equal(m.journalPath, path, what);
      } finally {
        await m.close();
      }
    }
    // A journal written by an earlier version under the URL's old name is found, and renamed to the one name.
    const variant = sameDataUrls(stores.db)[0]![1];
    const old = join(stores.dir, '.mnemos', oldJournalName(variant));
    assert.notEqual(old, path, 'the variant had a name of its own before');
    mkdirSync(join(stores.dir, '.mnemos'), { recursive: true });
    writeFileSync(old, REFERENCE_EXAMPLE);
    const m = await openMemory({ db: variant });
    try {
      assert.equal(m.journalPath, path);
      const q = await m.journalQuery({ by: 'about', value: 'parser' });
      assert.deepEqual([q.exists, q.count], [true, 1], 'the old journal is read under its new name');
    } finally {
      await m.close();
    }
    assert.equal(existsSync(old), false, 'renamed, not copied');
    assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE);
    // And the plain URL, which never had that name, reads it too.
    const plain = await openMemory({ db: stores.db });
    try {
      assert.equal((await plain.journalQuery({ by: 'about', value: 'parser' })).count, 1);
    } finally {
      await plain.close();
    }
  } finally {
    process.chdir(cwd);
    await stores.cleanup();
  }
});
