/**
 * After a forget, SQLite's store merges the full-text index and empties the
 * WAL with a TRUNCATE checkpoint, so the text leaves the files. A reader in
 * another process (an export, a search, `serve` answering) holding a
 * snapshot makes that checkpoint give up: the forgotten text stayed in the
 * database file, or in the WAL, for as long as nothing else checkpointed
 * it, and with an idle server that was forever. The forgetting process
 * tries again while it is open, and one that exits first (a CLI command)
 * leaves a `-scrub` marker the next open of the store finishes
 * (src/adapters/sqlite/forget-scrub.ts).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { openMemory } from '../../src/index.ts';
import { tempDir } from '../helpers/temp.ts';
import { waitForOutput, stopChild } from '../helpers/child-wait.ts';
import { cli } from '../surfaces/serve-helpers.ts';

const SQLITE = createRequire(import.meta.url).resolve('better-sqlite3');
const SECRET = 'plumwhistlequaff';

/** A process that opens a read transaction on the file and holds it until its stdin closes. */
function reader(db: string) {
  const code = `const D = require(${JSON.stringify(SQLITE)}); const db = new D(${JSON.stringify(db)}); db.exec('BEGIN'); db.prepare('SELECT count(*) FROM memories').get(); process.stdout.write('reading\\n'); process.stdin.on('end', () => { db.exec('COMMIT'); db.close(); process.exit(0); }); process.stdin.resume();`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  return { child, ready: () => waitForOutput(child, () => out.includes('reading'), 'it holds a read snapshot', { what: 'the reader' }), done: () => new Promise((r) => (child.stdin.end(), child.on('exit', r))) };
}

const holders = (dir: string) => readdirSync(dir).filter((f) => readFileSync(join(dir, f)).includes(SECRET));

async function until(check: () => boolean, bound = 20_000): Promise<boolean> {
  for (const start = Date.now(); Date.now() - start < bound; await new Promise((r) => setTimeout(r, 100))) if (check()) return true;
  return check();
}

test('a forget that a reader kept from emptying the WAL is finished by the forgetting process once the reader is done', async () => {
  const tmp = tempDir('mnemos-scrub-');
  const db = join(tmp.dir, 'x.db');
  const m = await openMemory({ db });
  const r = reader(db);
  try {
    const { id } = await m.remember({ text: `the vault phrase is ${SECRET}` });
    await m.remember({ text: 'the weather in Lisbon was mild' });
    await r.ready();
    await m.confirmForget((await m.forget(id)).token);
    await r.done();
    // The store stays open and idle, as a server between requests.
    assert.ok(await until(() => holders(tmp.dir).length === 0), `still holding the forgotten text: ${holders(tmp.dir).join(', ')}`);
  } finally {
    stopChild(r.child);
    await m.close();
    tmp.cleanup();
  }
});

test('a CLI forget that exits before the reader is done leaves the scrub to the next open of the store', async () => {
  const tmp = tempDir('mnemos-scrub-cli-');
  const db = join(tmp.dir, 'x.db');
  const server = await openMemory({ db }); // another process's connection keeps the WAL from going with the last close
  const r = reader(db);
  try {
    const { id } = await server.remember({ text: `the vault phrase is ${SECRET}` });
    await server.remember({ text: 'the weather in Lisbon was mild' });
    await r.ready();
    const out = await cli(['forget', id, '--yes', '--db', db]);
    assert.equal(out.applied, true);
    await r.done();
    assert.ok(holders(tmp.dir).length > 0, 'nothing has checkpointed since: the text is still in the files');
    await cli(['status', '--db', db]);
    assert.deepEqual(holders(tmp.dir), [], 'the next command finished the scrub');
    assert.equal(existsSync(`${db}-scrub`), false, 'and removed its marker');
  } finally {
    stopChild(r.child);
    await server.close();
    tmp.cleanup();
  }
});

test('a forget that does not commit leaves no scrub marker behind', async () => {
  const tmp = tempDir('mnemos-scrub-none-');
  const db = join(tmp.dir, 'x.db');
  const m = await openMemory({ db });
  try {
    const { id } = await m.remember({ text: 'a safety record', readOnly: true, labels: ['SafetyAudit'] });
    const store = (m as unknown as { ctx: { store: { apply(p: unknown, ops: unknown[]): Promise<unknown> } } }).ctx.store;
    await assert.rejects(store.apply(m.principal, [{ kind: 'forget', lineageId: id, reason: 'test' }]), (err: { code?: string }) => err.code === 'read_only');
    assert.equal(existsSync(`${db}-scrub`), false);
    const other = await m.remember({ text: 'an ordinary note' });
    await m.confirmForget((await m.forget(other.id)).token);
    assert.equal(existsSync(`${db}-scrub`), false, 'a scrub that finished removes its marker');
  } finally {
    await m.close();
    tmp.cleanup();
  }
});
