import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BuiltinEmbedder } from '../../src/embedding/builtin/builtin-embedder.ts';
import { deserializeModel, fingerprintOf, type LearnedModelState } from '../../src/embedding/builtin/model.ts';
import { canonicalJson, sha256Hex } from '../../src/domain/hash.ts';
import { dot } from '../../src/embedding/vectors.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { analyze, analyzeText, isNoted } from '../../src/retrieval/text/analyze.ts';

// Tiny "store": sessions in which a question is answered by the next turn.
const SESSIONS = [
  ['Do you play any instruments?', 'Yes, I play the clarinet every evening.', 'The garden needs watering again.'],
  ['Which instruments do your kids like?', 'My son loves his violin lessons.', 'We planted tomatoes in the garden.'],
  ['Any instruments in the band?', 'A clarinet, a violin and drums.', 'Rain again, good for the garden.'],
  ['How was the hike?', 'The trail by the waterfall was beautiful.', 'We saw a deer near the trail.'],
  ['Where did you hike?', 'Up the mountain trail to the lake.', 'The lake water was freezing.'],
];

const norm = (v: Float32Array): number => Math.sqrt(dot(v, v));

test('dimensions, unit length, determinism', async () => {
  const a = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  const b = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  assert.equal(a.dimensions, 8 + 64);
  assert.equal(a.model, b.model);
  const [va] = await a.embed(['I play the clarinet']);
  const [vb] = await b.embed(['I play the clarinet']);
  assert.equal(va!.length, a.dimensions);
  assert.ok(Math.abs(norm(va!) - 1) < 1e-6);
  assert.deepEqual(va, vb);
  assert.deepEqual(await a.embed([]), []);
  const [empty] = await a.embed(['the of and']);
  assert.ok(empty!.every((x) => x === 0), 'a text of stop words only is the zero vector');
});

test('the learned part puts question words near the answers of the next turn', () => {
  const e = BuiltinEmbedder.train(SESSIONS, { rank: 8, adjacentWeight: 1 });
  const noAdjacency = BuiltinEmbedder.train(SESSIONS, { rank: 8, adjacentWeight: 0 });
  const sim = (m: BuiltinEmbedder, x: string, y: string): number => dot(m.embedSync(x, 'query'), m.embedSync(y));
  // "instruments" and "clarinet" never share a text; they meet across neighbouring turns.
  assert.ok(sim(e, 'instruments', 'clarinet') > sim(e, 'instruments', 'waterfall'));
  assert.ok(sim(e, 'instruments', 'clarinet') > sim(noAdjacency, 'instruments', 'clarinet'));
});

test('the model id names recipe, sizes and the trained model; untrained is explicit', () => {
  const untrained = new BuiltinEmbedder();
  assert.match(untrained.model, /^builtin-ppmi-svd-subword@1:r128:h64x0\.25n3-5:untrained$/);
  assert.equal(untrained.state(), null);
  assert.equal(untrained.trained, false);
  const trained = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  const other = BuiltinEmbedder.train(SESSIONS.slice(0, 3), { rank: 8 });
  assert.match(trained.model, /:r8:.*:[0-9a-f]{16}$/);
  assert.notEqual(trained.model, other.model, 'a retrained model is a different vector space');
  assert.equal(untrained.embedSync('clarinet').length, untrained.dimensions);
});

test('query embeddings drop question-frame words, document embeddings keep them', () => {
  const e = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  assert.deepEqual(e.embedSync('What did you play?', 'query'), e.embedSync('you play?', 'query'));
  assert.notDeepEqual(e.embedSync('What did you play?', 'document'), e.embedSync('you play?', 'document'));
});

test('model state round-trips through JSON and is checked on load', () => {
  const e = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  const state = JSON.parse(JSON.stringify(e.state())) as LearnedModelState;
  const back = new BuiltinEmbedder(deserializeModel(state));
  assert.equal(back.model, e.model);
  assert.deepEqual(back.embedSync('clarinet lessons'), e.embedSync('clarinet lessons'));
  const tampered = { ...state, terms: [...state.terms].reverse() };
  assert.throws(() => deserializeModel(tampered), (err: unknown) => MnemosError.is(err, 'corrupt'));
  assert.throws(() => deserializeModel({ ...state, analyzer: 'other@1' }), (err: unknown) => MnemosError.is(err, 'conflict'));
  assert.throws(() => deserializeModel({ ...state, version: 3 } as unknown as LearnedModelState), (err: unknown) => MnemosError.is(err, 'validation_failed'));
});

