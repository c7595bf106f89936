/**
 * Re-indexing the knowledge graph under the current extraction rules: a
 * memory indexed under older rules (simulated by writing what they found
 * through the store, recorded under rules version 0) gets the current rules'
 * findings instead, and nothing of another memory's evidence changes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { EXTRACTION_RULES_VERSION } from '../../src/graph/extract-rules.ts';
import { MIGRATIONS } from '../../src/adapters/sqlite/migrations.ts';
import { PG_MIGRATIONS } from '../../src/adapters/postgres/migrations.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Memory } from '../../src/domain/memory.ts';
import { normalizeName } from '../../src/domain/name-keys.ts';
import { openMemory, type Mnemos } from '../../src/index.ts';
import type { EntityRecord, GraphWrite, RelationRecord } from '../../src/ports/lifecycle.ts';
import { lifecycleStore } from './helpers.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';
import { stopChild, waitForExit, waitForOutput } from '../helpers/child-wait.ts';

/** What an older release's rules found in `m`: these names (and a relation between two of them), recorded under rules version 0. */
async function oldExtraction(mem: Mnemos, m: Memory, names: string[], relation?: [string, string, string]): Promise<EntityRecord[]> {
  const scope = { namespace: m.namespace, ownerId: m.ownerId, agentId: m.agentId, visibility: m.visibility };
  const entities = names.map((name): EntityRecord => ({ ...scope, id: newId(), name, norm: normalizeName(name), type: 'name', aliases: [], firstSeen: m.validFrom, lastSeen: m.validFrom, mentions: 1 }));
  const w: GraphWrite = {
    upsertEntities: entities,
    insertRelations: [],
    closeRelations: [],
    evidence: entities.map((e) => ({ entityId: e.id, relationId: null, lineageId: m.lineageId, memoryId: m.id, mention: e.name, norm: e.norm })),
    indexed: [{ memoryId: m.id, lineageId: m.lineageId }],
    rulesVersion: 0,
  };
  if (relation) {
    const [s, predicate, o] = relation;
    const rel: RelationRecord = {
      ...scope,
      id: newId(),
      subjectId: entities.find((e) => e.name === s)!.id,
      predicate,
      objectId: entities.find((e) => e.name === o)!.id,
      validFrom: m.validFrom,
      validTo: null,
      recordedAt: m.recordedAt,
      supersededBy: null,
      confidence: 0.6,
    };
    w.insertRelations.push(rel);
    w.evidence.push({ entityId: null, relationId: rel.id, lineageId: m.lineageId, memoryId: m.id, mention: null, norm: null });
  }
  await mem.store.graph!.write(mem.principal, w);
  return entities;
}

const evidenceOf = async (db: string, memoryId: string) =>
  JSON.stringify(await rawSql(db, 'SELECT entity_id, relation_id, lineage_id, mention, norm FROM graph_evidence WHERE memory_id = ? ORDER BY entity_id, relation_id, mention', memoryId));

