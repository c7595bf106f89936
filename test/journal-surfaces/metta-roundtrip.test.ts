import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseClusters } from '../../src/journal/parse-clusters.ts';
import { clusterProblems } from '../../src/journal/validate.ts';
import { detectFormat } from '../../src/services/import/import-file.ts';
import { openMemory, type Mnemos } from '../../src/surfaces/library/open-memory.ts';
import { named, testStores } from '../helpers/backend.ts';
import { REFERENCE_EXAMPLE, run, runJson } from './helpers.ts';

async function exportText(m: Mnemos): Promise<string> {
  let text = '';
  await m.exportMetta((t) => void (text += t));
  return text;
}

/** Memories that exercise every field the export carries: versions, goals, metadata, odd text. */
async function fill(m: Mnemos): Promise<void> {
  const first = await m.remember({ text: 'Caroline went to the support group on 7 May 2023', type: 'episode', tags: ['support', 'two words'], metadata: { mood: 'good', n: [1, 2] }, key: 'chat:1#4' });
  await m.update(first.id, { text: 'Caroline went to the LGBTQ support group on 7 May 2023' });
  await m.remember({ text: 'ship the parser by Friday', type: 'goal', salience: 0.7, importance: 0.9, tags: ['parser'], labels: ['SafetyAudit'], sessionId: 's-1', agentId: 'agent-7', readOnly: true });
  await m.remember({ text: 'quotes " and \\ backslashes\nand a new line, unicode: café 🚀', type: 'fact', validFrom: '2020-01-01T00:00:00Z', validTo: '2021-01-01T00:00:00Z', expiresAt: '2030-01-01T00:00:00Z', visibility: 'public' });
}

test(named('metta round trip: export -> import into an empty store -> export gives identical MeTTa text'), async () => {
  const { dir, store, cleanup } = testStores();
  const a = await openMemory({ db: store('a.db') });
  const b = await openMemory({ db: store('b.db') });
  try {
    await fill(a);
    const text = await exportText(a);
    const clusters = parseClusters(text);
    assert.equal(clusters.length, 4, 'every version, superseded ones included');
    const declared = new Set<string>();
    for (const c of clusters) assert.deepEqual(clusterProblems(c, { isKnownId: (id) => declared.has(id) }), [], `${c.id} is a valid record`);
    assert.match(text, /\(Commitment m-[0-9A-Z]+\)/, 'goals stay petta-memory Commitments');
    assert.match(text, /\(MemorySupersededBy m-/);

    const file = join(dir, 'memories.metta');
    writeFileSync(file, text);
    assert.equal(detectFormat(file, text), 'metta');
    const imported = await b.import(file);
    assert.deepEqual({ created: imported.created, format: imported.format }, { created: 4, format: 'metta' });
    assert.equal(await exportText(b), text);
    // Idempotent: the same file again changes nothing.
    const again = await b.import(file);
    assert.deepEqual({ created: again.created, unchanged: again.unchanged, superseded: again.superseded }, { created: 0, unchanged: 4, superseded: 0 });
    assert.equal(await exportText(b), text);
    // The restored memories are the same records, version chain included.
    const strip = (x: { contentHash: string }) => x;
    assert.deepEqual((await b.list({})).items.map(strip), (await a.list({})).items.map(strip));
  } finally {
    await a.close();
    await b.close();
    await cleanup();
  }
});

test(named('metta export refuses, naming the memory, when a memory does not fit a record; nothing is written'), async () => {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    await m.remember({ text: 'small one' });
    const big = await m.remember({ text: 'x'.repeat(5000) });
    let written = '';
    await assert.rejects(m.exportMetta((t) => void (written += t)), (err: Error & { code?: string }) => {
      assert.equal(err.code, 'limit_exceeded');
      assert.match(err.message, new RegExp(`memory ${big.id}`));
      assert.match(err.message, /--format jsonl/);
      return true;
    });
    assert.equal(written, '', 'validated before the first write');
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('a foreign petta-memory journal imports through the remember path, keyed by cluster and subject'), async () => {
  const { dir, db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    const file = join(dir, 'standup.metta');
    writeFileSync(file, REFERENCE_EXAMPLE);
    const r = await m.import(file);
    assert.equal(r.created, 1);
    const [goal] = (await m.list({})).items;
    assert.equal(goal!.text, 'ship the parser by Friday');
    assert.equal(goal!.type, 'goal');
    assert.equal(goal!.sourceKey, 'metta:mc-2026-11-29-standup#c-ship-parser');
    assert.deepEqual(goal!.tags, ['parser']);
    assert.equal(goal!.validFrom, '2026-11-29T09:00:00.000Z');
    assert.equal((await m.import(file)).unchanged, 1, 're-import is idempotent');

    writeFileSync(file, REFERENCE_EXAMPLE.replace('(Contains', '(EvidenceSupportCount mc-2026-11-29-standup -1)\n(Contains'));
    await assert.rejects(m.import(file), /EvidenceSupportCount/);
  } finally {
    await m.close();
    await cleanup();
  }
});

test(named('the CLI: mnemos export --format metta --out, then mnemos import into a fresh store, gives the same file'), async () => {
  const { dir, db, store, cleanup } = testStores();
  const fresh = store('fresh.db');
  try {
    assert.equal((await run(dir, 'add', 'remember the milk', '--type', 'goal', '--tag', 'shopping', '--db', db)).code, 0);
    assert.equal((await run(dir, 'add', 'Melanie painted a sunrise in 2022', '--type', 'episode', '--db', db)).code, 0);
    const out = await runJson(dir, 'export', '--format', 'metta', '--out', 'one.metta', '--db', db);
    assert.equal(out.code, 0, out.stderr);
    assert.equal(out.body.memories, 2);
    const stdout = await run(dir, 'export', '--format', 'metta', '--db', db);
    assert.equal(stdout.stdout, readFileSync(join(dir, 'one.metta'), 'utf8'));
    const imp = await runJson(dir, 'import', 'one.metta', '--db', fresh);
    assert.equal(imp.code, 0, imp.stderr);
    assert.equal(imp.body.total.created, 2);
    assert.equal((await run(dir, 'export', '--format', 'metta', '--out', 'two.metta', '--db', fresh)).code, 0);
    assert.equal(readFileSync(join(dir, 'two.metta'), 'utf8'), readFileSync(join(dir, 'one.metta'), 'utf8'));
    // The export is a journal: it appends as is and answers journal queries (goals are Commitments).
    assert.equal((await run(dir, 'journal', 'append', 'mem-journal.metta', 'one.metta')).code, 0);
    const goals = await runJson(dir, 'journal', 'query', 'mem-journal.metta', '--by', 'type', '--value', 'Commitment');
    assert.equal(goals.body.count, 1);
    assert.match(goals.body.clusters[0].text, /\(CommitmentText m-[0-9A-Z]+ "remember the milk"\)/);
    assert.match((await runJson(dir, 'journal', 'view', 'mem-journal.metta', '--kind', 'prompt', '--topic', 'shopping')).body.text, /remember the milk/);

    assert.equal((await run(dir, 'add', 'y'.repeat(4500), '--db', db)).code, 0);
    const refused = await run(dir, 'export', '--format', 'metta', '--out', 'three.metta', '--db', db);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /cannot be exported as a MemoryCluster without losing data/);
    assert.equal(existsSync(join(dir, 'three.metta')), false, 'no partial file');
  } finally {
    await cleanup();
  }
});
