import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { Journal } from '../../src/journal/journal.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';
import { openMemory, type Mnemos } from '../../src/surfaces/library/open-memory.ts';
import { named, sqliteOnly, testStores } from '../helpers/backend.ts';
import { tempDir } from '../helpers/temp.ts';
import { record, REFERENCE_EXAMPLE } from './helpers.ts';

const call = (memory: Mnemos, name: string, input: unknown) => runTool(findTool(TOOLS, name), input, { memory, surfaceParts: [] });

test(named('journal_query and journal_view read the engine journal (config journalPath), bounded and read-only'), async () => {
  const { dir, db, cleanup } = testStores();
  const journalPath = join(dir, 'j.metta');
  const m = await openMemory({ db, config: { journalPath } });
  try {
    for (const name of ['journal_query', 'journal_view']) {
      const tool = findTool(TOOLS, name);
      assert.equal(tool.readOnly, true);
      assert.equal(tool.ownerOnly, true);
    }
    // No journal yet: an empty answer with a message, not an error.
    const empty = (await call(m, 'journal_query', { by: 'about', value: 'parser' })) as { exists: boolean; clusters: unknown[]; message: string };
    assert.deepEqual([empty.exists, empty.clusters.length], [false, 0]);
    assert.match(empty.message, /no journal/);
    const emptyView = (await call(m, 'journal_view', { kind: 'prompt' })) as { text: string; message: string };
    assert.equal(emptyView.text, '');

    const journal = await Journal.open(journalPath);
    await journal.appendMany([REFERENCE_EXAMPLE, record('mc-2', 'c-2', ['(CommitmentText c-2 "write the docs")', '(About c-2 docs)', '(HasStatus c-2 active)'])]);

    const q = (await call(m, 'journal_query', { by: 'status', value: 'active' })) as { count: number; clusters: Array<{ id: string; text: string }> };
    assert.deepEqual(q.clusters.map((c) => c.id), ['mc-2026-11-29-standup', 'mc-2']);
    assert.equal(q.clusters[0]!.text, REFERENCE_EXAMPLE);
    const one = (await call(m, 'journal_query', { by: 'status', value: 'active', limit: 1 })) as { count: number; more: boolean; message?: string };
    assert.equal(one.count, 1);
    assert.equal(one.more, true, 'the limit left one out, and says so');
    assert.match(one.message ?? '', /more than 1 clusters match/);
    assert.equal(((await call(m, 'journal_query', { by: 'status', value: 'active', limit: 2 })) as { more: boolean }).more, false);

    const v = (await call(m, 'journal_view', { kind: 'prompt', topics: ['docs'], maxChars: 200 })) as { text: string; chars: number };
    assert.match(v.text.split('\n')[0]!, /c-2/);
    assert.ok(v.chars <= 200);
    const audit = (await call(m, 'journal_view', { kind: 'audit' })) as { text: string; truncated: boolean; shown: number };
    assert.ok(audit.text.startsWith(REFERENCE_EXAMPLE));
    assert.deepEqual([audit.truncated, audit.shown], [false, 2]);
    // A budget smaller than a record gives no text, and says that is the budget, not an empty journal.
    const cut = (await call(m, 'journal_view', { kind: 'audit', maxChars: 100 })) as { text: string; truncated: boolean; shown: number; clusters: number; message?: string };
    assert.deepEqual([cut.text, cut.truncated, cut.shown, cut.clusters], ['', true, 0, 2]);
    assert.match(cut.message ?? '', /cut at maxChars 100: 0 records shown/);

    // Caps: the schema refuses what would flood a context window.
    await assert.rejects(call(m, 'journal_query', { by: 'id', value: 'x', limit: 51 }), /limit/);
    await assert.rejects(call(m, 'journal_view', { kind: 'audit', maxChars: 20_001 }), /maxChars/);
    await assert.rejects(call(m, 'journal_view', { kind: 'audit', maxChars: -1 }), /maxChars/);
    await assert.rejects(call(m, 'journal_query', { by: 'colour', value: 'x' }), /by/);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('the journal is owner data: guests and agents get forbidden (403) from the tools and the facade'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    for (const role of ['guest', 'agent'] as const) {
      const other = m.as({ role, namespace: 'default', id: `${role}-1`, agentId: 'a1' });
      for (const [name, input] of [['journal_query', { by: 'id', value: 'x' }], ['journal_view', { kind: 'prompt' }]] as const) {
        await assert.rejects(call(other, name, input), (err: Error & { code?: string }) => err.code === 'forbidden' && /owner only/.test(err.message));
      }
      await assert.rejects(other.journalQuery({ by: 'id', value: 'x' }), (err: Error & { code?: string }) => err.code === 'forbidden');
    }
  } finally {
    await m.close();
    await cleanup();
  }
});

// The default journal path is a rule about SQLite files (a server database keeps it in ./.mnemos), so this stays SQLite-only.
test('default journal path sits next to the SQLite file; self_state reports the bridge flags and the setting that changes them', sqliteOnly('the journal sits beside the store file'), async () => {
  const { dir, cleanup } = tempDir();
  mkdirSync(join(dir, 'store'));
  const m = await openMemory({ db: join(dir, 'store', 'm.db') });
  const on = await openMemory({ db: join(dir, 'on.db'), config: { journalBridge: { promptViewReads: true } } });
  try {
    assert.equal(m.journalPath, join(dir, 'store', 'journal.metta'));
    const parts = (await call(m, 'self_state', {})) as { parts: Array<{ part: string; state: string; setting: string | null; why: string }> };
    const byName = new Map(parts.parts.map((p) => [p.part, p]));
    assert.equal(byName.get('journal_prompt_view')!.state, 'off');
    assert.match(byName.get('journal_prompt_view')!.setting!, /journalBridge\.promptViewReads/);
    assert.equal(byName.get('journal_index_view')!.state, 'off');
    assert.equal(byName.get('journal_autonomous_writes')!.state, 'off');
    assert.equal(byName.get('journal_autonomous_writes')!.setting, null);
    assert.match(byName.get('journal_autonomous_writes')!.why, /cannot be enabled/);

    const onParts = on.selfState().parts;
    assert.equal(onParts.find((p) => p.part === 'journal_prompt_view')!.state, 'on');

    // The bridge follows the same flags: off gives an empty fragment, on a read-only envelope.
    writeFileSync(join(dir, 'store', 'journal.metta'), REFERENCE_EXAMPLE);
    writeFileSync(join(dir, 'journal.metta'), REFERENCE_EXAMPLE);
    assert.equal((await m.journalBridge()).promptViewMetta(), '');
    const envelope = (await on.journalBridge()).promptViewMetta();
    assert.match(envelope, /\(PromptViewMode oc-prompt-memory-view read-only\)/);
    assert.match(envelope, /ship the parser by Friday/);
    assert.equal((await on.journalBridge()).indexViewMetta(), '');
    const bridge = await on.journalBridge();
    assert.throws(() => bridge.appendFromAgent(REFERENCE_EXAMPLE), (err: Error & { code?: string }) => err.code === 'forbidden');
    // Asking for autonomous writes through config is a clear error, never a silent downgrade.
    const writer = await openMemory({ db: join(dir, 'w.db'), config: { journalBridge: { autonomousWrites: true } as never } });
    try {
      await assert.rejects(writer.journalBridge(), (err: Error & { code?: string }) => err.code === 'forbidden' && /cannot be enabled/.test(err.message));
      assert.equal(writer.selfState().parts.find((p) => p.part === 'journal_autonomous_writes')!.state, 'off');
    } finally {
      await writer.close();
    }
  } finally {
    await m.close();
    await on.close();
    cleanup();
  }
});

// The owner of a second namespace read the first namespace's journal (owner-only memory text included),
// and on PostgreSQL every schema served from one directory shared ./.mnemos/journal.metta.
test(named('each namespace, and each server database, has its own engine journal'), async () => {
  const stores = testStores();
  const cwd = process.cwd();
  process.chdir(stores.dir); // a server database keeps its journals in ./.mnemos
  const m = await openMemory({ db: stores.db });
  const other = m.as({ role: 'owner', namespace: 'other', id: 'owner' });
  const second = await openMemory({ db: stores.store('second.db') });
  try {
    assert.notEqual(m.journalPath, other.journalPath);
    if (stores.db.includes('://')) assert.notEqual(m.journalPath, second.journalPath, 'two server databases served from one directory');
    // SQLite files in one folder keep sharing journal.metta (the folder's owner owns both; its documented name stays).
    else assert.equal(other.journalPath, join(stores.dir, 'journal.other.metta'));
    mkdirSync(join(m.journalPath, '..'), { recursive: true });
    writeFileSync(m.journalPath, REFERENCE_EXAMPLE);
    assert.ok((await call(m, 'journal_query', { by: 'about', value: 'parser' }) as { count: number }).count > 0);
    for (const reader of stores.db.includes('://') ? [other, second] : [other]) {
      const q = (await call(reader, 'journal_query', { by: 'about', value: 'parser' })) as { count: number; exists: boolean };
      assert.deepEqual([q.exists, q.count], [false, 0]);
      const v = (await call(reader, 'journal_view', { kind: 'audit' })) as { text: string };
      assert.equal(v.text, '');
    }
    const path = other.selfState().parts.find((p) => p.part === 'journal_prompt_view')!.why;
    assert.ok(path.includes(other.journalPath), path);
  } finally {
    await m.close();
    await second.close();
    process.chdir(cwd);
    await stores.cleanup();
  }
});

test(named('an engine journalPath that is a folder is refused by name, not unavailable'), async () => {
  const { dir, db, cleanup } = testStores();
  const journalPath = join(dir, 'journals');
  mkdirSync(journalPath);
  const m = await openMemory({ db, config: { journalPath } });
  try {
    for (const [name, input] of [['journal_query', { by: 'about', value: 'x' }], ['journal_view', { kind: 'audit' }]] as const) {
      await assert.rejects(call(m, name, input), (e: unknown) => MnemosError.is(e, 'validation_failed') && e.details?.path === journalPath && /it is a folder/.test(e.message), name);
    }
  } finally {
    await m.close();
    await cleanup();
  }
});
