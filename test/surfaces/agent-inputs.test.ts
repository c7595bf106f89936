import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';

/**
 * Inputs an agent sends through the tools (MCP, /v1/tools) that were taken
 * without a word although they could only be a mistake: each is refused,
 * naming the field, and nothing changes.
 */

const refused = (code: string, field: RegExp, message?: RegExp) => (err: unknown) => {
  assert.ok(MnemosError.is(err), `expected a MnemosError, got ${String(err)}`);
  assert.equal(err.code, code, err.message);
  assert.match(String(err.details?.field ?? ''), field, err.message);
  if (message) assert.match(err.message, message);
  return true;
};

async function withMemory<T>(run: (m: Awaited<ReturnType<typeof openMemory>>) => Promise<T>): Promise<T> {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    return await run(m);
  } finally {
    await m.close();
    await t.cleanup();
  }
}

const tool = (m: Awaited<ReturnType<typeof openMemory>>, name: string, input: unknown) => runTool(findTool(TOOLS, name), input, { memory: m, surfaceParts: [] });

test(named('memory_pin refuses a blank value, and the ledger keeps no fact for it'), () =>
  withMemory(async (m) => {
    for (const value of ['   ', '\n\t', '\u200b']) {
      await assert.rejects(tool(m, 'memory_pin', { action: 'pin', key: 'user.city', value }), refused('validation_failed', /^value$/, /blank/));
    }
    await assert.rejects(m.lifecycle.pin({ key: 'user.city', value: '  ' }), refused('validation_failed', /^value$/));
    assert.deepEqual(((await tool(m, 'memory_pin', { action: 'list' })) as { facts: unknown[] }).facts, []);
    // A value with words around spaces is a value.
    const ok = (await tool(m, 'memory_pin', { action: 'pin', key: 'user.city', value: ' Lisbon ' })) as { status: string };
    assert.equal(ok.status, 'added');
  }),
);

test(named('memory_pin refuses fields its action does not read instead of dropping them'), () =>
  withMemory(async (m) => {
    await tool(m, 'memory_pin', { action: 'pin', key: 'user.city', value: 'Lisbon' });
    await tool(m, 'memory_pin', { action: 'pin', key: 'user.pet', value: 'cat' });
    const city = (await tool(m, 'memory_pin', { action: 'get', key: 'user.city' })) as { id: string };
    // list {key} listed every fact as if filtered by it.
    await assert.rejects(tool(m, 'memory_pin', { action: 'list', key: 'user.city' }), refused('validation_failed', /^key$/, /list does not take key/));
    // get {key, id} answered the id's fact whatever the key named; retire {key, id} would retire it.
    await assert.rejects(tool(m, 'memory_pin', { action: 'get', key: 'user.pet', id: city.id }), refused('validation_failed', /^id$/, /not both/));
    await assert.rejects(tool(m, 'memory_pin', { action: 'retire', key: 'user.pet', id: city.id }), refused('validation_failed', /^id$/, /not both/));
    await assert.rejects(tool(m, 'memory_pin', { action: 'get', key: 'user.city', value: 'Porto' }), refused('validation_failed', /^value$/));
    await assert.rejects(tool(m, 'memory_pin', { action: 'pin', key: 'user.city', value: 'Porto', id: city.id }), refused('validation_failed', /^id$/));
    await assert.rejects(tool(m, 'memory_pin', { action: 'confirm', id: 'x', key: 'user.city' }), refused('validation_failed', /^key$/));
    // Nothing changed: both facts are active with their values.
    const facts = ((await tool(m, 'memory_pin', { action: 'list' })) as { facts: { key: string; value: string; status: string }[] }).facts;
    assert.deepEqual(facts.map((f) => [f.key, f.value, f.status]).sort(), [['user.city', 'Lisbon', 'active'], ['user.pet', 'cat', 'active']]);
  }),
);

test(named('a blank query is refused by memory_search, memory_context and deep_recall, as an empty one was'), () =>
  withMemory(async (m) => {
    await m.remember({ text: 'the deploy key lives in the vault' });
    await m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'where is the deploy key?' }] });
    for (const query of ['   ', '\n', '\u200b\u200b']) {
      for (const name of ['memory_search', 'memory_context', 'deep_recall']) {
        await assert.rejects(tool(m, name, { query }), refused('validation_failed', /^query$/, /blank/), `${name} ${JSON.stringify(query)}`);
      }
      await assert.rejects(m.search({ query }), refused('validation_failed', /^query$/));
    }
    // A query with words is searched as before.
    const r = (await tool(m, 'memory_search', { query: ' deploy key ' })) as { results: unknown[] };
    assert.ok(r.results.length >= 1);
  }),
);

test(named("deep_recall names its own sessionId field when the session id cannot be stored"), () =>
  withMemory(async (m) => {
    await m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'where is the deploy key?' }] });
    // It was refused by the search inside as filter.sessionId, a field deep_recall does not take.
    for (const sessionId of ['s\u0000', 's\ud800']) {
      await assert.rejects(tool(m, 'deep_recall', { query: 'deploy', scope: 'current_session', sessionId }), refused('validation_failed', /^sessionId$/));
    }
    const r = (await tool(m, 'deep_recall', { query: 'deploy', scope: 'current_session', sessionId: 's1' })) as { hits: unknown[] };
    assert.equal(r.hits.length, 1);
  }),
);

