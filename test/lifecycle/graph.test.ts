import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createLlmExtractor } from '../../src/graph/llm-extractor.ts';
import { lifecycleStore } from './helpers.ts';
import { BACKEND, named, rawSql } from '../helpers/backend.ts';

test(named('bi-temporal relations: a contradicting relation closes the old one; "as of" returns what held then'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Maria Lopez works at Acme Corp', validFrom: '2020-01-01T00:00:00Z' });
    await s.m.consolidate();
    await s.m.remember({ text: 'Maria Lopez now works at Globex Industries', validFrom: '2024-06-01T00:00:00Z' });
    await s.m.remember({ text: 'Maria Lopez knows Tom Berg', validFrom: '2021-01-01T00:00:00Z' });
    await s.m.consolidate();
    const now = await s.m.lifecycle.entity('maria lopez');
    assert.equal(now.entities.length, 1);
    const rels = now.entities[0]!.relations;
    const acme = rels.find((r) => r.object === 'Acme Corp')!;
    const globex = rels.find((r) => r.object === 'Globex Industries')!;
    assert.equal(acme.validTo, '2024-06-01T00:00:00.000Z');
    assert.equal(acme.supersededBy, globex.id);
    assert.equal(acme.holds, false);
    assert.equal(globex.holds, true);
    assert.ok(rels.find((r) => r.predicate === 'knows' && r.holds)); // not functional: nothing closed
    const past = await s.m.lifecycle.entity('Maria Lopez', '2022-01-01T00:00:00Z');
    const held = past.entities[0]!.relations.filter((r) => r.holds).map((r) => `${r.predicate}:${r.object}`).sort();
    assert.deepEqual(held, ['knows:Tom Berg', 'works_at:Acme Corp']);
    assert.ok(!past.entities[0]!.relations.some((r) => r.object === 'Globex Industries'), 'not yet known to be true then');
  } finally {
    await s.close();
  }
});

test(named('entity resolution in the store: "Dr. Smith", "Smith" and "dr smith" are one entity; two Johns stay apart'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Appointment with Dr. Smith about the knee' });
    await s.m.remember({ text: 'I told Smith the results were fine' });
    await s.m.remember({ text: 'dr smith said to rest for a week' });
    await s.m.remember({ text: 'John Carter plays chess on Sundays' });
    await s.m.remember({ text: 'John Hughes plays tennis on Mondays' });
    await s.m.consolidate();
    const smith = await s.m.lifecycle.entity('smith');
    assert.equal(smith.entities.length, 1);
    assert.equal(smith.entities[0]!.entity.mentions, 3);
    assert.equal(smith.entities[0]!.memoryIds.length, 3);
    assert.equal((await s.m.lifecycle.entity('John Carter')).entities.length, 1);
    assert.equal((await s.m.lifecycle.entity('John Hughes')).entities.length, 1);
    assert.notEqual((await s.m.lifecycle.entity('John Carter')).entities[0]!.entity.id, (await s.m.lifecycle.entity('John Hughes')).entities[0]!.entity.id);
  } finally {
    await s.close();
  }
});

// Each full name joined the one-word "Dr. Hughes" by the short-form rule, so three people became one entity.
test(named('people who share a surname stay apart after one of them joined the lone surname'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Appointment with Dr. Hughes on Monday' });
    await s.m.remember({ text: 'Alice Hughes plays chess on Sundays' });
    await s.m.remember({ text: 'Bob Hughes plays golf on Fridays' });
    await s.m.remember({ text: 'Carol Hughes works at Acme Corp' });
    await s.m.consolidate({ force: true });
    const ids = new Map<string, string[]>();
    for (const n of ['Alice Hughes', 'Bob Hughes', 'Carol Hughes']) ids.set(n, (await s.m.lifecycle.entity(n)).entities.map((v) => v.entity.id));
    for (const [n, found] of ids) assert.equal(found.length, 1, n);
    assert.equal(new Set([...ids.values()].flat()).size, 3, 'three people, three entities');
    const alice = (await s.m.lifecycle.entity('Alice Hughes')).entities[0]!.entity;
    const names = [alice.name, ...alice.aliases];
    assert.ok(names.includes('Dr. Hughes'), 'the first full name still joins the lone surname');
    assert.ok(!names.includes('Bob Hughes') && !names.includes('Carol Hughes'), names.join(', '));
  } finally {
    await s.close();
  }
});

