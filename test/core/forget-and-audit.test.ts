import { test } from 'node:test';
import { runCli } from '../../src/surfaces/cli/main.ts';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import type { AuditProgress } from '../../src/services/audit-verify.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';

const SECRET = 'zanzibarquokka';

const count = async (db: string, sql: string, ...params: unknown[]) => Number((await rawSql(db, sql, ...params))[0]!.n);

test(named('forget leaves no trace: table, full-text index, search, pending edits and the file bytes'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const keep = await m.remember({ text: 'the weather in Lisbon was mild' });
    const { id } = await m.remember({ text: `my bank pin hint is ${SECRET} and the ocean` });
    const v2 = await m.update(id, { text: `my bank pin hint is ${SECRET} and the sea` });
    await m.previewUpdate(v2.id, { text: `pending edit mentioning ${SECRET}` });
    assert.equal((await m.search(SECRET)).hits.length, 1);

    const preview = await m.forget(v2.id, 'user asked');
    assert.equal(preview.versions, 2);
    // Every place that holds the text or data derived from it, counted before anything changes.
    assert.equal(preview.removes.memories, 2);
    assert.equal(preview.removes.full_text_index, 2);
    assert.equal(preview.removes.vectors, 2);
    assert.equal(preview.removes.pending_changes, 1);
    // The preview changes nothing.
    assert.equal((await m.search(SECRET)).hits.length, 1);
    await m.confirmForget(preview.token);
    await assert.rejects(m.confirmForget(preview.token), { code: 'invalid_token' });

    const res = await m.search(SECRET);
    assert.equal(res.hits.length, 0);
    assert.match(res.explain.message ?? '', /zanzibarquokka/);
    await assert.rejects(m.get(id), { code: 'forgotten' });
    const h = await m.history(id);
    assert.equal(h.versions.length, 0);
    assert.ok(h.tombstone);
    assert.ok(h.audit.some((a) => a.action === 'forget'));
    assert.equal((await m.get(keep.id)).text, 'the weather in Lisbon was mild');
    await m.close();

    assert.equal(await count(db, 'SELECT count(*) AS n FROM memories WHERE lineage_id = ?', id), 0);
    assert.equal(await count(db, 'SELECT count(*) AS n FROM pending_changes'), 0);
    assert.equal(await count(db, "SELECT count(*) AS n FROM audit_log WHERE details LIKE '%zanzibar%'"), 0);
    if (BACKEND === 'sqlite') {
      assert.equal(await count(db, "SELECT count(*) AS n FROM memories_fts WHERE memories_fts MATCH 'zanzibarquokka'"), 0);
      assert.equal(await count(db, "SELECT count(*) AS n FROM memories_fts_vocab WHERE term = 'zanzibarquokka'"), 0);
      assert.equal(await count(db, 'SELECT count(*) AS n FROM memory_vectors'), 1, 'only the kept memory has a vector');
      // The file bytes are SQLite's promise (secure_delete, FTS merge, WAL checkpoint); PostgreSQL keeps dead tuples until VACUUM.
      for (const f of readdirSync(dir)) {
        assert.equal(readFileSync(join(dir, f)).includes(SECRET), false, `${f} still holds the forgotten text`);
      }
    } else {
      // The tsvector goes with the row; the term statistics must forget the term too.
      assert.equal(await count(db, "SELECT count(*) AS n FROM term_df WHERE term = 'zanzibarquokka'"), 0);
    }
  } finally {
    await cleanup();
  }
});

