/**
 * Consolidation keeps the built-in embedder's learned model fresh: the first
 * model once there is enough text, a new one once the namespace has doubled.
 * A new model is a new vector space, so searches keep the old model until
 * every memory has a vector of the new one, and the old vectors go last.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BuiltinEmbedder } from '../../src/embedding/builtin/builtin-embedder.ts';
import { fingerprintOf, type LearnedModelState } from '../../src/embedding/builtin/model.ts';
import type { VectorIndex } from '../../src/ports/vectors.ts';
import { modelRefreshDue } from '../../src/embedding/builtin/refresh-policy.ts';
import { trainOffThread } from '../../src/embedding/builtin/train-off-thread.ts';
import { STAGED_BUILTIN } from '../../src/services/embeddings.ts';
import { openMemory, type Mnemos } from '../../src/index.ts';
import { runCli } from '../../src/surfaces/cli/main.ts';
import { named, testStores } from '../helpers/backend.ts';
import { lifecycleStore } from './helpers.ts';

test('modelRefreshDue: the first model waits for enough text, later ones for the namespace to grow', () => {
  const table: { texts: number; trainedAtSize: number | null; due: boolean; says: RegExp }[] = [
    { texts: 0, trainedAtSize: null, due: false, says: /training starts at 100 memories \(0 now\)/ },
    { texts: 99, trainedAtSize: null, due: false, says: /starts at 100/ },
    { texts: 100, trainedAtSize: null, due: true, says: /no learned model yet and 100 memories/ },
    { texts: 150, trainedAtSize: 100, due: false, says: /retrained at 200 \(150 now\)/ },
    { texts: 200, trainedAtSize: 100, due: true, says: /grew from 100 memories .* to 200/ },
    // A model trained early (by hand, on little text) waits for the minimum, not for twice almost nothing.
    { texts: 30, trainedAtSize: 10, due: false, says: /retrained at 100/ },
    { texts: 100, trainedAtSize: 10, due: true, says: /grew/ },
    // Shrinking never asks for a model.
    { texts: 40, trainedAtSize: 500, due: false, says: /retrained at 1000/ },
    // Odd sizes round up: 2 x 75.5 is not reached by 151 - 1.
    { texts: 150, trainedAtSize: 75.5, due: false, says: /retrained at 151/ },
  ];
  for (const row of table) {
    const got = modelRefreshDue({ texts: row.texts, trainedAtSize: row.trainedAtSize, minTexts: 100, growth: 2 });
    assert.equal(got.due, row.due, JSON.stringify(row));
    assert.match(got.reason, row.says, JSON.stringify(row));
  }
});

const TOPICS = [
  ['harbour', 'boat', 'tide', 'anchor', 'sail', 'pier'],
  ['garden', 'tomato', 'soil', 'seed', 'compost', 'shovel'],
  ['violin', 'concert', 'rehearsal', 'melody', 'orchestra', 'bow'],
  ['mortgage', 'bank', 'interest', 'loan', 'savings', 'budget'],
];

/** Conversation-like texts: each session stays on one topic, so words of a topic share texts and neighbours. */
function sessions(count: number, from = 0): { text: string; sessionId: string }[] {
  return Array.from({ length: count }, (_, k) => {
    const i = from + k;
    const t = TOPICS[i % TOPICS.length]!;
    return { text: `Remark ${i}: the ${t[i % 6]} and the ${t[(i + 2) % 6]} came up again, then the ${t[(i + 4) % 6]}`, sessionId: `topic-${i % TOPICS.length}` };
  });
}

test('trainOffThread learns the same model as training in the thread, and stops when aborted', async () => {
  const texts = [sessions(40).filter((_, i) => i % 2 === 0).map((s) => s.text), sessions(40).filter((_, i) => i % 2 === 1).map((s) => s.text)];
  const here = BuiltinEmbedder.train(texts);
  const there = await trainOffThread(texts);
  assert.equal(there.model, here.model, 'same fingerprint');
  assert.ok(here.trained);
  const stop = new AbortController();
  const training = trainOffThread(texts, stop.signal);
  stop.abort();
  await assert.rejects(training, { code: 'unavailable', message: /stopped/ });
  await assert.rejects(trainOffThread(texts, stop.signal), { code: 'unavailable' }, 'an aborted signal never starts a thread');
});