// The graph kept the entities and relations of a memory made owner-only, in the public scope they were read in,
// until the next consolidation indexed the new version: a guest saw what the memory said and could not read it.
test(named('a memory made owner-only takes its public entities and relations with it at once'), async () => {
  const s = await lifecycleStore();
  const guest = s.m.as({ role: 'guest', namespace: 'default', id: 'visitor' });
  try {
    const keep = await s.m.remember({ text: 'Alice Smith works at Public Corp', visibility: 'public' });
    const hush = await s.m.remember({ text: 'Alice Smith knows Secret Person', visibility: 'public' });
    const twice = await s.m.remember({ text: 'Quiet Quentin lives in Hushville', visibility: 'public' });
    await s.m.consolidate({ force: true });
    assert.equal((await guest.lifecycle.entity('Secret Person')).entities.length, 1);
    assert.equal((await guest.lifecycle.entity('Quiet Quentin')).entities.length, 1);

    await s.m.update(hush.id, { visibility: 'owner' });
    // Edited first in the same scope (not indexed since), then made owner-only: the first version's evidence goes too.
    const edited = await s.m.update(twice.id, { text: 'Quiet Quentin lives in Hushville now' });
    await s.m.update(edited.id, { visibility: 'owner' });
    assert.deepEqual((await guest.lifecycle.entity('Secret Person')).entities, []);
    assert.deepEqual((await guest.lifecycle.entity('Quiet Quentin')).entities, []);
    assert.deepEqual((await guest.lifecycle.entity('Hushville')).entities, []);
    const alice = (await guest.lifecycle.entity('Alice Smith')).entities;
    assert.equal(alice.length, 1);
    assert.deepEqual(alice[0]!.relations.map((r) => `${r.predicate} ${r.object}`), ['works_at Public Corp'], 'the public memory keeps its part');
    assert.deepEqual(alice[0]!.memoryIds, [keep.id]);
    assert.deepEqual(await guest.lifecycle.graphCandidates('Secret Person', 10), []);
    for (const table of ['graph_entities', 'graph_relations']) {
      const rows = await rawSql(s.db, `SELECT count(*) AS n FROM ${table} WHERE visibility = 'public'`);
      assert.equal(Number(rows[0]!.n), table === 'graph_entities' ? 2 : 1, `${table}: Alice Smith, Public Corp and their relation are all that is public`);
    }

    await s.m.consolidate({ force: true });
    const owner = (await s.m.lifecycle.entity('Secret Person')).entities;
    assert.equal(owner.length, 1, 'the owner finds it again once the new version is indexed');
    assert.equal(owner[0]!.entity.visibility, 'owner');
    assert.deepEqual((await guest.lifecycle.entity('Secret Person')).entities, []);
  } finally {
    await s.close();
  }
});

// A known name was found again inside longer names and as a lower-case word: Paris Hilton's memory was evidence
// for the city, Alice Cooper's for Ana's friend Alice, and every "we will" for a person called Will.
test(named('a known name is not found inside a longer name, nor as a lower-case word of capitalised text'), async () => {
  const s = await lifecycleStore();
  try {
    const paris = await s.m.remember({ text: 'I met Ana in Paris last spring' });
    const will = await s.m.remember({ text: 'I had coffee with Will and Ana' });
    const alice = await s.m.remember({ text: 'Ana said Alice is coming over' });
    await s.m.consolidate({ force: true });
    const hilton = await s.m.remember({ text: 'At the airport I saw Paris Hilton' });
    const cooper = await s.m.remember({ text: 'On the radio they played Alice Cooper' });
    const word = await s.m.remember({ text: 'We will visit Rome in June' });
    const chat = await s.m.remember({ text: 'will says the boat is ready' });
    await s.m.consolidate({ force: true });
    const memoriesOf = async (n: string) => (await s.m.lifecycle.entity(n)).entities.flatMap((v) => v.memoryIds).sort();
    assert.deepEqual(await memoriesOf('Paris'), [paris.id]);
    assert.deepEqual(await memoriesOf('Paris Hilton'), [hilton.id]);
    assert.deepEqual(await memoriesOf('Alice'), [alice.id]);
    assert.deepEqual(await memoriesOf('Alice Cooper'), [cooper.id]);
    assert.deepEqual(await memoriesOf('Will'), [will.id, chat.id].sort(), 'a lower-case chat line still names a known Will');
    assert.ok(!(await s.m.lifecycle.graphCandidates('Will', 10)).includes(word.id));
  } finally {
    await s.close();
  }
});

test(named('graph candidates: memories of the entities in the query first, then one-hop neighbours'), async () => {
  const s = await lifecycleStore();
  try {
    const a = await s.m.remember({ text: 'Priya Nair is Arjun Nair\'s sister' });
    const b = await s.m.remember({ text: 'Arjun Nair loves sailing on weekends' });
    await s.m.remember({ text: 'Unrelated note about the weather' });
    await s.m.consolidate();
    const ids = await s.m.lifecycle.graphCandidates('What does Priya Nair like?', 10);
    assert.deepEqual(ids, [a.id, b.id]);
  } finally {
    await s.close();
  }
});