test(named('audit verify detects tampering done directly in the database'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const a = await m.remember({ text: 'first fact' });
    await m.remember({ text: 'second fact' });
    await m.update(a.id, { text: 'first fact, corrected' });
    assert.equal((await m.verifyAudit()).ok, true);
    await m.close();

    // 1. Edit a memory's text behind the engine's back.
    await rawSql(db, "UPDATE memories SET text = 'second fact, forged' WHERE text = 'second fact'");
    let m2 = await openMemory({ db });
    let report = await m2.verifyAudit();
    assert.equal(report.ok, false);
    assert.equal(report.memoryProblems[0]?.problem, 'text_changed');
    await m2.close();

    // 2. Forge text and hash consistently: the audit log still disagrees.
    const { createHash } = await import('node:crypto');
    const h = createHash('sha256').update('second fact, forged').digest('hex');
    await rawSql(db, "UPDATE memories SET content_hash = ? WHERE text = 'second fact, forged'", h);
    m2 = await openMemory({ db });
    report = await m2.verifyAudit();
    assert.equal(report.memoryProblems[0]?.problem, 'hash_differs_from_audit');
    await m2.close();

    // 3. Rewrite an audit entry after dropping the append-only trigger (PostgreSQL names the table in DROP TRIGGER).
    await rawSql(db, BACKEND === 'sqlite' ? 'DROP TRIGGER audit_log_no_update' : 'DROP TRIGGER audit_log_no_update ON audit_log');
    await rawSql(db, "UPDATE audit_log SET actor = 'owner:mallory' WHERE seq = 2");
    m2 = await openMemory({ db });
    report = await m2.verifyAudit();
    assert.ok(report.chainProblems.some((p) => p.seq === 2 && p.problem === 'hash_mismatch'));
    await m2.close();

    // The CLI exits 8 with the report, and the error object every other failure prints with --json.
    let out = '';
    let err = '';
    const code = await runCli(['audit', 'verify', '--db', db, '--json'], { stdout: (x) => ((out += x), true), stderr: (x) => ((err += x), true), env: {}, isTTY: false });
    assert.equal(code, 8);
    const body = JSON.parse(out);
    assert.equal(body.ok, false);
    assert.equal(body.error.code, 'corrupt');
    assert.match(err, /audit check failed: \d+ chain and \d+ memory problem/);
  } finally {
    await cleanup();
  }
});

test(named('audit verify finds labels, flags, metadata and scope edited behind the engine\'s back, and raises no false alarm'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    // Varied claims, written the ways a store is written: one memory, a batch, a new version, a file.
    const safety = await m.remember({ text: 'blocked: verification of the payment failed', labels: ['SafetyAudit'], readOnly: true, metadata: { valueSnapshot: { amount: 12.5, nested: [1, { deep: 'é😀' }] } } });
    const [note, shared] = await m.rememberMany([
      { text: 'Dana prefers tea', type: 'preference', tags: ['drinks', 'dana'], validFrom: '2024-01-01', validTo: '2030-06-01T12:00:00+02:00', expiresAt: '2099-01-01T00:00:00Z', importance: 0.7 },
      { text: 'the office wifi is heron', visibility: 'public', key: 'wifi', metadata: { n: -0, big: 1e21 } },
    ]);
    await m.update(note!.id, { text: 'Dana prefers green tea', tags: ['drinks'] });
    await m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello', timestamp: '2025-03-01T10:00:00Z' }] });
    await m.consolidate({ force: true });
    const clean = await m.verifyAudit();
    assert.deepEqual(clean.memoryProblems, [], 'no false alarm on untouched rows');
    await m.close();

    await rawSql(db, `UPDATE memories SET labels = '["Episode"]', read_only = 0 WHERE id = '${safety.id}'`);
    await rawSql(db, `UPDATE memories SET visibility = 'shared' WHERE id = '${shared!.id}'`);
    const m2 = await openMemory({ db });
    let report = await m2.verifyAudit();
    assert.equal(report.ok, false);
    assert.deepEqual(report.memoryProblems.map((x) => [x.memoryId, x.problem]).sort(), [[safety.id, 'claims_changed'], [shared!.id, 'claims_changed']].sort());
    await m2.close();
    await rawSql(db, `UPDATE memories SET labels = '["SafetyAudit"]', read_only = 1, metadata = '{"valueSnapshot":"edited"}' WHERE id = '${safety.id}'`);
    await rawSql(db, `UPDATE memories SET visibility = 'public' WHERE id = '${shared!.id}'`);
    const m3 = await openMemory({ db });
    report = await m3.verifyAudit();
    assert.deepEqual(report.memoryProblems.map((x) => [x.memoryId, x.problem]), [[safety.id, 'claims_changed']], 'the payload alone, edited');
    await m3.close();
  } finally {
    await cleanup();
  }
});

