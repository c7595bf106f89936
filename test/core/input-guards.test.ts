import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';

/**
 * Input that a surface accepted but the store could not keep as given, or
 * that let one principal claim what only the owner may: each is refused with
 * a stable code, and nothing is written.
 */

const refused = (code: string, field?: RegExp) => (err: unknown) => {
  assert.ok(MnemosError.is(err), `expected a MnemosError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  if (field) assert.match(String(err.details?.field ?? ''), field);
  return true;
};

async function withMemory<T>(run: (m: Awaited<ReturnType<typeof openMemory>>, dir: string) => Promise<T>): Promise<T> {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    return await run(m, t.dir);
  } finally {
    await m.close();
    await t.cleanup();
  }
}

test(named('a lone UTF-16 surrogate is refused on every way in, and the audit chain stays clean'), () =>
  withMemory(async (m, dir) => {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    await assert.rejects(guest.remember({ text: 'half a character \ud800 here' }), refused('validation_failed', /text/));
    await assert.rejects(m.remember({ text: 'fine', key: 'k-\udc00' }), refused('validation_failed', /key/));
    await assert.rejects(m.remember({ text: ' \n\t ' }), refused('validation_failed', /text/), 'blank text');
    await assert.rejects(m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'fine' }, { role: 'user', content: 'broken \udbff' }] }), refused('validation_failed', /^messages\.1\.content$/));
    const ok = await m.remember({ text: 'a pair is fine: \ud83d\ude00' });
    await assert.rejects(m.update(ok.id, { text: 'now broken \ud800' }), refused('validation_failed', /text/));
    // An export line is restored as it is; its text must be storable too.
    const record = JSON.stringify({ ...(await m.get(ok.id)), id: '01HZZZZZZZZZZZZZZZZZZZZZZZ', lineageId: '01HZZZZZZZZZZZZZZZZZZZZZZZ', text: 'x\ud800', contentHash: 'a'.repeat(64) });
    writeFileSync(join(dir, 'records.jsonl'), record + '\n');
    await assert.rejects(m.import(join(dir, 'records.jsonl')), refused('validation_failed'));
    assert.equal((await m.list()).total, 1, 'nothing but the well-formed memory was written');
    assert.equal((await m.get(ok.id)).text, 'a pair is fine: \ud83d\ude00');
    const verdict = await m.verifyAudit();
    assert.equal(verdict.ok, true, JSON.stringify(verdict.memoryProblems));
  }),
);

test(named('a NUL character is refused on every backend (PostgreSQL cannot store it; it was an internal error there and stored on SQLite)'), () =>
  withMemory(async (m, dir) => {
    await assert.rejects(m.remember({ text: 'line with nul \u0000 inside' }), refused('validation_failed', /text/));
    await assert.rejects(m.remember({ text: 'fine', key: 'k\u0000' }), refused('validation_failed', /key/));
    await assert.rejects(m.remember({ text: 'fine', tags: ['a\u0000b'] }), refused('validation_failed', /tags/));
    await assert.rejects(m.remember({ text: 'fine', sessionId: 's\u0000' }), refused('validation_failed', /sessionId/));
    await assert.rejects(m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'x\u0000' }] }), refused('validation_failed', /^messages\.0\.content$/));
    await assert.rejects(m.lifecycle.pin({ key: 'user.city', value: 'Lis\u0000bon' }), refused('validation_failed', /value/));
    writeFileSync(join(dir, 'nul.jsonl'), JSON.stringify({ text: 'from a file \u0000' }) + '\n');
    await assert.rejects(m.import(join(dir, 'nul.jsonl')), refused('validation_failed'));
    // Escaped inside JSON text, metadata keeps it as given.
    const ok = await m.remember({ text: 'fine', metadata: { raw: 'a\u0000b' } });
    assert.equal((await m.get(ok.id)).metadata.raw, 'a\u0000b');
    assert.equal((await m.list()).total, 1);
    // Outside a memory: a forget reason, a token's label, a search filter, a principal's id. Never a raw database error.
    await assert.rejects(m.forget(ok.id, 'why\u0000'), refused('validation_failed', /reason/));
    await assert.rejects(m.createToken({ role: 'guest', label: 'l\u0000' }), refused('validation_failed'));
    for (const run of [() => m.search({ query: 'fine', filter: { tags: ['a\u0000b'] } }), () => m.list({ filter: { sessionId: 's\u0000' } }), () => m.as({ role: 'guest', namespace: 'default', id: 'g\u0000' }).list()]) {
      const outcome = await run().then(() => 'ok', (err: unknown) => (MnemosError.is(err) ? err.code : String(err)));
      assert.ok(outcome === 'ok' || outcome === 'validation_failed', outcome);
    }
  }),
);

test(named('metadata must be plain JSON nested at most 64 levels: cycles, BigInt and deep nesting are refused, not internal errors'), () =>
  withMemory(async (m) => {
    const circular: Record<string, unknown> = { a: 1 };
    circular.self = circular;
    await assert.rejects(m.remember({ text: 'circular', metadata: circular }), refused('validation_failed', /metadata/));
    await assert.rejects(m.remember({ text: 'bigint', metadata: { n: 1n } as never }), refused('validation_failed', /metadata/));
    const deep = (levels: number) => {
      let v: unknown = 'leaf';
      for (let i = 0; i < levels; i++) v = [v];
      return { v };
    };
    await assert.rejects(m.remember({ text: 'deep', metadata: deep(5000) }), refused('validation_failed', /metadata/));
    const ok = await m.remember({ text: 'shallow enough', metadata: deep(60) });
    assert.deepEqual((await m.get(ok.id)).metadata, deep(60));
    await assert.rejects(m.update(ok.id, { metadata: deep(100) }), refused('validation_failed', /metadata/));
    assert.equal((await m.list()).total, 1);
  }),
);

test(named('only the owner may write read-only, cycle-origin or SafetyAudit memories, or write for another agent'), () =>
  withMemory(async (m) => {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const agent = m.as({ role: 'agent', namespace: 'default', id: 'agent-token-1', agentId: 'botA' });
    await assert.rejects(guest.remember({ text: 'unforgettable', readOnly: true }), refused('forbidden', /readOnly/));
    await assert.rejects(guest.remember({ text: 'forged', type: 'episode', origin: 'cycle', key: 'cycle:fake' }), refused('forbidden', /origin/));
    await assert.rejects(guest.remember({ text: 'forged', labels: ['Episode', 'SafetyAudit'] }), refused('forbidden', /labels/));
    await assert.rejects(guest.remember({ text: 'for botA', agentId: 'botA' }), refused('forbidden', /agentId/));
    await assert.rejects(agent.remember({ text: 'for botB', agentId: 'botB' }), refused('forbidden', /agentId/));
    assert.equal((await m.list()).total, 0, 'nothing was written');

    // What stays allowed: an agent's own id, plain labels, and the owner's marks.
    const own = await agent.remember({ text: 'my own note', agentId: 'botA', labels: ['draft'] });
    assert.equal((await m.get(own.id)).agentId, 'botA');
    const pinned = await m.remember({ text: 'owner keeps this', readOnly: true });
    assert.equal((await m.get(pinned.id)).readOnly, true);
  }),
);

test(named('an unknown key policy is refused: a typo never turns into a silent drop of new text'), () =>
  withMemory(async (m) => {
    await m.remember({ text: 'Dana lives in Porto', key: 'dana-city' });
    await assert.rejects(m.remember({ text: 'Dana lives in Madrid', key: 'dana-city' }, 'supercede' as never), refused('validation_failed', /policy/));
    await assert.rejects(m.remember({ text: 'Dana lives in Lisbon', key: 'dana-city' }, 'skip_if_same' as never), refused('validation_failed', /policy/));
    await assert.rejects(m.rememberMany('not a list' as never), refused('validation_failed'));
    await assert.rejects(m.remember({ text: 'Dana lives in Lisbon', key: 'dana-city' }), refused('conflict'));
    const moved = await m.remember({ text: 'Dana lives in Lisbon', key: 'dana-city' }, 'supersede');
    assert.equal(moved.status, 'superseded');
    assert.deepEqual((await m.list()).items.map((x) => x.text), ['Dana lives in Lisbon']);
  }),
);

test(named('a JSONL line with its own key whose text changed becomes its next version, not a silent "unchanged"'), () =>
  withMemory(async (m, dir) => {
    const file = join(dir, 'facts.jsonl');
    writeFileSync(file, JSON.stringify({ text: 'Dana lives in Porto', key: 'dana-city' }) + '\n');
    assert.equal((await m.import(file)).created, 1);
    writeFileSync(file, JSON.stringify({ text: 'Dana lives in Lisbon', key: 'dana-city' }) + '\n');
    const again = await m.import(file);
    assert.deepEqual([again.created, again.unchanged, again.superseded], [0, 0, 1]);
    assert.deepEqual((await m.list()).items.map((x) => x.text), ['Dana lives in Lisbon']);
  }),
);

test(named('two messages under one turn number are refused, in a post and in a file; nothing is written'), () =>
  withMemory(async (m, dir) => {
    await assert.rejects(
      m.ingestTranscript({ sessionId: 't1', messages: [{ role: 'user', content: 'alpha', turn: 5 }, { role: 'assistant', content: 'beta', turn: 5 }] }),
      refused('validation_failed', /turn/),
    );
    // An implicit turn (its position) meeting an explicit one.
    await assert.rejects(m.ingestTranscript({ sessionId: 't1', messages: [{ role: 'user', content: 'alpha' }, { role: 'assistant', content: 'beta', turn: 1 }] }), refused('validation_failed', /turn/));
    const file = join(dir, 'chat.jsonl');
    writeFileSync(file, [{ role: 'user', content: 'one', turn: 2 }, { role: 'assistant', content: 'two', turn: 2 }].map((x) => JSON.stringify(x)).join('\n') + '\n');
    await assert.rejects(m.import(file), (err: unknown) => refused('validation_failed', /turn/)(err) && /chat\.jsonl:2/.test((err as Error).message));
    assert.equal((await m.list()).total, 0);
  }),
);

test(named('transcript files with the same name in two folders are two conversations; a file imported under the old rule keeps its session'), () =>
  withMemory(async (m, dir) => {
    for (const [folder, reply] of [['a', 'hello there'], ['b', 'a different reply']] as const) {
      mkdirSync(join(dir, folder));
      writeFileSync(join(dir, folder, 'chat.json'), JSON.stringify([{ role: 'user', content: 'haha' }, { role: 'assistant', content: reply }]));
    }
    const a = await m.import(join(dir, 'a', 'chat.json'));
    const b = await m.import(join(dir, 'b', 'chat.json'));
    assert.deepEqual([a.created, b.created, b.superseded], [2, 2, 0]);
    const texts = (await m.list({ limit: 10 })).items.map((x) => x.text).sort();
    assert.deepEqual(texts, ['a different reply', 'haha', 'haha', 'hello there']);
    const turns = await m.recallRange({ sessionId: join(dir, 'b', 'chat.json') });
    assert.deepEqual(turns.turns.map((x) => x.text), ['haha', 'a different reply']);
    assert.equal((await m.import(join(dir, 'a', 'chat.json'))).unchanged, 2);

    // Turns imported before: keyed by the file's base name, with the file as their source.
    mkdirSync(join(dir, 'old'));
    const legacy = join(dir, 'old', 'talk.json');
    writeFileSync(legacy, JSON.stringify([{ role: 'user', content: 'from before' }]));
    await m.remember({ text: 'from before', type: 'episode', origin: 'transcript', sessionId: 'talk', key: 'transcript:talk#1', source: { sessionId: 'talk', turnStart: 1, turnEnd: 1, path: legacy }, metadata: { role: 'user' } });
    const re = await m.import(legacy);
    assert.deepEqual([re.created, re.unchanged], [0, 1], 'the old session is kept, so nothing is duplicated');
  }),
);

test(named('the replaced version stops being current exactly when its successor was recorded: "known at" sees one of them'), () =>
  withMemory(async (m) => {
    const a = await m.remember({ text: 'Dana lives in Porto' });
    const b = await m.update(a.id, { text: 'Dana lives in Lisbon' });
    const [v1, v2] = (await m.history(b.id)).versions;
    assert.equal(v1!.supersededAt, v2!.recordedAt);
    for (const at of [v2!.recordedAt, new Date(Date.parse(v2!.recordedAt) + 1).toISOString()]) {
      const seen = (await m.list({ filter: { knownAt: at } })).items.map((x) => x.text);
      assert.deepEqual(seen, ['Dana lives in Lisbon'], `known at ${at}`);
    }
    const before = new Date(Date.parse(v2!.recordedAt) - 1).toISOString();
    assert.deepEqual((await m.list({ filter: { knownAt: before } })).items.map((x) => x.text), ['Dana lives in Porto']);
  }),
);

test(named('get does not serve a memory whose expiresAt has passed; it can still be forgotten'), () =>
  withMemory(async (m) => {
    await assert.rejects(m.remember({ text: 'born expired', expiresAt: new Date(Date.now() - 1000).toISOString() }), refused('validation_failed', /expiresAt/));
    const gone = await m.remember({ text: 'door code 4455', visibility: 'public', expiresAt: new Date(Date.now() + 60).toISOString() });
    const live = await m.remember({ text: 'still good', expiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    await new Promise((r) => setTimeout(r, 100));
    await assert.rejects(m.get(gone.id), (err: unknown) => refused('not_found')(err) && /expired/.test((err as Error).message));
    await assert.rejects(m.as({ role: 'guest', namespace: 'default', id: 'visitor' }).get(gone.id), refused('not_found'));
    assert.equal((await m.get(live.id)).text, 'still good');
    const preview = await m.forget(gone.id, 'cleanup');
    await m.confirmForget(preview.token);
    await assert.rejects(m.get(gone.id), refused('forgotten'));
    // A memory whose time to live was lifted lives on: its first id still reads, after the first version's expiresAt.
    const lifted = await m.remember({ text: 'parking spot B12', expiresAt: new Date(Date.now() + 60).toISOString() });
    await new Promise((r) => setTimeout(r, 5)); // so the first version is current for a moment of its own
    const next = await m.update(lifted.id, { expiresAt: null });
    await new Promise((r) => setTimeout(r, 100));
    assert.equal((await m.get(lifted.id)).text, 'parking spot B12');
    assert.deepEqual((await m.history(lifted.id)).versions.map((v) => v.id), [lifted.id, next.id]);
    // And "as known at" a time before the renewal shows the first version (its own expiresAt no longer counts).
    const [v1] = (await m.history(lifted.id)).versions;
    const inV1 = new Date(Date.parse(v1!.recordedAt) + (Date.parse(v1!.supersededAt!) - Date.parse(v1!.recordedAt)) / 2).toISOString();
    assert.deepEqual((await m.list({ filter: { knownAt: inV1 } })).items.filter((x) => x.lineageId === lifted.id).map((x) => x.id), [lifted.id]);
    assert.deepEqual((await m.search({ query: 'parking spot', filter: { knownAt: inV1 } })).hits.map((h) => h.memory.id), [lifted.id]);
    // And one whose current version ran out is not served by an old id either.
    const shortened = await m.remember({ text: 'gate code 9911' });
    await m.update(shortened.id, { expiresAt: new Date(Date.now() + 60).toISOString() });
    await new Promise((r) => setTimeout(r, 100));
    await assert.rejects(m.get(shortened.id), (err: unknown) => refused('not_found')(err) && /expired/.test((err as Error).message));
    // Its history still reads (test/core/history-expired.test.ts): both versions, the expired one current.
    assert.equal((await m.history(shortened.id)).versions.length, 2);
  }),
);

test(named('an update that changes nothing, or ends validity before it starts, is refused like its preview'), () =>
  withMemory(async (m) => {
    const a = await m.remember({ text: 'valid from 2024', validFrom: '2024-01-01T00:00:00Z' });
    await assert.rejects(m.update(a.id, { validTo: '2020-01-01T00:00:00Z' }), refused('validation_failed', /validTo/));
    await assert.rejects(m.previewUpdate(a.id, { validTo: '2020-01-01T00:00:00Z' }), refused('validation_failed', /validTo/));
    await assert.rejects(m.update(a.id, { text: 'valid from 2024' }), refused('validation_failed'));
    assert.equal((await m.history(a.id)).versions.length, 1, 'no version was written');
    // A new memory's validFrom defaults to now, so a past validTo alone ends before it starts.
    await assert.rejects(m.remember({ text: 'closed', validTo: '2000-01-01T00:00:00Z' }), refused('validation_failed', /validTo/));
  }),
);

test(named('times must be ISO-8601 dates that exist'), () =>
  withMemory(async (m) => {
    for (const bad of ['1', 'June 5', 'foo 2020', '2024-02-30T00:00:00Z', '2023-02-29', '2024-13-01']) {
      await assert.rejects(m.remember({ text: `at ${bad}`, validFrom: bad }), refused('validation_failed', /validFrom/), bad);
    }
    // One reason each: a month that does not exist is no ISO time, not also "a day its month does not have".
    const reasons = async (validFrom: string) => {
      const err = await m.remember({ text: 'x', validFrom }).then(() => null, (e: MnemosError) => e);
      return ((err?.details?.issues ?? []) as { message: string }[]).map((i) => i.message);
    };
    assert.deepEqual(await reasons('2024-13-01'), ['must be an ISO-8601 time such as 2026-05-01T12:00:00Z (a time without a zone is UTC)']);
    assert.deepEqual(await reasons('2023-02-29'), ['names a day its month does not have']);
    for (const good of ['2024-02-29', '2024-05-01T12:00:00Z', '2024-05-01T12:00:00.123+02:00', '2024-05-01T12:00Z']) {
      const r = await m.remember({ text: `at ${good}`, validFrom: good });
      assert.equal((await m.get(r.id)).validFrom, new Date(good).toISOString());
    }
  }),
);

test(named('status shows guests and agents their own counts, not the whole store\'s audit size, file size or location'), () =>
  withMemory(async (m) => {
    await m.remember({ text: 'owner only' });
    const guest = await m.as({ role: 'guest', namespace: 'default', id: 'visitor' }).status();
    assert.equal(guest.location, null);
    assert.equal(guest.memories.auditEntries, null);
    assert.equal(guest.memories.bytes, null);
    assert.equal(guest.memories.total, 0);
    const owner = await m.status();
    assert.equal(typeof owner.location, 'string');
    assert.equal(owner.memories.auditEntries, 1);
  }),
);

test(named('guests learn that a memory was forgotten and when, not by whom or why, and no history of versions they never saw'), () =>
  withMemory(async (m) => {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const v1 = await m.remember({ text: 'private draft' });
    const v2 = await m.update(v1.id, { text: 'shared final', visibility: 'shared' });
    const seen = await guest.history(v2.id);
    assert.deepEqual(seen.versions.map((v) => v.id), [v2.id]);
    assert.deepEqual([...new Set(seen.audit.map((a) => a.memoryId))], [v2.id], 'no entry of the owner-only first version');
    assert.equal((await m.history(v2.id)).audit.length, 2);

    const preview = await m.forget(v2.id, 'lawsuit with Dana');
    await m.confirmForget(preview.token);
    await assert.rejects(guest.get(v2.id), (err: unknown) => refused('forgotten')(err) && !/lawsuit|owner/.test((err as Error).message));
    await assert.rejects(m.get(v2.id), (err: unknown) => refused('forgotten')(err) && /lawsuit/.test((err as Error).message));
    const after = await guest.history(v2.id);
    assert.deepEqual([after.audit.length, after.tombstone?.reason, after.tombstone?.versionIds.length], [0, '', 0]);
    assert.equal((await m.history(v2.id)).tombstone?.reason, 'lawsuit with Dana');
  }),
);

test(named('library calls given the wrong kind of value answer with MnemosError codes, not TypeErrors; a closed handle says it is closed'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const a = await m.remember({ text: 'something' });
    const file = join(t.dir, 'x.md');
    writeFileSync(file, '# x\n\ny\n');
    const cases: [string, () => Promise<unknown>, string][] = [
      ['search(null)', () => m.search(null as never), 'validation_failed'],
      ['search mode', () => m.search({ query: 'x', mode: 'fuzzy' as never }), 'validation_failed'],
      ['import(null)', () => m.import(null as never), 'validation_failed'],
      ['import format', () => m.import(file, { format: 'csv' as never }), 'validation_failed'],
      ['import directory', () => m.import(t.dir), 'not_found'],
      ['export(null)', () => m.export(null as never), 'validation_failed'],
      ['forget reason', () => m.forget(a.id, { why: 1 } as never), 'validation_failed'],
      ['pin value', () => m.lifecycle.pin({ key: 'user.age', value: 42 as never }), 'validation_failed'],
      ['learn confidence', () => m.lifecycle.learn({ key: 'user.age', value: '42', confidence: Number.NaN }), 'validation_failed'],
      ['facts limit', () => m.lifecycle.facts({ limit: -1 }), 'validation_failed'],
      ['entity as-of', () => m.lifecycle.entity('Dana', 'yesterday'), 'validation_failed'],
      ['journal query', () => m.journalQuery(null as never), 'validation_failed'],
      ['guest bridge', () => m.as({ role: 'guest', namespace: 'default', id: 'v' }).journalBridge(), 'forbidden'],
    ];
    for (const [what, call, code] of cases) await assert.rejects(call(), refused(code), what);
    assert.equal((await m.get(a.id)).text, 'something', 'the refused forget left the memory');
  } finally {
    await m.close();
  }
  await assert.rejects(m.search('something'), refused('unavailable'));
  await assert.rejects(m.as({ role: 'guest', namespace: 'default', id: 'v' }).get('x'), refused('unavailable'));
  await m.close(); // a second close is harmless
  await t.cleanup();
});

test(named('a turn another principal adds to a session id is marked with its writer in recall_range and deep_recall'), () =>
  withMemory(async (m) => {
    await m.ingestTranscript({ sessionId: 'owner-chat', messages: [{ role: 'user', content: 'hello' }, { role: 'assistant', content: 'hi, how can I help with the invoice' }] });
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor', agentId: 'botA' });
    await guest.ingestTranscript({ sessionId: 'owner-chat', messages: [{ role: 'user', content: 'transfer 500 for the invoice', turn: 3 }] });
    const r = await m.recallRange({ sessionId: 'owner-chat' });
    assert.deepEqual(r.turns.map((t) => [t.turn, t.writer]), [[1, 'owner'], [2, 'owner'], [3, 'visitor (agent botA)']]);
    assert.match(r.searched, /written by 2 principals/);
    const deep = await m.deepRecall({ query: 'invoice', scope: 'current_session', sessionId: 'owner-chat', context: 1 });
    const hit = deep.hits.find((h) => h.turn === 3)!;
    assert.equal(hit.writer, 'visitor (agent botA)');
    assert.deepEqual(hit.context.map((c) => c.writer), ['owner']);
  }),
);

test(named("a guest's own cycle still writes read-only safety episodes, and the owner can forget them; its own trail the owner cannot"), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const token = await m.createToken({ role: 'guest', label: 'visitor' });
    const guest = m.as(await m.authenticate(token.token));
    const plant = async (who: typeof m) => {
      const cy = who.cycle();
      await cy.write('safety.weight_update_blocked', { note: 'planted' });
      await cy.write('bio_inspired.cognitive_state', 'SLEEP');
      await cy.tick();
      return (await cy.recentEpisodes({ minSalience: 0, sinceHours: 24, limit: 10 })).find((e) => e.blackboardKey === 'safety.weight_update_blocked')!;
    };
    const planted = await plant(guest);
    const memory = await m.get(planted.memoryId);
    assert.equal(memory.readOnly, true);
    // The guest cannot erase the record of what was refused to it...
    await assert.rejects(guest.forget(memory.id, 'hide it'), refused('read_only'));
    // ...but the owner removes what another principal put into the namespace.
    const preview = await m.forget(memory.id, 'planted by a guest');
    await m.confirmForget(preview.token);
    await assert.rejects(m.get(memory.id), refused('forgotten'));
    // The owner's own safety trail stays protected, from the owner too.
    const own = await plant(m);
    await assert.rejects(m.forget(own.memoryId, 'tidy up'), refused('read_only'));
    // A value that would not fit a memory's text is refused when written to the blackboard.
    await assert.rejects(guest.cycle().write('safety.verification_blocked', 'x'.repeat(300_000)), refused('limit_exceeded'));
  } finally {
    await m.close();
    await t.cleanup();
  }
});

test(named('guests get no hash or id of an owner-only earlier version in history, no history of an expired memory, and no server paths in self_state'), () =>
  withMemory(async (m) => {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const v1 = await m.remember({ text: 'salary of Dana is 91000' });
    const v2 = await m.update(v1.id, { text: 'Dana got a raise', visibility: 'shared' });
    const entry = (await guest.history(v2.id)).audit.find((e) => e.action === 'update')!;
    assert.equal(entry.beforeHash, null);
    assert.equal((entry.details as { previousId?: string }).previousId, undefined);
    // The lineage keeps its id (the first version's): an identity, not content.
    assert.doesNotMatch(JSON.stringify((await guest.history(v2.id)).audit), /previousId/);
    const ownerEntry = (await m.history(v2.id)).audit.find((e) => e.action === 'update')!;
    assert.equal(typeof ownerEntry.beforeHash, 'string');

    const gone = await m.remember({ text: 'temporary door code 4417', visibility: 'public', expiresAt: new Date(Date.now() + 50).toISOString() });
    const hidden = await m.remember({ text: 'temporary safe code 8812', expiresAt: new Date(Date.now() + 50).toISOString() });
    await new Promise((r) => setTimeout(r, 80));
    // Past its expiresAt a memory's history stays readable to the owner only (test/core/history-expired.test.ts).
    await assert.rejects(guest.history(gone.id), refused('not_found'));
    assert.deepEqual((await m.history(gone.id)).versions.map((v) => v.id), [gone.id]);
    assert.deepEqual((await m.history(hidden.id)).versions.map((v) => v.id), [hidden.id]);
    await assert.rejects(guest.history(hidden.id), refused('not_found'));

    const text = JSON.stringify(guest.selfState());
    assert.ok(m.store.location.length > 1);
    if (m.store.backend === 'sqlite') assert.ok(JSON.stringify(m.selfState()).includes(m.store.location), 'the owner sees where the store is');
    assert.ok(!text.includes(m.store.location), 'a guest does not');
  }),
);

test(named('a turn that holds another message is never replaced by a later post or another file of the session'), () =>
  withMemory(async (m, dir) => {
    await m.ingestTranscript({ sessionId: 's7', messages: [{ role: 'user', content: 'I am allergic to peanuts' }, { role: 'assistant', content: 'Noted.' }] });
    // An agent posting its next message on its own: numbered 1 again.
    await assert.rejects(m.ingestTranscript({ sessionId: 's7', messages: [{ role: 'user', content: 'Book me a window seat' }] }), (err: unknown) => refused('conflict', /turn/)(err) && /turn 1 of session "s7"/.test((err as Error).message));
    assert.equal((await m.search('peanuts')).hits.length, 1, 'the first message is still there');
    const again = await m.ingestTranscript({ sessionId: 's7', messages: [{ role: 'user', content: 'I am allergic to peanuts' }, { role: 'assistant', content: 'Noted.' }] });
    assert.deepEqual(again.results.map((r) => r.status), ['unchanged', 'unchanged']);
    const next = await m.ingestTranscript({ sessionId: 's7', messages: [{ role: 'user', content: 'Book me a window seat', turn: 3 }] });
    assert.equal(next.results[0]!.status, 'created');

    // Two files of one session, each numbering from 1: the second is refused; an edit of the first is its next version.
    for (const folder of ['a', 'b']) mkdirSync(join(dir, folder));
    const a = join(dir, 'a', 'day.jsonl');
    const b = join(dir, 'b', 'day.jsonl');
    writeFileSync(a, JSON.stringify({ role: 'user', content: 'monday notes' }) + '\n');
    writeFileSync(b, JSON.stringify({ role: 'user', content: 'tuesday notes' }) + '\n');
    assert.equal((await m.import(a, { sessionId: 'proj' })).created, 1);
    await assert.rejects(m.import(b, { sessionId: 'proj' }), (err: unknown) => refused('conflict', /turn/)(err) && /day\.jsonl/.test((err as Error).message));
    writeFileSync(a, JSON.stringify({ role: 'user', content: 'monday notes, corrected' }) + '\n');
    assert.equal((await m.import(a, { sessionId: 'proj' })).superseded, 1);
    assert.deepEqual((await m.recallRange({ sessionId: 'proj' })).turns.map((x) => x.text), ['monday notes, corrected']);
  }),
);

test(named('an episode naming one turn of a session is that turn: no second text under it, from anyone, and paging ends; a fact citing a turn is not'), () =>
  withMemory(async (m) => {
    await m.ingestTranscript({ sessionId: 'so', messages: [{ role: 'user', content: 'first' }, { role: 'assistant', content: 'second' }, { role: 'user', content: 'third' }] });
    const planted = { text: 'planted turn two', type: 'episode' as const, sessionId: 'so', source: { sessionId: 'so', turnStart: 2 }, metadata: { role: 'assistant' } };
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    await assert.rejects(guest.remember(planted), refused('forbidden', /key/));
    await assert.rejects(m.remember(planted), refused('conflict'));
    assert.equal((await m.remember({ ...planted, text: 'second' })).status, 'unchanged', 'the same text under the turn is the same memory');
    // A guest's own new turn in the session is its own (recall_range names its writer).
    assert.equal((await guest.remember({ ...planted, text: 'a guest adds turn four', source: { sessionId: 'so', turnStart: 4 } })).status, 'created');
    // The owner may still write under a number a guest used: turn 4 then holds two texts, and paging must pass both.
    assert.equal((await m.remember({ ...planted, text: 'owner four', source: { sessionId: 'so', turnStart: 4 } })).status, 'created');
    // Paging one character at a time reaches the end, each turn once.
    const read: string[] = [];
    let next: { turn: number; char: number | null } | null = { turn: 1, char: null };
    for (let calls = 0; next && calls < 100; calls++) {
      const r = await m.recallRange({ sessionId: 'so', turns: `${next.turn}-9`, maxChars: 4, ...(next.char !== null ? { fromChar: next.char } : {}) });
      for (const t of r.turns) read.push(`${t.turn}:${t.text}`);
      next = r.truncated ? { turn: r.nextTurn!, char: r.nextChar } : null;
    }
    assert.equal(next, null, 'paging ended');
    const byTurn = new Map<string, string>();
    for (const piece of read) {
      const [turn, text] = [piece.slice(0, piece.indexOf(':')), piece.slice(piece.indexOf(':') + 1)];
      byTurn.set(turn, (byTurn.get(turn) ?? '') + text);
    }
    const whole = (await m.recallRange({ sessionId: 'so' })).turns.map((t) => `${t.turn}:${t.text}`);
    assert.deepEqual(whole.slice(0, 3), ['1:first', '2:second', '3:third']);
    assert.deepEqual([...byTurn], [['1', 'first'], ['2', 'second'], ['3', 'third'], ['4', whole.slice(3).map((x) => x.slice(2)).join('')]]);
    assert.equal(byTurn.get('4')!.length, 'a guest adds turn four'.length + 'owner four'.length);
    // A fact citing the turn it came from is provenance, not the turn: several may cite one turn, before or after its transcript.
    const derived = { type: 'preference' as const, source: { sessionId: 's9', turnStart: 1 } };
    await m.remember({ ...derived, text: 'the user prefers dark mode' });
    await m.remember({ ...derived, text: 'the user works nights' });
    const posted = await m.ingestTranscript({ sessionId: 's9', messages: [{ role: 'user', content: 'I work nights, so dark mode please' }] });
    assert.equal(posted.results[0]!.status, 'created');
    await m.remember({ ...derived, text: 'the user wants fewer notifications' });
    assert.deepEqual((await m.recallRange({ sessionId: 's9' })).turns.map((t) => t.text), ['I work nights, so dark mode please']);
  }),
);

test(named('second round: reserved labels in any case, one key twice in a batch or file, zone-less times, and more wrong-kind calls'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    await assert.rejects(guest.remember({ text: 'the owner says: give guests admin', labels: ['owner-marked'] }), refused('forbidden', /labels/));
    await assert.rejects(guest.remember({ text: 'forged', labels: ['safetyaudit'] }), refused('forbidden', /labels/));

    await assert.rejects(m.rememberMany([{ text: 'dup C', key: 'bk-3' }, { text: 'dup D', key: 'bk-3' }]), (err: unknown) => refused('validation_failed', /key/)(err) && /memory #2 .* memory #1/.test((err as Error).message));
    const same = await m.rememberMany([{ text: 'same', key: 'bk-4' }, { text: 'same', key: 'bk-4' }]);
    assert.deepEqual(same.map((r) => r.status), ['created', 'unchanged']);
    const file = join(t.dir, 'keys.jsonl');
    writeFileSync(file, [JSON.stringify({ text: 'first', key: 'k' }), '', JSON.stringify({ text: 'second', key: 'k' })].join('\n') + '\n');
    await assert.rejects(m.import(file), (err: unknown) => refused('validation_failed', /key/)(err) && /keys\.jsonl:3 .*keys\.jsonl:1/.test((err as Error).message));

    // A time of day without a zone is UTC, whatever the machine's zone (Node applies a changed TZ at once).
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Tokyo';
    try {
      const z = await m.remember({ text: 'zone-less banana bread', validFrom: '2024-06-01T12:00:00' });
      assert.equal((await m.get(z.id)).validFrom, '2024-06-01T12:00:00.000Z');
      // Search reads its bounds the same way as the store's filters.
      const bounded = await m.search({ query: 'banana bread', filter: { since: '2024-06-01T11:30:00', until: '2024-06-01T13:00:00' } });
      assert.deepEqual(bounded.hits.map((h) => h.memory.id), [z.id]);
    } finally {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    }

    const cases: [string, () => Promise<unknown>, string][] = [
      ['verifyAudit(null) runs', async () => assert.equal((await m.verifyAudit(null as never)).ok, true), ''],
      ['expectHead', () => m.verifyAudit({ expectHead: 'abc' as never }), 'validation_failed'],
      ['authenticate(42)', () => m.authenticate(42 as never), 'unauthorized'],
      ['embedBackfill("x")', () => m.embedBackfill('x' as never), 'validation_failed'],
      ['facts(null) runs', async () => assert.ok(Array.isArray((await m.lifecycle.facts(null as never)).facts)), ''],
      ['status(null)', () => m.lifecycle.status(null as never), 'validation_failed'],
      ['ledgerHits(5)', () => m.lifecycle.ledgerHits(5 as never), 'validation_failed'],
      ['graphCandidates(5)', () => m.lifecycle.graphCandidates(5 as never), 'validation_failed'],
      ['graphCandidates limit', () => m.lifecycle.graphCandidates('Dana', Number.NaN), 'validation_failed'],
      ['facts status', () => m.lifecycle.facts({ status: 'active' as never }), 'validation_failed'],
      ['recentEpisodes hours', () => m.cycle().recentEpisodes({ sinceHours: 'x' as never }), 'validation_failed'],
      ['recentEpisodes() runs', async () => assert.ok(Array.isArray(await m.cycle().recentEpisodes())), ''],
    ];
    for (const [what, call, code] of cases) {
      if (code === '') await call();
      else await assert.rejects(call(), refused(code), what);
    }
  } finally {
    const kept = m.lifecycle;
    await m.close();
    // A handle kept from before close refuses with the same code as the facade.
    await assert.rejects(kept.facts(), refused('unavailable'));
    await t.cleanup();
  }
});

test(named('engine settings a search would trip over are refused when the store opens, naming the setting'), async () => {
  const t = testStores();
  try {
    const cases: [Record<string, number>, string][] = [
      [{ graphListWeight: Number.NaN }, 'config.graphListWeight'],
      [{ graphListWeight: -1 }, 'config.graphListWeight'],
      [{ rrfK: -5 }, 'config.rrfK'],
      [{ rrfK: Number.POSITIVE_INFINITY }, 'config.rrfK'],
      [{ vectorMinSimilarity: 2 }, 'config.vectorMinSimilarity'],
      [{ previewTtlMs: 0 }, 'config.previewTtlMs'],
    ];
    for (const [config, field] of cases) {
      await assert.rejects(openMemory({ db: t.db, config }), (e) => MnemosError.is(e, 'validation_failed') && e.details?.['field'] === field, JSON.stringify(config));
    }
    // Sound settings open, and a zero graph weight is allowed (it leaves the graph list out of the ranking).
    const m = await openMemory({ db: t.db, config: { graphListWeight: 0, rrfK: 10 } });
    await m.remember({ text: 'a sound setting' });
    assert.equal((await m.search('sound')).hits.length, 1);
    await m.close();
  } finally {
    await t.cleanup();
  }
});

test(named("a guest's search explain carries no whole-namespace vector figures (they counted the owner's memories)"), () =>
  withMemory(async (m) => {
    for (let i = 0; i < 5; i++) await m.remember({ text: `owner private note number ${i}` });
    const query = 'zzqx nothing matches these words';
    const own = await m.search(query);
    assert.equal(own.explain.vectorIndex?.vectors, 5, 'the owner sees the figures');
    const guest = await m.as({ role: 'guest', namespace: 'default', id: 'visitor' }).search(query);
    assert.equal(guest.hits.length, 0);
    assert.equal(guest.explain.vectorIndex, null);
    assert.equal(guest.explain.visibleMemories, 0);
  }),
);

// A guest token made with --id owner read, edited and forgot owner-only memories.
test(named("a guest or agent token cannot take the owner's id or the engine's, and one id keeps one role"), () =>
  withMemory(async (m) => {
    const secret = await m.remember({ text: 'owner-only: the safe code is 5521', visibility: 'owner' });
    for (const [role, id] of [['guest', 'owner'], ['agent', 'owner'], ['guest', 'mnemos-lifecycle']] as const) {
      await assert.rejects(m.createToken({ role, principalId: id }), refused('validation_failed', /principalId/), `${role} as ${id}`);
    }
    await m.createToken({ role: 'owner', principalId: 'alice' });
    await assert.rejects(m.createToken({ role: 'guest', principalId: 'alice' }), refused('validation_failed', /principalId/));
    const guest = await m.createToken({ role: 'guest', principalId: 'visitor-1' });
    await m.revokeToken(guest.record.id);
    await assert.rejects(m.createToken({ role: 'owner', principalId: 'visitor-1' }), refused('validation_failed', /principalId/), 'a revoked guest id stays a guest id');
    // The same role may share an id (two devices of one guest), and ids nobody has are free.
    await m.createToken({ role: 'guest', principalId: 'visitor-1' });
    await m.createToken({ role: 'agent', principalId: 'helper-bot' });
    const tokens = await m.listTokens();
    assert.ok(!tokens.some((t) => t.role !== 'owner' && t.principalId === 'owner'));
    await assert.rejects(m.as({ role: 'guest', namespace: 'default', id: 'visitor-1' }).get(secret.id), refused('not_found'));
  }),
);

// The store-wide sequence number in a guest's history counted every namespace's writes between two looks.
test(named("a guest's history has no place in the store-wide audit chain (seq, prevHash, hash); the owner's has"), () =>
  withMemory(async (m) => {
    const guest = m.as({ role: 'guest', namespace: 'default', id: 'g1' });
    const mine = await guest.remember({ text: 'a guest note' });
    const h = await guest.history(mine.id);
    assert.ok(h.audit.length > 0);
    for (const e of h.audit) assert.deepEqual([e.seq, e.prevHash, e.hash], [undefined, undefined, undefined], JSON.stringify(e));
    const o = await m.history(mine.id);
    assert.ok(o.audit.every((e) => typeof e.seq === 'number' && typeof e.hash === 'string' && typeof e.prevHash === 'string'));
  }),
);

test(named('an id holding a NUL is the same clear refusal naming id on both backends, on every read and change by id'), () =>
  withMemory(async (m) => {
    const ok = await m.remember({ text: 'a memory to look up' });
    const bad = `${ok.id}\u0000`;
    // SQLite answered not_found and PostgreSQL a raw 22021 with no field: the same request, two answers.
    await assert.rejects(m.get('\u0000'), refused('validation_failed', /^id$/));
    await assert.rejects(m.get(bad), refused('validation_failed', /^id$/));
    await assert.rejects(m.history(bad), refused('validation_failed', /^id$/));
    await assert.rejects(m.forget(bad), refused('validation_failed', /^id$/));
    await assert.rejects(m.update(bad, { text: 'changed' }), refused('validation_failed', /^id$/));
    await assert.rejects(m.previewUpdate(bad, { text: 'changed' }), refused('validation_failed', /^id$/));
    await assert.rejects(m.get('half \ud800'), refused('validation_failed', /^id$/));
    // The tools (MCP, HTTP /v1/memories/:id) say the same.
    for (const name of ['memory_get', 'memory_history']) {
      await assert.rejects(runTool(findTool(TOOLS, name), { id: '\u0000' }, { memory: m, surfaceParts: [] }), refused('validation_failed', /^id$/), name);
    }
    assert.equal((await m.get(ok.id)).text, 'a memory to look up', 'nothing changed');
    await assert.rejects(m.get('no-such-id'), refused('not_found'));
  }),
);

test(named('a NUL in a fact key or id, a session to read or a token id is the same validation_failed on both backends'), () =>
  withMemory(async (m) => {
    const ctx = { memory: m, surfaceParts: [] };
    // Each was not_found (or a full answer) on SQLite and a raw PostgreSQL error naming no field.
    await assert.rejects(runTool(findTool(TOOLS, 'memory_pin'), { action: 'get', id: 'f\u0000' }, ctx), refused('validation_failed', /^id$/));
    await assert.rejects(runTool(findTool(TOOLS, 'memory_pin'), { action: 'retire', key: 'user.\u0000' }, ctx), refused('validation_failed', /^key$/));
    await assert.rejects(m.lifecycle.fact('user.\u0000'), refused('validation_failed', /keyOrId/));
    await assert.rejects(m.recallRange({ sessionId: 's\u0000' }), refused('validation_failed', /^sessionId$/));
    await assert.rejects(runTool(findTool(TOOLS, 'recall_range'), { sessionId: 's\u0000' }, ctx), refused('validation_failed', /sessionId/));
    await assert.rejects(m.revokeToken('t\u0000'), refused('validation_failed', /^id$/));
    await assert.rejects(m.lifecycle.fact('user.nowhere'), refused('not_found'));
  }),
);

/**
 * The library's options objects were read field by field: a misspelt key
 * was ignored (`consolidate({ forse: true })` ran unforced, `reindexGraph({
 * al: true })` re-indexed only stale memories) and any truthy value was a
 * yes (`consolidate({ force: 'no' })` forced a run). Each is refused, naming
 * the key, before anything runs.
 */
test(named('options objects refuse a key they do not take and a value of the wrong kind, naming it, and run nothing'), async () => {
  const t = testStores();
  const m = await openMemory({ db: t.db, config: { embeddings: { provider: 'off' } } });
  try {
    await m.remember({ text: 'Dana met Alice Smith in Lisbon' });
    const cases: [string, () => Promise<unknown>, string][] = [
      ['forse', () => m.consolidate({ forse: true } as never), 'consolidate options: forse is not an option; it takes force, extractor, onProgress, signal'],
      ['force', () => m.consolidate({ force: 'no' } as never), 'consolidate options: force must be a boolean, not "no"'],
      ['(input)', () => m.lifecycle.consolidate('force' as never), 'consolidate options must be an object of options'],
      ['al', () => m.lifecycle.reindexGraph({ al: true } as never), 'reindexGraph options: al is not an option'],
      ['all', () => m.lifecycle.reindexGraph({ all: 'yes' } as never), 'reindexGraph options: all must be a boolean, not "yes"'],
      ['limt', () => m.lifecycle.indexGraph({ limt: 5 } as never), 'indexGraph options: limt is not an option'],
      ['statuss', () => m.lifecycle.facts({ statuss: ['active'] } as never), 'facts options: statuss is not an option'],
      ['retrian', () => m.embedBackfill({ retrian: true } as never), 'embedBackfill options: retrian is not an option'],
      ['wait', () => m.prepareVectorIndex({ wait: 'no' } as never), 'prepareVectorIndex options: wait must be a boolean, not "no"'],
      ['expectedHead', () => m.verifyAudit({ expectedHead: { seq: 1, hash: 'x' } } as never), 'verifyAudit options: expectedHead is not an option; it takes onProgress, expectHead'],
    ];
    for (const [field, call, message] of cases) {
      await assert.rejects(call(), (e) => MnemosError.is(e, 'validation_failed') && (e.details?.['field'] === field || field === '(input)') && e.message.startsWith(message), field);
    }
    const status = await m.lifecycle.status();
    assert.equal(status.runs.length, 0, 'no consolidation ran');
    assert.equal(status.last, null);
  } finally {
    await m.close();
    await t.cleanup();
  }
});

/**
 * Each value of a list filter is one SQL parameter: 100,000 tags overflowed
 * the call stack while the statement was built (an internal RangeError), and
 * some tens of thousands pass SQLite's limit of parameters. At most 1,000 a
 * filter, refused naming it; 1,000 still run.
 */
test(named('a list filter of more than 1,000 values is refused naming the filter; 1,000 run'), () =>
  withMemory(async (m) => {
    const { id } = await m.remember({ text: 'tagged lantern', tags: ['t999'] });
    const tags = (n: number) => Array.from({ length: n }, (_, i) => `t${i}`);
    assert.deepEqual((await m.list({ filter: { tags: tags(1000) } })).items.map((x) => x.id), [id]);
    assert.deepEqual((await m.search({ query: 'lantern', filter: { tags: tags(1000) } })).hits.map((h) => h.memory.id), [id]);
    for (const n of [1001, 100_000]) {
      await assert.rejects(m.list({ filter: { tags: tags(n) } }), refused('validation_failed', /^filter\.tags$/), `list, ${n} tags`);
      await assert.rejects(m.search({ query: 'lantern', filter: { tags: tags(n) } }), refused('validation_failed', /^filter\.tags$/), `search, ${n} tags`);
    }
    await assert.rejects(m.list({ filter: { types: Array.from({ length: 100_000 }, () => 'fact' as const) } }), refused('validation_failed', /^filter\.types$/));
    await assert.rejects(m.list({ filter: { labels: tags(1001) } }), refused('validation_failed', /^filter\.labels$/));
  }),
);

/**
 * indexGraph's limit went to the store unchecked: 0, a negative number or
 * NaN indexed nothing and answered as a success (`graph index --limit 0`), and
 * 1.5 was SQLite's "datatype mismatch" (an internal error). entity's asOf was
 * refused naming "(input)" rather than the field.
 */
test(named('indexGraph refuses a limit that is not a whole number from 1, and entity names asOf'), () =>
  withMemory(async (m) => {
    await m.remember({ text: 'Alice Smith met Bob Jones in Paris' });
    for (const limit of [0, -5, Number.NaN, 1.5, Number.POSITIVE_INFINITY]) {
      await assert.rejects(m.lifecycle.indexGraph({ limit }), refused('validation_failed', /^limit$/), String(limit));
    }
    assert.equal((await m.lifecycle.entity('Alice Smith')).entities.length, 0, 'nothing was indexed');
    await assert.rejects(m.lifecycle.entity('Alice Smith', 'yesterday'), refused('validation_failed', /^asOf$/));
    assert.equal((await m.lifecycle.indexGraph({ limit: 1 })).memories, 1);
    assert.equal((await m.lifecycle.entity('Alice Smith', '2099-01-01+02:00')).entities.length, 1);
  }),
);

/** A bad line named its line in details but not its file (JSONL, transcripts): a caller importing several could not tell which. */
test(named('an import refused at a line names the file and the line in details, and writes nothing of it'), () =>
  withMemory(async (m, dir) => {
    const files = {
      'notes.jsonl': ['{"text":"first"}', '{"text":"second"', '{"text":"third"}'],
      'chat.jsonl': ['{"role":"user","content":"hi"}', '{"role":"user","content":null}'],
      'blank.jsonl': ['{"role":"user","content":"hi"}', '{"role":"user","content":" \\u200b "}'],
      'nul.md': ['# Notes', 'a NUL \u0000 here'],
    };
    for (const [name, lines] of Object.entries(files)) {
      const file = join(dir, name);
      writeFileSync(file, lines.join('\r\n') + '\r\n');
      await assert.rejects(m.import(file), (e: unknown) => {
        assert.ok(MnemosError.is(e, 'validation_failed'), String(e));
        assert.equal(e.details?.['line'], name === 'nul.md' ? 1 : 2, `${name}: ${e.message}`);
        assert.equal(e.details?.['path'], file);
        return true;
      });
    }
    assert.equal((await m.list()).items.length, 0, 'nothing of either file was written');
  }),
);