/** A lifecycle store whose first model is due at `minTexts` memories, closed after `body`. */
async function withModelStore(minTexts: number, body: (m: Mnemos, v: VectorIndex) => Promise<void>): Promise<void> {
  const s = await lifecycleStore({ lifecycle: { modelMinTexts: minTexts } });
  try {
    await body(s.m, s.m.store.vectors!);
  } finally {
    await s.close();
  }
}

/** Saves a model trained on the first `n` session texts under `provider`, as another run or build would have left it. */
async function saveTrained(m: Mnemos, provider: string, n: number, tweak: (state: LearnedModelState) => LearnedModelState = (x) => x): Promise<string> {
  const e = BuiltinEmbedder.train([sessions(n).map((x) => x.text)]);
  await m.store.vectors!.saveModel(m.principal, provider, { model: e.model, state: tweak(e.state()!), texts: n });
  return e.model;
}

async function vectorModelOfSearch(m: Mnemos): Promise<{ model: string | null; hits: number }> {
  // A stored text itself: even the untrained embedder's word pieces find that.
  const r = await m.search({ query: sessions(1)[0]!.text, mode: 'vector', limit: 5 });
  return { model: r.explain.vectorModel, hits: r.hits.length };
}

test(named('consolidation trains the built-in model at enough text, switches only when every memory has a new vector, and retrains when the store doubles'), async () => {
  await withModelStore(40, async (m, v) => {
    await m.rememberMany(sessions(30));
    const early = await m.consolidate();
    assert.equal(early.model?.status, 'current');
    assert.match(early.model!.reason, /training starts at 40 memories \(30 now\)/);
    assert.equal(await v.modelId(m.principal, 'builtin'), null);

    await m.rememberMany(sessions(15, 30));
    const untrained = await vectorModelOfSearch(m);
    assert.ok(untrained.hits > 0);
    assert.deepEqual((await m.status()).embeddings, { provider: 'builtin', model: untrained.model, learned: false, vectors: 45, searchable: 45 });
    assert.match(untrained.model!, /:untrained$/);
    // While the new model's vectors are written, searches still use the old model, with all of its vectors.
    const during: { model: string | null; hits: number }[] = [];
    const first = await m.consolidate({
      onProgress: async (phase) => {
        if (phase === 'vectors' && during.length === 0 && (await v.modelId(m.principal, STAGED_BUILTIN))) during.push(await vectorModelOfSearch(m));
      },
    });
    assert.deepEqual(during, [untrained]);
    assert.equal(first.model?.status, 'trained');
    assert.equal(first.model?.learnedFrom, 45);
    assert.equal(first.counts.modelTrained, 1);
    assert.equal(first.counts.modelEmbedded, 45);
    assert.ok(!first.counts.modelDroppedVectors, 'the old vectors stay until the next run (other processes may still search with them)');
    assert.ok(!first.counts.embedded, 'nothing was left without a vector');
    const trained = first.model!.model!;
    assert.doesNotMatch(trained, /untrained/);
    assert.equal(await v.modelId(m.principal, 'builtin'), trained);
    assert.equal(await v.modelId(m.principal, STAGED_BUILTIN), null, 'the staged model was switched in');
    assert.equal(await v.count(m.principal, trained), 45);
    assert.equal(await v.count(m.principal, untrained.model!), 45);
    assert.deepEqual(await vectorModelOfSearch(m), { model: trained, hits: 5 }, 'the trained model also finds the text\'s topic');
    assert.deepEqual((await m.status()).embeddings, { provider: 'builtin', model: trained, learned: true, vectors: 45, searchable: 45 });

    const again = await m.consolidate({ force: true });
    assert.equal(again.model?.status, 'current');
    assert.match(again.model!.reason, /learned from 45 memories; it is retrained at 90 \(45 now\)/);
    assert.ok(!again.counts.modelTrained);
    assert.equal(again.counts.modelDroppedVectors, 45, "the next run deletes the untrained model's vectors");
    assert.equal(await v.count(m.principal, untrained.model!), 0);
    assert.equal(await v.count(m.principal, trained), 45);

    await m.rememberMany(sessions(45, 45));
    const second = await m.consolidate();
    assert.equal(second.model?.status, 'trained');
    assert.equal(second.model?.previous, trained);
    assert.equal(second.counts.modelEmbedded, 90);
    assert.equal(await v.count(m.principal, second.model!.model!), 90);
    const third = await m.consolidate({ force: true });
    assert.equal(third.counts.modelDroppedVectors, 90, 'the first model vectors, new writes included');
    assert.equal(await v.count(m.principal, trained), 0);
    assert.equal((await v.loadModel(m.principal, 'builtin'))?.texts, 90, 'the model records the size it was trained at');
  });
});