test(named('audit verify finds a memory deleted behind the engine\'s back, and newest entries cut off since a remembered head'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const kept = await m.remember({ text: 'alpha one' });
    const doomed = await m.remember({ text: 'beta two' });
    const edited = await m.update(kept.id, { text: 'alpha one, revised' });
    const forgotten = await m.remember({ text: 'gamma three' });
    const preview = await m.forget(forgotten.id, 'not needed');
    await m.confirmForget(preview.token);
    const clean = await m.verifyAudit();
    assert.equal(clean.ok, true, 'a forgotten memory is not missing: its forget entry removed it');
    const head = clean.head!;
    await m.close();

    // A row deleted in the database, as a file editor could: the chain still recorded it and no forget.
    await rawSql(db, 'DELETE FROM memories WHERE id = ?', doomed.id);
    let m2 = await openMemory({ db });
    let report = await m2.verifyAudit({ expectHead: head });
    assert.equal(report.ok, false);
    assert.deepEqual(report.memoryProblems.map((x) => [x.memoryId, x.problem]), [[doomed.id, 'missing_from_store']]);
    assert.equal(report.chainProblems.length, 0, 'the remembered head is still there');
    await m2.close();
    // An old version counts too.
    await rawSql(db, 'DELETE FROM memories WHERE id = ?', kept.id);
    m2 = await openMemory({ db });
    report = await m2.verifyAudit();
    assert.deepEqual(report.memoryProblems.map((x) => x.memoryId).sort(), [doomed.id, kept.id].sort());
    await m2.verifyAudit().then((r) => assert.ok(r.memoryProblems.every((x) => x.memoryId !== edited.id)));
    await m2.close();

    // The newest entry cut off: still a valid chain, but not the one an earlier check saw.
    // PostgreSQL's one append-only trigger covers updates and deletes.
    await rawSql(db, BACKEND === 'sqlite' ? 'DROP TRIGGER audit_log_no_delete' : 'DROP TRIGGER audit_log_no_update ON audit_log');
    await rawSql(db, 'DELETE FROM audit_log WHERE seq = ?', head.seq);
    m2 = await openMemory({ db });
    report = await m2.verifyAudit({ expectHead: head });
    assert.deepEqual(report.chainProblems.map((x) => [x.seq, x.problem]), [[head.seq, 'head_missing']]);
    await m2.close();
  } finally {
    await cleanup();
  }
});

test(named('audit verify goes a page at a time: it reports progress, and checks each page against its own audit entries'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const made = await m.rememberMany(Array.from({ length: 2500 }, (_, i) => ({ text: `paged fact ${i}` })));
    const late = made[2400]!.id;
    await m.update(late, { text: 'paged fact 2400, corrected' });
    const seen: AuditProgress[] = [];
    const report = await m.verifyAudit({ onProgress: (x) => seen.push(x) });
    assert.equal(report.ok, true, JSON.stringify(report.memoryProblems.slice(0, 3)));
    const chain = seen.filter((x) => x.phase === 'chain');
    assert.deepEqual(chain.map((x) => x.done), [2000, report.entries]);
    assert.ok(chain.every((x) => x.total === report.head!.seq));
    assert.deepEqual(seen.filter((x) => x.phase === 'memories').map((x) => x.done), [2000, report.memoriesChecked]);
    assert.equal(seen.at(-1)!.phase, 'done');
    await m.close();

    // A memory on the second page whose creating entry names another memory: no entry records it.
    const other = made[2450]!.id;
    await rawSql(db, BACKEND === 'sqlite' ? 'DROP TRIGGER audit_log_no_update' : 'DROP TRIGGER audit_log_no_update ON audit_log');
    await rawSql(db, "UPDATE audit_log SET memory_id = 'someone-else' WHERE memory_id = ? AND action = 'create'", other);
    // And 1,111 texts edited (facts 1, 10-19, 100-199, 1000-1999): all counted as problems, the first hundred listed.
    await rawSql(db, "UPDATE memories SET text = text || ' (forged)' WHERE text LIKE 'paged fact 1%'");
    const m2 = await openMemory({ db });
    const tampered = await m2.verifyAudit();
    assert.equal(tampered.ok, false);
    assert.equal(tampered.memoryProblems.length, 100);
    // The moved entry also names a memory the store never had: 'someone-else' is written in the log and not stored.
    assert.equal(tampered.problemsFound.memories, 1113, 'the edited texts, the memory without its entry and the entry without its memory');
    assert.ok(tampered.problemsFound.chain >= 1);
    assert.ok(tampered.memoryProblems.every((x) => x.problem === 'text_changed'));
    assert.equal(tampered.memoriesChecked, 2501, 'every version, the superseded one too');
    assert.ok(tampered.chainProblems.some((x) => x.problem === 'hash_mismatch'));
    await m2.close();
    await rawSql(db, "UPDATE memories SET text = replace(text, ' (forged)', '')");
    const m3 = await openMemory({ db });
    const missing = await m3.verifyAudit();
    assert.deepEqual(missing.memoryProblems.map((x) => [x.memoryId, x.problem]), [
      [other, 'not_in_audit_log'],
      ['someone-else', 'missing_from_store'],
    ]);
    await m3.close();
  } finally {
    await cleanup();
  }
});