test(named('a memory indexed under older rules is indexed again: its junk entity goes, the right one comes, other evidence stays, guests stay scoped'), async () => {
  const s = await lifecycleStore();
  try {
    const guest = s.m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
    const a = await s.m.get((await s.m.remember({ text: '## Team\nAlice Smith works at Initech Labs; the board trusts Smith' })).id);
    const b = await s.m.get((await s.m.remember({ text: 'Omar Haddad reviewed the budget with Alice Smith' })).id);
    const g = await s.m.get((await s.m.remember({ text: '## Talks\nAlice Smith gave the keynote', visibility: 'public' })).id);
    // The old rules joined a heading to the next line's name, and (say) found Omar Haddad in A too.
    const old = await oldExtraction(s.m, a, ['Team Alice Smith', 'Initech Labs', 'Omar Haddad'], ['Team Alice Smith', 'works_at', 'Initech Labs']);
    await oldExtraction(s.m, g, ['Talks Alice Smith']);
    assert.equal((await s.m.lifecycle.indexGraph()).memories, 1, 'only B was not indexed yet');
    const initechId = old.find((e) => e.name === 'Initech Labs')!.id;
    assert.equal((await s.m.lifecycle.entity('Team Alice Smith')).entities.length, 1);
    assert.equal((await guest.lifecycle.entity('Talks Alice Smith')).entities.length, 1, 'the public junk is visible to a guest before');
    const bEvidence = await evidenceOf(s.db, b.id);

    await assert.rejects(guest.lifecycle.reindexGraph(), (e: { code?: string }) => e.code === 'forbidden');
    const r = await s.m.lifecycle.reindexGraph();
    assert.deepEqual(
      { ...r },
      { memories: 2, entitiesCreated: 1, entitiesRemoved: 2, mentions: 4, mentionsRemoved: 4, relationsAdded: 1, relationsClosed: 0, relationsRemoved: 1, rulesVersion: EXTRACTION_RULES_VERSION, all: false },
      'A and G again: the public Alice Smith is new, both junk names go with the junk relation',
    );

    assert.deepEqual((await s.m.lifecycle.entity('Team Alice Smith')).entities, []);
    assert.deepEqual((await s.m.lifecycle.entity('Talks Alice Smith')).entities, []);
    const alice = (await s.m.lifecycle.entity('Alice Smith')).entities.find((v) => v.entity.visibility === 'owner')!;
    assert.deepEqual([...alice.memoryIds].sort(), [a.id, b.id].sort(), 'A now evidences the Alice Smith B named');
    // "Smith" is Alice Smith's surname: the junk "Team Alice Smith", set aside, did not make it ambiguous (a new entity).
    assert.equal(alice.entity.mentions, 3);
    assert.deepEqual(alice.entity.aliases, ['Smith']);
    assert.deepEqual(
      alice.relations.map((x) => [x.subject, x.predicate, x.object, x.holds]),
      [['Alice Smith', 'works_at', 'Initech Labs', true]],
    );
    const initech = (await s.m.lifecycle.entity('Initech Labs')).entities;
    assert.deepEqual(initech.map((v) => [v.entity.id, v.entity.mentions, v.memoryIds]), [[initechId, 1, [a.id]]], 'found again, the entity keeps its id');
    // Omar Haddad is no longer found in A, and B's evidence keeps him.
    const omar = (await s.m.lifecycle.entity('Omar Haddad')).entities;
    assert.deepEqual(omar.map((v) => [v.entity.mentions, v.memoryIds]), [[1, [b.id]]]);
    assert.equal(await evidenceOf(s.db, b.id), bEvidence, "B's evidence rows are as they were");

    // The guest sees the public Alice Smith, from G only, and nothing of the owner's.
    const seen = (await guest.lifecycle.entity('Alice Smith')).entities;
    assert.deepEqual(seen.map((v) => [v.entity.visibility, v.memoryIds]), [['public', [g.id]]]);
    assert.deepEqual((await guest.lifecycle.entity('Talks Alice Smith')).entities, []);
    assert.deepEqual((await guest.lifecycle.entity('Omar Haddad')).entities, []);
    assert.deepEqual((await guest.lifecycle.entity('Initech Labs')).entities, []);

    const versions = (await rawSql(s.db, 'SELECT DISTINCT rules_version AS v FROM graph_indexed')).map((x) => Number(x.v));
    assert.deepEqual(versions, [EXTRACTION_RULES_VERSION]);
    assert.equal((await s.m.lifecycle.reindexGraph()).memories, 0, 'a second run finds nothing stale');

    // --all indexes every memory again, current rules or not: no entity is made or lost (ids kept).
    const ids = JSON.stringify(await rawSql(s.db, 'SELECT id FROM graph_entities ORDER BY id'));
    const all = await s.m.lifecycle.reindexGraph({ all: true });
    assert.deepEqual([all.memories, all.entitiesCreated, all.entitiesRemoved, all.all], [3, 0, 0, true]);
    assert.equal(JSON.stringify(await rawSql(s.db, 'SELECT id FROM graph_entities ORDER BY id')), ids);
    // (B's "Alice Smith" now also gives "Smith", a name the store learnt from A.) Run again, it changes nothing.
    const before = JSON.stringify(await rawSql(s.db, 'SELECT id, name, norm, mentions, visibility FROM graph_entities ORDER BY id'));
    const bAll = await evidenceOf(s.db, b.id);
    const again = await s.m.lifecycle.reindexGraph({ all: true });
    assert.deepEqual([again.memories, again.entitiesCreated, again.entitiesRemoved, again.mentions], [3, 0, 0, again.mentionsRemoved]);
    assert.equal(JSON.stringify(await rawSql(s.db, 'SELECT id, name, norm, mentions, visibility FROM graph_entities ORDER BY id')), before);
    assert.equal(await evidenceOf(s.db, b.id), bAll);
  } finally {
    await s.close();
  }
});