test(named('a model staged by an interrupted run is finished by the next one; a retrain by hand replaces it'), async () => {
  await withModelStore(1000, async (m, v) => {
    await m.rememberMany(sessions(20));
    const staged = await saveTrained(m, STAGED_BUILTIN, 20);
    const r = await m.consolidate();
    assert.equal(r.model?.status, 'resumed', 'no training is due (1,000 memories), yet the staged model is finished');
    assert.ok(!r.counts.modelTrained);
    assert.equal(r.counts.modelSwitched, 1);
    assert.equal(r.counts.modelEmbedded, 20);
    assert.equal(await v.modelId(m.principal, 'builtin'), staged);
    assert.equal(await v.count(m.principal, staged), 20);

    // A model staged before a hand-run retrain is older than what the retrain learns: it must never take over.
    await saveTrained(m, STAGED_BUILTIN, 10);
    const done = await m.embedBackfill({ retrain: true });
    assert.equal(done.trained, true);
    assert.equal(await v.modelId(m.principal, STAGED_BUILTIN), null);
    assert.equal(await v.modelId(m.principal, 'builtin'), done.model);
    assert.equal((await v.loadModel(m.principal, 'builtin'))?.texts, 20);
  });
});

test(named('consolidation with embeddings off leaves models alone'), async () => {
  const stores = testStores('mnemos-model-off-');
  const m = await openMemory({ db: stores.db, config: { embeddings: { provider: 'off' } }, lifecycle: { modelMinTexts: 5 } });
  try {
    await m.rememberMany(sessions(10));
    const r = await m.consolidate();
    assert.equal(r.model?.status, 'off');
    assert.deepEqual((await m.status()).embeddings, { provider: 'off', model: null, learned: null, vectors: 0, searchable: 10 });
    assert.ok(!r.counts.modelTrained);
  } finally {
    await m.close();
    await stores.cleanup();
  }
});

test(named('the CLI says whether the model is trained: status and the consolidation report'), async () => {
  const stores = testStores('mnemos-model-cli-');
  const cli = async (argv: string[]) => {
    let out = '';
    let err = '';
    const code = await runCli([...argv, '--db', stores.db], { stdout: (x) => ((out += x), true), stderr: (x) => ((err += x), true), env: {}, isTTY: false });
    return { code, out, err };
  };
  try {
    const m = await openMemory({ db: stores.db });
    await m.rememberMany(sessions(5));
    await m.close();
    const status = await cli(['status']);
    assert.equal(status.code, 0, status.err);
    assert.match(status.out, /vectors +5 of 5 memories, builtin model builtin-\S+:untrained, not trained yet/);
    const run = await cli(['consolidate']);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /embedding model current: no learned model yet: training starts at 100 memories \(5 now\)/);
    const json = JSON.parse((await cli(['status', '--json'])).out);
    assert.deepEqual({ ...json.embeddings, model: undefined }, { provider: 'builtin', model: undefined, learned: false, vectors: 5, searchable: 5 });
  } finally {
    await stores.cleanup();
  }
});