test(named('forget leaves no trace in the graph: the last evidence removes the entity, its aliases and relations'), async () => {
  const s = await lifecycleStore();
  const SECRET = 'Zorblatt Quennifer';
  try {
    await s.m.remember({ text: 'Ada Byron works at Analytical Engines' });
    const { id } = await s.m.remember({ text: `${SECRET} works at Analytical Engines and knows Ada Byron` });
    await s.m.consolidate();
    assert.equal((await s.m.lifecycle.entity(SECRET)).entities.length, 1);
    const preview = await s.m.forget(id, 'user asked');
    assert.ok(preview.removes.knowledge_graph! >= 3, JSON.stringify(preview.removes));
    await s.m.confirmForget(preview.token);
    assert.deepEqual((await s.m.lifecycle.entity(SECRET)).entities, []);
    const ada = await s.m.lifecycle.entity('Ada Byron');
    assert.equal(ada.entities.length, 1);
    assert.ok(!ada.entities[0]!.relations.some((r) => r.predicate === 'knows'));
    assert.equal((await s.m.lifecycle.entity('Analytical Engines')).entities[0]!.entity.mentions, 1);
    await s.m.close();
    for (const table of ['graph_entities', 'graph_evidence', 'graph_relations']) {
      const rows = JSON.stringify(await rawSql(s.db, `SELECT * FROM ${table}`));
      assert.ok(!rows.includes('Zorblatt') && !rows.toLowerCase().includes('quennifer'), `${table} still names the forgotten person`);
    }
    // The file bytes are SQLite's promise (secure_delete); PostgreSQL keeps dead tuples until VACUUM (docs/POSTGRES.md).
    if (BACKEND === 'sqlite') {
      for (const f of readdirSync(s.dir)) assert.equal(readFileSync(join(s.dir, f)).includes('Quennifer'), false, `${f} still holds the forgotten name`);
    }
  } finally {
    await s.close().catch(() => {});
  }
});

test(named('forgetting the memory behind a closing relation reopens what it closed, or hands it to the next closer'), async () => {
  const s = await lifecycleStore();
  try {
    const works = async (asOf?: string) =>
      (await s.m.lifecycle.entity('Alice Smith', asOf)).entities
        .flatMap((e) => e.relations.filter((r) => r.predicate === 'works_at').map((r) => [r.object, r.validTo, r.holds]))
        .sort((a, b) => String(a[0]).localeCompare(String(b[0])));
    await s.m.remember({ text: 'Alice Smith works at Acme Corp', validFrom: '2020-01-01T00:00:00Z' });
    const globex = await s.m.remember({ text: 'Alice Smith now works at Globex Inc', validFrom: '2023-01-01T00:00:00Z' });
    await s.m.remember({ text: 'Alice Smith now works at Initech Labs', validFrom: '2025-01-01T00:00:00Z' });
    await s.m.lifecycle.indexGraph();
    assert.deepEqual(await works('2024-01-01T00:00:00Z'), [
      ['Acme Corp', '2023-01-01T00:00:00.000Z', false],
      ['Globex Inc', '2025-01-01T00:00:00.000Z', true],
    ]);
    // The middle link goes: Acme is now closed by Initech, from Initech's start.
    const p = await s.m.forget(globex.id);
    await s.m.confirmForget(p.token);
    assert.deepEqual(await works('2024-01-01T00:00:00Z'), [['Acme Corp', '2025-01-01T00:00:00.000Z', true]]);
    assert.deepEqual(await works(), [
      ['Acme Corp', '2025-01-01T00:00:00.000Z', false],
      ['Initech Labs', null, true],
    ]);
    // The last closer goes: Acme holds again.
    const initech = (await s.m.search('Initech Labs')).hits[0]!.memory;
    const p2 = await s.m.forget(initech.id);
    await s.m.confirmForget(p2.token);
    assert.deepEqual(await works(), [['Acme Corp', null, true]]);
  } finally {
    await s.close();
  }
});