test('the fingerprint is the SHA-256 of the canonical JSON, however the hash is fed', () => {
  const o = { rank: 8, maxTerms: 100, adjacentWeight: 1, contextSmoothing: 1, eigenWeight: 0.5, powerIterations: 3, seed: 7 };
  const reference = (p: object) => sha256Hex(canonicalJson(p)).slice(0, 16);
  const cases: { name: string; parts: Parameters<typeof fingerprintOf>[0] }[] = [
    { name: 'base64 tables', parts: { analyzer: 'a@1', o, terms: ['alpha', 'beta'], idf: 'AAAAPw==', vectors: 'AACAPwAAAEA=' } },
    { name: 'empty tables and vocabulary', parts: { analyzer: 'a@1', o, terms: [], idf: '', vectors: '' } },
    { name: 'terms that need escaping', parts: { analyzer: 'a"1\\', o, terms: ['naïve', 'qu"ote', 'tab\there', 'emoji 🎻', '\u0001'], idf: 'AA==', vectors: 'AA==' } },
    { name: 'tables that are not base64 (a damaged state)', parts: { analyzer: 'a@1', o, terms: ['x'], idf: 'not "base64"\n', vectors: 'ü' } },
    { name: 'a table of the wrong type', parts: { analyzer: 'a@1', o, terms: ['x'], idf: 42 as unknown as string, vectors: { b: 1, a: 2 } as unknown as string } },
  ];
  for (const c of cases) assert.equal(fingerprintOf(c.parts), reference(c.parts), c.name);
  const e = BuiltinEmbedder.train(SESSIONS, { rank: 8 });
  const st = e.state() as LearnedModelState;
  assert.equal(st.fingerprint, reference({ analyzer: st.analyzer, o: st.options, terms: st.terms, idf: st.idf, vectors: st.vectors }), 'a trained model');
});

test('rank 0 trains only the IDF table (subword part alone)', () => {
  const e = BuiltinEmbedder.train(SESSIONS, { rank: 0 });
  assert.equal(e.dimensions, 64);
  assert.ok(Math.abs(norm(e.embedSync('clarinet')) - 1) < 1e-6);
  // Character n-grams: a misspelling stays close to the word.
  assert.ok(dot(e.embedSync('reccomend'), e.embedSync('recommend')) > 0.25);
  assert.ok(dot(e.embedSync('painting'), e.embedSync('paint')) > 0.4);
  assert.ok(Math.abs(dot(e.embedSync('reccomend'), e.embedSync('waterfall'))) < 0.15);
});

test("a document's embedding notes its full-text terms, exactly analyze()'s; a query's notes nothing", async () => {
  const trained = BuiltinEmbedder.train([['the clarinet lesson is on Tuesday', 'Caroline bought 3.5 kg of apples']]);
  const texts = [
    "Caroline's clarinet lessons aren't on Tuesdays anymore",
    'The 1,000 runners ran 3.5 km — naïve café-goers, ÉCOLE, ﬁnance',
    'and the of a an', // stop words only: no terms
    'Running, runner, runs: ran!',
    '',
  ];
  for (const e of [new BuiltinEmbedder(), trained]) {
    await e.embed(texts.map((t) => `${t} ${e.trained ? 'again' : ''}`), { kind: 'document' });
    for (const t of texts.map((x) => `${x} ${e.trained ? 'again' : ''}`)) {
      assert.ok(isNoted(t), `"${t}" was noted`);
      assert.deepEqual(analyze(t), analyzeText(t), `"${t}"`);
    }
  }
  // A query drops question-frame words ("what", "kind"), which the full-text index keeps: never noted.
  const query = 'what kind of zebra-keeper said that';
  await trained.embed([query], { kind: 'query' });
  assert.equal(isNoted(query), false);
  assert.ok(analyze(query).includes('kind'));
  const doc = `${texts[0]!} again`;
  analyze(doc).push('mutated');
  assert.deepEqual(analyze(doc), analyzeText(doc), 'a noted analysis is handed out as a copy');
});