test(named('a stored model this build cannot read never stops writes; consolidation trains a new one, and a damaged staged model is discarded'), async () => {
  await withModelStore(10, async (m, v) => {
    // A model from a build with another text analyzer (as after an upgrade that changed it).
    const old = await saveTrained(m, 'builtin', 10, (state) => ({ ...state, analyzer: 'an-older-analyzer' }));
    await m.rememberMany(sessions(12));
    assert.deepEqual({ ...(await m.status()).embeddings, model: undefined }, { provider: 'builtin', model: undefined, learned: false, vectors: 12, searchable: 12 }, 'written with untrained vectors');
    assert.ok((await m.search({ query: sessions(1)[0]!.text, mode: 'vector' })).hits.length > 0);
    const r = await m.consolidate();
    assert.equal(r.model?.status, 'trained');
    assert.match(r.model!.reason, /cannot be used by this build \(.*analyzer an-older-analyzer.*\), so no learned model yet and 12 memories/);
    assert.equal(r.model?.previous, old);
    assert.equal((await m.status()).embeddings.learned, true);

    // A staged model that cannot be read is reported, discarded, and the rest of the run goes on.
    await v.saveModel(m.principal, STAGED_BUILTIN, { model: 'builtin-damaged', state: { format: 'something else' }, texts: 12 });
    await m.remember({ text: 'written after the damage', sessionId: 'topic-0' });
    const bad = await m.consolidate();
    assert.equal(bad.status, 'done');
    assert.equal(bad.model?.status, 'failed');
    assert.match(bad.model!.reason, /staged built-in model could not be read .*discarded/);
    assert.equal(bad.model?.model, r.model!.model, 'the model in use stays');
    assert.equal(bad.counts.modelFailed, 1);
    assert.ok('vectorLogPruned' in bad.counts, 'the rest of the vectors phase ran');
    assert.equal(await v.modelId(m.principal, STAGED_BUILTIN), null);
  });
});

test(named('a model trained with the previous text analyzer keeps working, and the next consolidation retrains it'), async () => {
  await withModelStore(10, async (m) => {
    // Analyzer @1 differs only on scripts without spaces and Turkish İ: its model still reads English words the same way.
    const old = await saveTrained(m, 'builtin', 10, (state) => {
      const st = { ...state, analyzer: 'en-lucene33-porter@1' };
      return { ...st, fingerprint: fingerprintOf({ analyzer: st.analyzer, o: st.options, terms: st.terms, idf: st.idf, vectors: st.vectors }) };
    });
    await m.rememberMany(sessions(12));
    assert.equal((await m.status()).embeddings.learned, true, 'the old model is in use, not dropped');
    const r = await m.consolidate();
    assert.equal(r.model?.status, 'trained');
    assert.match(r.model!.reason, /trained with text analyzer en-lucene33-porter@1, this build uses \S+, so /);
    assert.equal(r.model?.previous, old);
    assert.equal((await m.status()).embeddings.learned, true);
  });
});

test(named('a model an earlier build stored with its vocabulary as words is retrained by the next consolidation'), async () => {
  await withModelStore(10, async (m) => {
    // Format version 1 kept the words themselves (a forgotten memory's among them); its fingerprint covers the same parts.
    const old = await saveTrained(m, 'builtin', 12, (state) => ({ ...state, version: 1 }));
    await m.rememberMany(sessions(12));
    assert.equal((await m.status()).embeddings.learned, true, 'the old model still loads and is in use');
    const r = await m.consolidate();
    assert.equal(r.model?.status, 'trained', 'retrained although the store has not grown');
    assert.match(r.model!.reason, /keeps its vocabulary as words/);
    assert.equal(r.model?.previous, old);
    const again = await m.consolidate({ force: true });
    assert.notEqual(again.model?.status, 'trained', 'the new model is kept');
  });
});