test(named('an entity that keeps evidence after a forget is seen only when its remaining memories say'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Alice Smith works at Acme Corp', validFrom: '2020-01-01T00:00:00Z' });
    const met = await s.m.remember({ text: 'Alice Smith met Bob Stone in Paris', validFrom: '2023-06-15T00:00:00Z' });
    await s.m.lifecycle.indexGraph();
    const alice = async () => (await s.m.lifecycle.entity('Alice Smith')).entities[0]!.entity;
    assert.equal((await alice()).lastSeen, '2023-06-15T00:00:00.000Z');
    const p = await s.m.forget(met.id);
    await s.m.confirmForget(p.token);
    const after = await alice();
    assert.deepEqual([after.firstSeen, after.lastSeen, after.mentions], ['2020-01-01T00:00:00.000Z', '2020-01-01T00:00:00.000Z', 1]);
  } finally {
    await s.close();
  }
});

test(named('optional LLM extractor speaks the OpenAI-compatible chat protocol with a JSON schema'), async () => {
  const seen: Record<string, unknown>[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const json = JSON.parse(body);
      seen.push({ url: req.url, auth: req.headers.authorization, ...json });
      const content = JSON.stringify({
        entities: [{ name: 'Lena Park', type: 'person' }, { name: 'Nordwind', type: 'org' }, { name: '', type: 'person' }],
        relations: [{ subject: 'Lena Park', predicate: 'works_at', object: 'Nordwind' }, { subject: 'x', predicate: 'Bad Predicate!', object: 'y' }],
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const s = await lifecycleStore();
  try {
    const extractor = createLlmExtractor({ baseUrl: `http://127.0.0.1:${port}/v1`, model: 'test-model', apiKey: 'k' });
    await s.m.remember({ text: 'my colleague from the ship company, lena, started there' });
    await s.m.lifecycle.consolidate({ extractor });
    assert.equal(seen[0]!.url, '/v1/chat/completions');
    assert.equal(seen[0]!.auth, 'Bearer k');
    assert.equal((seen[0]!.response_format as { type: string }).type, 'json_schema');
    const lena = await s.m.lifecycle.entity('Lena Park');
    assert.equal(lena.entities.length, 1);
    assert.deepEqual(lena.entities[0]!.relations.map((r) => `${r.predicate}:${r.object}`), ['works_at:Nordwind']);
  } finally {
    server.close();
    await s.close();
  }
});

test(named('a corrected memory takes its old text out of the graph: the old entity and relation go, the new ones come'), async () => {
  const s = await lifecycleStore();
  try {
    const keep = await s.m.remember({ text: 'Priya Nair works at Initech' });
    const wrong = await s.m.remember({ text: 'Marco Rossi works at Globex' });
    const moved = await s.m.remember({ text: 'Dana Reyes works at Acme' });
    await s.m.consolidate({ force: true });
    assert.equal((await s.m.lifecycle.entity('Marco Rossi')).entities.length, 1);
    await s.m.update(wrong.id, { text: 'The weather in the valley is nice today' });
    const danaNow = await s.m.update(moved.id, { text: 'Dana Reyes works at Umbrella' });
    await s.m.consolidate({ force: true });

    assert.deepEqual((await s.m.lifecycle.entity('Marco Rossi')).entities, [], 'no text says anything of Marco any more');
    assert.deepEqual(await s.m.lifecycle.graphCandidates('where does Marco Rossi work', 10), []);
    const dana = (await s.m.lifecycle.entity('Dana Reyes')).entities[0]!;
    assert.deepEqual(dana.relations.map((r) => [r.predicate, r.object, r.holds]), [['works_at', 'Umbrella', true]], 'the corrected employer replaces the old, which no text states');
    assert.deepEqual(dana.memoryIds, [danaNow.id]);
    assert.deepEqual((await s.m.lifecycle.entity('Acme')).entities, []);
    assert.equal((await s.m.lifecycle.entity('Priya Nair')).entities[0]!.memoryIds[0], keep.id, 'other memories keep their graph');
  } finally {
    await s.close();
  }
});

// "worked at" was read as works_at: the past employer, written later, closed the current one.
test(named('a past employer or home written later leaves the current one holding'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Alice Chen works at Globex as a staff engineer.' });
    await s.m.remember({ text: 'Dana Smith moved to Lisbon last spring.' });
    await s.m.consolidate({ force: true });
    await s.m.remember({ text: 'Alice Chen worked at Initech for three years before she joined Globex.' });
    await s.m.remember({ text: 'Dana Smith lived in Berlin as a student.' });
    await s.m.consolidate({ force: true });
    const held = async (name: string) =>
      (await s.m.lifecycle.entity(name)).entities[0]!.relations.map((r) => `${r.predicate}:${r.object}:${r.holds}`).sort();
    assert.deepEqual(await held('Alice Chen'), ['worked_at:Initech:true', 'works_at:Globex:true']);
    assert.deepEqual(await held('Dana Smith'), ['lived_in:Berlin:true', 'lives_in:Lisbon:true']);
  } finally {
    await s.close();
  }
});