test(named('re-indexing in slices: an entity set aside in one slice is found again in a later one, counts stay exact'), async () => {
  const s = await lifecycleStore();
  try {
    const ms: Memory[] = [];
    for (const t of ['## Team\nNadia Rahman runs the lab', 'Nadia Rahman met Tom Berg', '## Notes\nTom Berg likes tea']) ms.push(await s.m.get((await s.m.remember({ text: t })).id));
    // One memory a slice, in id order, whichever that is: each slice sets aside the entities only it evidences.
    await oldExtraction(s.m, ms[0]!, ['Team Nadia Rahman']);
    await oldExtraction(s.m, ms[1]!, ['Nadia Rahman', 'Tom Berg'], ['Nadia Rahman', 'knows', 'Tom Berg']);
    await oldExtraction(s.m, ms[2]!, ['Notes Tom Berg']);
    const r = await s.m.lifecycle.reindexGraph({ batch: 1 });
    assert.deepEqual([r.memories, r.entitiesRemoved], [3, 2]);
    const names = (await rawSql(s.db, 'SELECT name, mentions FROM graph_entities ORDER BY name')).map((x) => [x.name, Number(x.mentions)]);
    assert.deepEqual(names, [['Nadia Rahman', 2], ['Tom Berg', 2]]);
    const evidence = Number((await rawSql(s.db, 'SELECT count(*) AS n FROM graph_evidence WHERE entity_id IS NOT NULL'))[0]!.n);
    assert.equal(evidence, 4);
    const knows = (await s.m.lifecycle.entity('Nadia Rahman')).entities[0]!.relations.filter((x) => x.predicate === 'knows');
    assert.equal(knows.length, 1, 'the relation the second memory held up again is one relation');
  } finally {
    await s.close();
  }
});

test(named("consolidation's graph step re-indexes stale memories, a bounded number per run, and says how many"), async () => {
  const s = await lifecycleStore({ lifecycle: { graphReindexBatch: 2 } });
  try {
    const a = await s.m.get((await s.m.remember({ text: '## Team\nAlice Smith leads it' })).id);
    await s.m.remember({ text: 'Bob Stone joined in May' });
    await s.m.remember({ text: 'Carla Diaz moved to Lisbon' });
    const first = await s.m.consolidate();
    assert.equal(first.counts.graphMemories, 3, 'indexed under the current rules');
    assert.equal(first.counts.graphReindexed, 0);
    await oldExtraction(s.m, a, ['Team Alice Smith']);
    await rawSql(s.db, 'UPDATE graph_indexed SET rules_version = 0');
    const second = await s.m.consolidate({ force: true });
    assert.equal(second.counts.graphReindexed, 2);
    const third = await s.m.consolidate({ force: true });
    assert.equal(third.counts.graphReindexed, 1);
    assert.equal((await s.m.consolidate({ force: true })).counts.graphReindexed, 0);
    assert.deepEqual((await s.m.lifecycle.entity('Team Alice Smith')).entities, []);
    assert.deepEqual((await s.m.lifecycle.entity('Alice Smith')).entities.map((v) => v.memoryIds), [[a.id]]);
    assert.equal(second.counts.entitiesRemoved! + third.counts.entitiesRemoved!, 1);
  } finally {
    await s.close();
  }
});

