/**
 * A trained built-in model is megabytes of state. A burst of first uses (a
 * server's writers right after start) must read it once, not once each, and
 * a newer model announced during a load must win over the load's result.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openMemory } from '../../src/index.ts';
import { embeddingsFor } from '../../src/services/embeddings.ts';
import { named, testStores } from '../helpers/backend.ts';

test(named('concurrent first uses of the embedder load the stored model once; a newer model replaces it'), async () => {
  const stores = testStores('mnemos-embedder-load-');
  const seed = await openMemory({ db: stores.db });
  await seed.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `harbour note ${i}: the tide, the anchor and the pier`, sessionId: 's' })));
  const trained = await seed.embedBackfill({ retrain: true });
  await seed.close();

  const m = await openMemory({ db: stores.db });
  try {
    const vectors = m.store.vectors!;
    let loads = 0;
    const load = vectors.loadModel.bind(vectors);
    vectors.loadModel = async (p, provider) => {
      loads++;
      return load(p, provider);
    };
    const ctx = (m as unknown as { ctx: Parameters<typeof embeddingsFor>[0] }).ctx;
    const services = await Promise.all(Array.from({ length: 16 }, () => embeddingsFor(ctx, m.principal)));
    assert.equal(loads, 1, 'one read of the model for 16 concurrent first uses');
    assert.ok(services.every((s) => s === services[0] && s?.model === trained.model));
    // Writes that arrive together share that one load too.
    await Promise.all(Array.from({ length: 8 }, (_, i) => m.remember({ text: `later note ${i}` })));
    assert.equal(loads, 1);

    // A retrain in this process announces a newer model (forgetLoadedModel): the next uses get it.
    const again = await m.embedBackfill({ retrain: true });
    const after = await Promise.all(Array.from({ length: 4 }, () => embeddingsFor(ctx, m.principal)));
    assert.ok(after.every((s) => s?.model === again.model));
  } finally {
    await m.close();
    await stores.cleanup();
  }
});

test(named('a local ONNX model that cannot be loaded loses no write and fails no search; self_state says it is unavailable'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const { mkdirSync, writeFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    const broken = join(dir, 'broken-model');
    mkdirSync(join(broken, 'onnx'), { recursive: true });
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/model.onnx']) writeFileSync(join(broken, f), 'not what it should be');
    for (const directory of [join(dir, 'no-such-model'), broken]) {
      const m = await openMemory({ db, config: { embeddings: { provider: 'onnx', directory } } });
      try {
        const r = await m.remember({ text: `Bob likes coffee, says ${directory}` });
        assert.equal(r.status, 'created');
        const found = await m.search('Bob coffee');
        assert.ok(found.hits.some((h) => h.memory.id === r.id), 'found by keywords');
        assert.match(found.explain.skipped.vector ?? '', /keyword-only/);
        if (directory !== broken) assert.equal(m.selfState().parts.find((x) => x.part === 'embeddings')!.state, 'unavailable');
      } finally {
        await m.close();
      }
    }
  } finally {
    await cleanup();
  }
});

test(named('a write right after another process retrains gets a vector of the new model, not of the one whose vectors were dropped'), async () => {
  const stores = testStores('mnemos-embedder-stale-');
  const a = await openMemory({ db: stores.db });
  const b = await openMemory({ db: stores.db });
  try {
    await a.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `harbour note ${i}: the tide, the anchor and the pier`, sessionId: 's' })));
    const first = await a.embedBackfill({ retrain: true });
    // `a` now holds the first model and trusts its copy for a while, as a running server does.
    await a.remember({ text: 'the lighthouse keeper rows out at dawn' });
    // Another process (`mnemos embed --backfill --retrain`) learns a different model and drops the first one's vectors.
    await b.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `orchard entry ${i}: apples, pears and a ladder`, sessionId: 't' })));
    const second = await b.embedBackfill({ retrain: true });
    assert.notEqual(second.model, first.model);
    assert.ok(second.droppedVectors > 0);

    const late = await a.remember({ text: 'the ferry leaves the pier at noon' });
    const status = await b.status();
    assert.equal(status.embeddings?.vectors, status.embeddings?.searchable, 'every memory carries a vector of the current model');
    const hits = await b.search('ferry pier noon');
    assert.ok(hits.hits.some((h) => h.memory.id === late.id && h.why.ranks.vector !== undefined), 'found through its vector too');
  } finally {
    await a.close();
    await b.close();
    await stores.cleanup();
  }
});

test(named('a search right after another process retrains ranks with the new model, not with the one whose vectors were dropped'), async () => {
  const stores = testStores('mnemos-embedder-stale-search-');
  const a = await openMemory({ db: stores.db });
  const b = await openMemory({ db: stores.db });
  try {
    await a.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `harbour note ${i}: the tide, the anchor and the pier`, sessionId: 's' })));
    const first = await a.embedBackfill({ retrain: true });
    // `a` searches with the first model and trusts its copy for a while, as a running server does.
    assert.equal((await a.search('anchor at the pier')).explain.vectorModel, first.model);
    await b.rememberMany(Array.from({ length: 30 }, (_, i) => ({ text: `orchard entry ${i}: apples, pears and a ladder`, sessionId: 't' })));
    const second = await b.embedBackfill({ retrain: true });
    assert.notEqual(second.model, first.model);

    const r = await a.search('apples and a ladder');
    assert.equal(r.explain.vectorModel, second.model);
    assert.ok(r.hits.some((h) => h.why.ranks.vector !== undefined), 'the vector list still answers');
  } finally {
    await a.close();
    await b.close();
    await stores.cleanup();
  }
});