test(named('a memory_edit confirm does what its preview showed, or refuses: a lifecycle moved in place since is a conflict'), () =>
  withMemory(async (m) => {
    const note = (await tool(m, 'working_memory_note', { note: 'deploy with make release' })) as { id: string };
    const preview = (await tool(m, 'memory_edit', { id: note.id, changes: { type: 'skill' } })) as { preview: { token: string; changes: { field: string; to: unknown }[] } };
    assert.deepEqual(
      preview.preview.changes.map((c) => [c.field, c.to]),
      [['type', 'skill'], ['lifecycle', 'frozen']],
    );
    // Consolidation archives a memory in place, with no new version, between the preview and the confirm.
    await m.store.apply(m.principal, [{ kind: 'lifecycle', id: note.id, from: 'generated', to: 'archived', reason: 'owner' }]);
    // The confirm made an archived skill, not the frozen one the preview showed.
    await assert.rejects(tool(m, 'memory_edit', { token: preview.preview.token }), refused('conflict', /^lifecycle$/, /preview the edit again/));
    const kept = await m.get(note.id);
    assert.equal(kept.supersededBy, null, 'no new version');
    assert.equal(kept.type, 'general');
    // Previewed again, it shows what it would do now, and that is what its confirm does.
    const again = (await tool(m, 'memory_edit', { id: note.id, changes: { type: 'skill' } })) as { preview: { token: string; changes: { field: string }[] } };
    assert.deepEqual(again.preview.changes.map((c) => c.field), ['type']);
    const done = (await tool(m, 'memory_edit', { token: again.preview.token })) as { id: string };
    const now = await m.history(done.id);
    const last = now.versions.at(-1)!;
    assert.deepEqual([last.type, last.lifecycle], ['skill', 'archived']);
    // A recall between preview and confirm (it activates the memory in place) changes nothing the preview showed.
    const text = (await tool(m, 'memory_edit', { id: done.id, changes: { text: 'deploy with make ship' } })) as { preview: { token: string } };
    await tool(m, 'memory_get', { id: done.id });
    const applied = (await tool(m, 'memory_edit', { token: text.preview.token })) as { version: number };
    assert.equal(applied.version, 3);
  }),
);

test(named('memory_forget refuses a reason given with the confirm token instead of dropping it, and forgets nothing'), () =>
  withMemory(async (m) => {
    const note = (await tool(m, 'working_memory_note', { note: 'the old office door code' })) as { id: string };
    const preview = (await tool(m, 'memory_forget', { id: note.id, reason: 'outdated' })) as { preview: { token: string } };
    // The tombstone kept "outdated" and the confirm said nothing of the reason it was given.
    await assert.rejects(tool(m, 'memory_forget', { token: preview.preview.token, reason: 'the user asked' }), refused('validation_failed', /^reason$/, /step 1/));
    assert.equal((await m.get(note.id)).text, 'the old office door code', 'nothing was forgotten');
    // The token was not spent by the refusal: the confirm alone forgets, with the preview's reason.
    await tool(m, 'memory_forget', { token: preview.preview.token });
    assert.equal((await m.history(note.id)).tombstone?.reason, 'outdated');
  }),
);

test(named('memory_get refuses from and lines with an id (they read a source file by path) instead of answering the whole memory'), () =>
  withMemory(async (m) => {
    const note = (await tool(m, 'working_memory_note', { note: 'line one\nline two\nline three' })) as { id: string };
    await assert.rejects(tool(m, 'memory_get', { id: note.id, from: 2 }), refused('validation_failed', /^from$/, /path/));
    await assert.rejects(tool(m, 'memory_get', { id: note.id, lines: 1 }), refused('validation_failed', /^lines$/, /path/));
    // The refusal is no recall: the memory was not read.
    assert.equal((await m.get(note.id)).accessCount, 0);
    const whole = (await tool(m, 'memory_get', { id: note.id })) as { memory: { text: string } };
    assert.equal(whole.memory.text, 'line one\nline two\nline three');
  }),
);

test(named('journal_view refuses topics and statuses with a view other than prompt, which ignored them'), () =>
  withMemory(async (m) => {
    await assert.rejects(tool(m, 'journal_view', { kind: 'audit', topics: ['docs'] }), refused('validation_failed', /^topics$/, /prompt view only/));
    await assert.rejects(tool(m, 'journal_view', { kind: 'index', statuses: ['active'] }), refused('validation_failed', /^statuses$/, /prompt view only/));
    const prompt = (await tool(m, 'journal_view', { kind: 'prompt', topics: ['docs'], statuses: ['active'] })) as { kind: string };
    assert.equal(prompt.kind, 'prompt');
  }),
);

test(named('a blank session id or key is refused on write (POST /v1/transcripts, /v1/memories), naming the field, and nothing is stored'), () =>
  withMemory(async (m) => {
    for (const blank of ['   ', '\t', '\u200b']) {
      await assert.rejects(m.ingestTranscript({ sessionId: blank, messages: [{ role: 'user', content: 'hello' }] }), refused('validation_failed', /^sessionId$/, /blank/));
      await assert.rejects(m.remember({ text: 'a note', sessionId: blank }), refused('validation_failed', /^sessionId$/, /blank/));
      await assert.rejects(m.remember({ text: 'a note', key: blank }), refused('validation_failed', /^key$/, /blank/));
      await assert.rejects(m.rememberMany([{ text: 'fine', key: 'k1' }, { text: 'a note', key: blank }]), refused('validation_failed', /key/));
    }
    assert.equal((await m.list()).total, 0, 'nothing was stored');
    // Names with words are names, spaces inside included.
    await m.ingestTranscript({ sessionId: 'team sync', messages: [{ role: 'user', content: 'hello' }] });
    await m.remember({ text: 'a note', key: ' note 1 ' });
    assert.equal((await m.list()).total, 2);
  }),
);