test(named('a store indexed before rules versions existed opens with every indexed memory stale'), async () => {
  const t = testStores('mnemos-graph-reindex-upgrade-');
  try {
    const m = await openMemory({ db: t.db });
    await m.remember({ text: 'Priya Nair sails on weekends' });
    await m.lifecycle.indexGraph();
    await m.close();
    // The schema before the rules version: no column, no index, the migration not recorded.
    const migration = (all: { version: number; name: string }[]) => all.find((x) => x.name.startsWith('the extraction rules version'))!.version;
    await rawSql(t.db, 'DROP INDEX graph_indexed_rules');
    await rawSql(t.db, 'ALTER TABLE graph_indexed DROP COLUMN rules_version');
    if (BACKEND === 'sqlite') await rawSql(t.db, `PRAGMA user_version = ${migration(MIGRATIONS) - 1}`);
    else await rawSql(t.db, 'DELETE FROM mnemos_schema WHERE version >= ?', migration(PG_MIGRATIONS));
    const again = await openMemory({ db: t.db });
    try {
      assert.deepEqual((await rawSql(t.db, 'SELECT rules_version AS v FROM graph_indexed')).map((x) => Number(x.v)), [0]);
      const r = await again.lifecycle.reindexGraph();
      assert.deepEqual([r.memories, r.entitiesCreated, r.entitiesRemoved], [1, 0, 0], 'indexed again; the same rules found the same name');
      assert.equal((await again.lifecycle.entity('Priya Nair')).entities.length, 1);
    } finally {
      await again.close();
    }
  } finally {
    await t.cleanup();
  }
});