test(named('the audit log refuses updates and deletes through SQL'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    await m.remember({ text: 'x' });
    await m.close();
    await assert.rejects(rawSql(db, 'DELETE FROM audit_log'), /append-only/);
    await assert.rejects(rawSql(db, "UPDATE audit_log SET actor = 'x'"), /append-only/);
  } finally {
    await cleanup();
  }
});

test(named('a chunk retired because it left its file still verifies: closing a version is not tampering'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const { writeFileSync } = await import('node:fs');
    const file = join(dir, 'notes.md');
    writeFileSync(file, '# A\n\nalpha paragraph\n\n# B\n\nbeta paragraph\n');
    const m = await openMemory({ db });
    await m.import(file);
    writeFileSync(file, '# A\n\nalpha paragraph\n');
    assert.equal((await m.import(file)).retired, 1);
    const report = await m.verifyAudit();
    assert.deepEqual(report.memoryProblems, [], 'the retired version was reported as tampered with');
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named("a forget previewed by an earlier version's id shows the current text it would remove, and says the whole memory goes"), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const first = await m.remember({ text: 'Door code is 1234' });
    const next = await m.update(first.id, { text: 'Door code changed to 9876; the alarm PIN is 5555' });
    const byOld = await m.forget(first.id, 'cleanup');
    assert.equal(byOld.text, 'Door code changed to 9876; the alarm PIN is 5555');
    assert.equal(byOld.currentId, next.id);
    assert.equal(byOld.versions, 2);
    assert.match(byOld.note ?? '', /earlier version.*all 2 versions/);
    const byCurrent = await m.forget(next.id, 'cleanup');
    assert.equal(byCurrent.text, 'Door code changed to 9876; the alarm PIN is 5555');
    assert.equal(byCurrent.note, undefined);
    await m.confirmForget(byOld.token);
    await assert.rejects(m.get(next.id), { code: 'forgotten' });
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named("preview tokens expire by the engine's clock, which set their expiry (an injected clock behind the wall clock failed every confirm)"), async () => {
  const { db, cleanup } = testStores();
  try {
    const clock = { t: Date.parse('2025-01-01T00:00:00Z') };
    const m = await openMemory({ db, now: () => clock.t });
    const a = await m.remember({ text: 'a memory made last year' });
    await m.confirmForget((await m.forget(a.id, 'tidy')).token);
    await assert.rejects(m.get(a.id), { code: 'forgotten' });
    const b = await m.remember({ text: 'another one' });
    const late = await m.forget(b.id, 'tidy');
    clock.t += 16 * 60_000; // past the 15-minute preview lifetime, by the engine's clock
    await assert.rejects(m.confirmForget(late.token), { code: 'invalid_token' });
    assert.equal((await m.get(b.id)).text, 'another one');
    await m.close();
  } finally {
    await cleanup();
  }
});