/** Memories naming people who share surnames ("Dr. Hughes", then Alice, Bob and Carol Hughes), with jobs that change. */
function surnameTexts(n: number): string[] {
  const first = ['Alice', 'Bob', 'Carol', 'Dana'];
  const last = ['Hughes', 'Marsh', 'Quill'];
  const orgs = ['Initech', 'Globex'];
  let x = 7;
  // The high bits of a linear congruential step (its low bits cycle too soon).
  const pick = <T>(xs: T[]) => xs[Math.floor(((x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31) * xs.length)]!;
  return Array.from({ length: n }, (_, i) =>
    i % 6 === 0 ? `Dr. ${pick(last)} reviewed note ${i} with ${pick(first)} ${pick(last)}.`
      : i % 3 === 0 ? `${pick(first)} ${pick(last)} works at ${pick(orgs)} (record ${i}).`
      : `${pick(first)} ${pick(last)} met ${pick(first)} ${pick(last)} about item ${i}.`,
  );
}

/** When the stores of a test start: memory i is stored at the same time in each (sightings and relation times compare). */
const START = Date.parse('2026-03-01T09:00:00Z');

/** A store holding `texts`, stored one at a time in order (memory i at START + i minutes), the first `indexed` of them in the graph. */
async function indexedStore(db: string, texts: string[], indexed = texts.length): Promise<Mnemos> {
  const clock = { t: START };
  const m = await openMemory({ db, now: () => clock.t });
  for (const [i, text] of texts.entries()) {
    clock.t = START + i * 60_000;
    await m.remember({ text });
  }
  await m.lifecycle.indexGraph({ limit: indexed });
  return m;
}

/**
 * What older resolution rules made of the store: every full name with a surname a one-word entity has ("Alice
 * Hughes" after "Dr. Hughes", norm "hughes") merged into that entity, its evidence and relations with it.
 */
async function mergeAsOldRulesDid(db: string): Promise<number> {
  const ents = (await rawSql(db, 'SELECT id, norm FROM graph_entities')) as { id: string; norm: string }[];
  let merged = 0;
  for (const short of ents.filter((e) => !e.norm.includes(' '))) {
    for (const full of ents.filter((e) => e.norm.endsWith(` ${short.norm}`))) {
      await rawSql(db, 'UPDATE graph_evidence SET entity_id = ? WHERE entity_id = ?', short.id, full.id);
      await rawSql(db, 'UPDATE graph_relations SET subject_id = ? WHERE subject_id = ?', short.id, full.id);
      await rawSql(db, 'UPDATE graph_relations SET object_id = ? WHERE object_id = ?', short.id, full.id);
      await rawSql(db, 'DELETE FROM graph_entities WHERE id = ?', full.id);
      merged++;
    }
    await rawSql(db, 'UPDATE graph_entities SET mentions = (SELECT count(*) FROM graph_evidence WHERE entity_id = ?) WHERE id = ?', short.id, short.id);
  }
  await rawSql(db, 'UPDATE graph_indexed SET rules_version = 1');
  return merged;
}

/** A store's graph without its ids: entities, relations and evidence as names and memory texts. */
async function graphPicture(m: Mnemos, db: string) {
  const g = m.store.graph!;
  const ents = await g.allEntities(m.principal);
  const name = new Map(ents.map((e) => [e.id, `${e.name} (${e.norm})`]));
  const entities = ents.map((e) => JSON.stringify([e.name, e.norm, e.type, [...e.aliases].sort(), e.mentions, e.firstSeen, e.lastSeen, e.visibility])).sort();
  const rels = await g.relationsOf(m.principal, ents.map((e) => e.id));
  const relName = new Map(rels.map((r) => [r.id, `${name.get(r.subjectId)} ${r.predicate} ${name.get(r.objectId)} from ${r.validFrom}`]));
  const relations = [...new Set(rels.map((r) => JSON.stringify([relName.get(r.id), r.validTo, r.supersededBy && relName.get(r.supersededBy)])))].sort();
  const rows = (await rawSql(db, 'SELECT m.text, g.entity_id, g.relation_id, g.mention, g.norm FROM graph_evidence g JOIN memories m ON m.id = g.memory_id')) as Record<string, string | null>[];
  const evidence = rows.map((r) => JSON.stringify([r.text, r.entity_id && name.get(r.entity_id), r.relation_id && relName.get(r.relation_id), r.mention, r.norm])).sort();
  const left = rows.filter((r) => (r.entity_id && !name.has(r.entity_id)) || (r.relation_id && !relName.has(r.relation_id)));
  assert.deepEqual(left, [], 'no evidence points at an entity or relation that is gone');
  return { entities, relations, evidence };
}

/** The same memories in a second store, indexed fresh. */
async function freshPicture(t: ReturnType<typeof testStores>, texts: string[]) {
  const db = t.store('fresh.db');
  const m = await indexedStore(db, texts);
  try {
    return await graphPicture(m, db);
  } finally {
    await m.close();
  }
}

test(named('reindex --all on a store whose older rules merged people: the graph a fresh index makes, and a second run changes nothing'), async () => {
  const t = testStores('mnemos-graph-rebuild-');
  try {
    const texts = surnameTexts(120);
    const m = await indexedStore(t.db, texts);
    try {
      const fresh = await freshPicture(t, texts);
      assert.deepEqual(await graphPicture(m, t.db), fresh, 'indexed alike, the two stores hold the same graph');
      const hughesId = ((await rawSql(t.db, "SELECT id FROM graph_entities WHERE norm = 'hughes'")) as { id: string }[])[0]!.id;
      assert.ok((await mergeAsOldRulesDid(t.db)) >= 6, 'the full names of three surnames were merged');
      const merged = await graphPicture(m, t.db);
      assert.ok(merged.entities.length < fresh.entities.length - 5);

      // Slices of 7: most merged people are named in slices other than the one being re-indexed.
      await assert.rejects(m.lifecycle.reindexGraph({ all: true, limit: 10 }), (e: { code?: string }) => e.code === 'validation_failed');
      const r = await m.lifecycle.reindexGraph({ all: true, batch: 7 });
      assert.equal(r.memories, 120);
      assert.ok(r.entitiesCreated >= 6, `the merged people came back as entities of their own (${r.entitiesCreated})`);
      assert.deepEqual(await graphPicture(m, t.db), fresh);
      assert.equal(((await rawSql(t.db, "SELECT id FROM graph_entities WHERE norm = 'hughes'")) as { id: string }[])[0]!.id, hughesId, 'Dr. Hughes, found again under his name key, keeps his id');
      const versions = (await rawSql(t.db, 'SELECT DISTINCT rules_version AS v FROM graph_indexed')).map((x) => Number(x.v));
      assert.deepEqual(versions, [EXTRACTION_RULES_VERSION]);

      const ids = JSON.stringify(await rawSql(t.db, 'SELECT id, norm FROM graph_entities ORDER BY id'));
      const again = await m.lifecycle.reindexGraph({ all: true, batch: 50 });
      assert.deepEqual([again.entitiesCreated, again.entitiesRemoved], [0, 0]);
      assert.deepEqual(await graphPicture(m, t.db), fresh);
      assert.equal(JSON.stringify(await rawSql(t.db, 'SELECT id, norm FROM graph_entities ORDER BY id')), ids, 'every entity keeps its id');
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});

test(named('reindex --all killed part-way (SIGKILL): the next --all converges on the graph a fresh index makes'), async () => {
  const t = testStores('mnemos-graph-rebuild-crash-');
  try {
    const texts = surnameTexts(400);
    // The last 20 not indexed yet: a rebuild takes them too, in their place, as a fresh index does.
    await (await indexedStore(t.db, texts, 380)).close();
    await mergeAsOldRulesDid(t.db);
    const fresh = await freshPicture(t, texts);

    const child = spawn(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'fixtures/reindex-child.ts'), t.db, '40'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    try {
      // Three slices of 40 committed, in the middle of the run.
      await waitForOutput(child, () => /progress 120 /.test(out), 'a third slice', { what: 'the re-index child', stderr: () => err });
      child.kill('SIGKILL');
      assert.equal((await waitForExit(child)).signal, 'SIGKILL');
    } finally {
      stopChild(child);
    }
    assert.ok(!out.includes('finished'), `the child finished before it was killed: ${out}`);
    const stale = (await rawSql(t.db, 'SELECT rules_version AS v, count(*) AS n FROM graph_indexed GROUP BY rules_version ORDER BY rules_version')).map((x) => [Number(x.v), Number(x.n)]);
    // What the rebuild had not reached is marked stale (0), so a consolidation finds it and rebuilds (the test above).
    assert.ok(stale.length === 2 && stale[0]![0] === 0 && stale[1]![0] === EXTRACTION_RULES_VERSION, `part re-indexed: ${JSON.stringify(stale)}`);

    const m = await openMemory({ db: t.db });
    try {
      // Meanwhile the graph answers, part old and part new.
      assert.ok((await m.lifecycle.entity('Initech')).entities.length >= 1);
      const r = await m.lifecycle.reindexGraph({ all: true, batch: 40 });
      assert.equal(r.memories, 400);
      assert.equal(Number((await rawSql(t.db, 'SELECT count(*) AS n FROM graph_indexed'))[0]!.n), 400);
      assert.deepEqual(await graphPicture(m, t.db), fresh);
      assert.equal((await rawSql(t.db, "SELECT status FROM jobs WHERE name = 'graph' AND status = 'running'")).length, 0, "the dead run's lease was taken over and finished");
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});

test(named("consolidation after a rules upgrade rebuilds a small namespace's graph: people older rules merged come apart, as --all would make them"), async () => {
  const t = testStores('mnemos-graph-upgrade-rebuild-');
  try {
    const texts = surnameTexts(60);
    const m = await indexedStore(t.db, texts);
    try {
      const fresh = await freshPicture(t, texts);
      assert.ok((await mergeAsOldRulesDid(t.db)) >= 6, 'the full names of three surnames were merged');
      const report = await m.consolidate({ force: true });
      assert.equal(report.counts.graphRebuilt, 1);
      const after = await graphPicture(m, t.db);
      // What --all makes of the store as consolidation left it: nothing more to change.
      await m.lifecycle.reindexGraph({ all: true });
      assert.deepEqual(await graphPicture(m, t.db), after, 'consolidation made the graph a rebuild makes');
      assert.deepEqual(after.entities.filter((e) => e.includes('hughes')).length, fresh.entities.filter((e) => e.includes('hughes')).length, 'the Hughes are as many people as a fresh index finds');
      assert.equal((await m.consolidate({ force: true })).counts.graphRebuilt, undefined, 'nothing stale: no rebuild again');
    } finally {
      await m.close();
    }
  } finally {
    await t.cleanup();
  }
});
