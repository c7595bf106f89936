/**
 * The vector half of the store contract (runs inside runStoreContract, on
 * every backend whose capabilities say `vectors`): writes in the batch's
 * transaction and through put, nearest with scope and filters applied before
 * ranking, missing/count, forget removing the raw rows, the learned model.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contentHash } from '../../src/domain/hash.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Memory } from '../../src/domain/memory.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { toIso } from '../../src/domain/time.ts';
import type { MemoryStore } from '../../src/ports/store.ts';
import type { VectorIndex } from '../../src/ports/vectors.ts';
import type { RememberInput } from '../../src/services/inputs.ts';
import type { ContractStore } from './contract.ts';

function unit(...xs: number[]): Float32Array {
  const n = Math.hypot(...xs);
  return Float32Array.from(xs, (x) => x / n);
}

function next(prev: Memory, text: string): Memory {
  const now = Date.now();
  return { ...prev, id: newId(now), version: prev.version + 1, text, contentHash: contentHash(text), recordedAt: toIso(now), supersededAt: null, supersededBy: null };
}

export interface VectorContractContext {
  cs: () => ContractStore;
  owner: Principal;
  agent: Principal;
  guest: Principal;
  otherNs: Principal;
  mem: (p: Principal, input: RememberInput) => Memory;
}

export function vectorContractTests(x: VectorContractContext): void {
  const { owner, agent, guest, otherNs, mem } = x;
  const vectorsOf = (s: MemoryStore): VectorIndex | null => (s.capabilities.vectors && s.vectors ? s.vectors : null);

  test('vectors: written with the batch or by put; nearest ranks only what scope and filter admit', async (t) => {
    const s = x.cs().store;
    const v = vectorsOf(s);
    if (!v) return t.skip('this adapter has no vectors');
    const M = 'contract-4d';
    const q = unit(1, 0, 0, 0);
    const priv = mem(owner, { text: 'vector owner only', visibility: 'owner' });
    const shared = mem(owner, { text: 'vector shared', visibility: 'shared' });
    const pub = mem(owner, { text: 'vector public preference', visibility: 'public', type: 'preference' });
    const plain = mem(owner, { text: 'vector not yet embedded', visibility: 'owner' });
    const own = mem(agent, { text: 'vector agent private', visibility: 'owner' });
    const far = mem(otherNs, { text: 'vector elsewhere', visibility: 'public' });
    // Two inserts take the bulk path, one alone the general path: both must store the vector in the batch.
    await s.apply(owner, [
      { kind: 'insert', memory: priv, onExistingSource: 'conflict', vector: { model: M, vector: q } },
      { kind: 'insert', memory: shared, onExistingSource: 'conflict', vector: { model: M, vector: unit(0.8, 0.6, 0, 0) } },
    ]);
    await s.apply(owner, [{ kind: 'insert', memory: pub, onExistingSource: 'conflict', vector: { model: M, vector: unit(0.6, 0.8, 0, 0) } }]);
    await s.apply(owner, [{ kind: 'insert', memory: plain, onExistingSource: 'conflict' }]);
    await s.apply(agent, [{ kind: 'insert', memory: own, onExistingSource: 'conflict' }]);
    await s.apply(otherNs, [{ kind: 'insert', memory: far, onExistingSource: 'conflict', vector: { model: M, vector: q } }]);
    assert.equal(await v.put(agent, [{ id: own.id, model: M, vector: unit(0.9, 0.1, 0, 0) }, { id: priv.id, model: M, vector: unit(0, 1, 0, 0) }]), 1, 'an agent writes only its own');
    assert.equal(await v.put(guest, [{ id: shared.id, model: M, vector: q }]), 0);
    assert.equal(await v.put(owner, [{ id: far.id, model: M, vector: q }]), 0, 'another namespace is not writable');

    const ids = async (p: Principal, limit: number, filter = {}) => (await v.nearest(p, { model: M, vector: q, filter, limit })).hits.map((h) => h.id);
    assert.deepEqual(await ids(owner, 1), [priv.id]);
    assert.deepEqual(await ids(owner, 10), [priv.id, own.id, shared.id, pub.id]);
    // With limit 1 a global top-k cut before scope would leave the guest nothing; scope comes first.
    assert.deepEqual(await ids(guest, 1), [shared.id]);
    assert.deepEqual(await ids(guest, 10), [shared.id, pub.id]);
    assert.deepEqual(await ids(agent, 10), [own.id, shared.id, pub.id]);
    assert.deepEqual(await ids(otherNs, 10), [far.id], 'another namespace never leaks either way');
    assert.deepEqual(await ids(owner, 1, { types: ['preference'] }), [pub.id], 'the filter applies before ranking');
    const { hits } = await v.nearest(owner, { model: M, vector: q, filter: {}, limit: 2 });
    assert.ok(Math.abs(hits[0]!.score - 1) < 1e-6 && hits[0]!.score > hits[1]!.score);
    await assert.rejects(v.nearest(owner, { model: M, vector: unit(1, 0, 0), filter: {}, limit: 1 }), { code: 'validation_failed' });

    assert.equal(await v.count(owner, M), 4);
    assert.equal(await v.count(guest, M), 2);
    const missing = (await v.missing(owner, M, 1000)).map((m) => m.id);
    assert.ok(missing.includes(plain.id) && !missing.includes(priv.id) && !missing.includes(own.id));
    assert.equal((await v.missing(owner, M, 1000)).find((m) => m.id === plain.id)?.text, plain.text);
    assert.ok(!(await v.missing(guest, M, 1000)).some((m) => m.id === plain.id), 'missing is scoped too');
    assert.equal(await v.put(owner, [{ id: plain.id, model: M, vector: unit(0, 0, 0, 1) }]), 1);
    assert.ok(!(await v.missing(owner, M, 1000)).some((m) => m.id === plain.id));
    assert.deepEqual((await v.nearest(owner, { model: M, vector: unit(0, 0, 0, 1), filter: {}, limit: 1 })).hits.map((h) => h.id), [plain.id]);

    // A new version carries its own vector; the replaced one leaves the results with its row.
    const shared2 = next(shared, 'vector shared, edited');
    await s.apply(owner, [{ kind: 'update', previousId: shared.id, next: shared2, action: 'update', vector: { model: M, vector: unit(0, 0, 1, 0) } }]);
    assert.deepEqual((await v.nearest(guest, { model: M, vector: unit(0, 0, 1, 0), filter: {}, limit: 1 })).hits.map((h) => h.id), [shared2.id]);
    assert.deepEqual(await ids(guest, 10), [pub.id, shared2.id]);
  });

  test('vectors: forget removes them (raw rows) and nearest stops returning them', async (t) => {
    const cs = x.cs();
    const v = vectorsOf(cs.store);
    if (!v) return t.skip('this adapter has no vectors');
    const M = 'contract-forget';
    const q = unit(0, 1, 0);
    const v1 = mem(owner, { text: 'vector to forget' });
    await cs.store.apply(owner, [{ kind: 'insert', memory: v1, onExistingSource: 'conflict', vector: { model: M, vector: q } }]);
    const v2 = next(v1, 'vector to forget, edited');
    await cs.store.apply(owner, [{ kind: 'update', previousId: v1.id, next: v2, action: 'update', vector: { model: M, vector: q } }]);
    const kept = mem(owner, { text: 'vector that stays' });
    await cs.store.apply(owner, [{ kind: 'insert', memory: kept, onExistingSource: 'conflict', vector: { model: M, vector: unit(1, 1, 0) } }]);
    assert.equal((await cs.store.forgetFootprint(owner, v1.id))?.places.vectors, 2);
    const before = await cs.rawVectorRows();
    await cs.store.apply(owner, [{ kind: 'forget', lineageId: v1.id, reason: 'asked' }]);
    assert.equal(before - (await cs.rawVectorRows()), 2, 'both versions\u2019 vectors are gone from the table');
    assert.deepEqual((await v.nearest(owner, { model: M, vector: q, filter: {}, limit: 5 })).hits.map((h) => h.id), [kept.id]);
    assert.equal(await v.count(owner, M), 1);
  });

  test('vectors: pruning the change log keeps the newest entries; a store instance left behind reloads and stays right', async (t) => {
    const cs = x.cs();
    const v = vectorsOf(cs.store);
    if (!v) return t.skip('this adapter has no vectors');
    const M = 'contract-prune';
    const other = await cs.reopen();
    try {
      const w = other.vectors!;
      const q = unit(1, 0, 0);
      const near = async (limit = 20) => new Set((await w.nearest(owner, { model: M, vector: q, filter: {}, limit })).hits.map((h) => h.id));
      const first = Array.from({ length: 5 }, (_, i) => mem(owner, { text: `prune first ${i}` }));
      await cs.store.apply(owner, first.map((m, i) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: M, vector: unit(1, i / 10, 0) } })));
      assert.deepEqual(await near(), new Set(first.map((m) => m.id)), 'the second instance is up to date');
      // It falls behind: a forget and three new vectors it has not seen.
      await cs.store.apply(owner, [{ kind: 'forget', lineageId: first[0]!.id, reason: 'test' }]);
      const later = Array.from({ length: 3 }, (_, i) => mem(owner, { text: `prune later ${i}` }));
      await cs.store.apply(owner, later.map((m, i) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: M, vector: unit(1, 0, i / 10) } })));
      const before = await cs.rawVectorLogRows();
      await assert.rejects(v.pruneLog(guest, 2), { code: 'forbidden' });
      await assert.rejects(v.pruneLog(owner, -1), { code: 'validation_failed' });
      assert.equal(await v.pruneLog(owner, 2), before - 2);
      assert.equal(await cs.rawVectorLogRows(), 2);
      assert.equal(await v.pruneLog(owner, 2), 0, 'nothing more to prune');
      const expected = new Set([...first.slice(1), ...later].map((m) => m.id));
      assert.deepEqual(await near(), expected, 'the instance left behind reloaded: the forgotten vector is gone, the new ones are there');
      assert.deepEqual(new Set((await v.nearest(owner, { model: M, vector: q, filter: {}, limit: 20 })).hits.map((h) => h.id)), expected);
    } finally {
      await other.close();
    }
  });

  test('vectors: dropping replaced models deletes only older models of the family, in the caller\u2019s namespace', async (t) => {
    const cs = x.cs();
    const v = vectorsOf(cs.store);
    if (!v) return t.skip('this adapter has no vectors');
    const q = unit(1, 0, 0);
    const put = async (p: Principal, model: string) => {
      const m = mem(p, { text: `vector of ${model}` });
      await cs.store.apply(p, [{ kind: 'insert', memory: m, onExistingSource: 'conflict', vector: { model, vector: q } }]);
      return m.id;
    };
    // '_' is a LIKE wildcard: 'fxm-lookalike' must not pass for the family 'f_m-'.
    await put(owner, 'f_m-old-1');
    await put(owner, 'f_m-old-2');
    const current = await put(owner, 'f_m-new');
    const lookalike = await put(owner, 'fxm-lookalike');
    const elsewhere = await put(otherNs, 'f_m-old-1');
    const before = await cs.rawVectorRows();
    await assert.rejects(v.dropReplacedModels(guest, 'f_m-', 'f_m-new'), { code: 'forbidden' });
    await assert.rejects(v.dropReplacedModels(owner, 'f_m-', 'fxm-lookalike'), { code: 'validation_failed' });
    assert.equal(await v.dropReplacedModels(owner, 'f_m-', 'f_m-new'), 2);
    assert.equal(await cs.rawVectorRows(), before - 2);
    const ids = async (p: Principal, model: string) => (await v.nearest(p, { model, vector: q, filter: {}, limit: 5 })).hits.map((h) => h.id);
    assert.deepEqual(await ids(owner, 'f_m-new'), [current]);
    assert.deepEqual(await ids(owner, 'fxm-lookalike'), [lookalike]);
    assert.deepEqual(await ids(owner, 'f_m-old-1'), []);
    assert.deepEqual(await ids(otherNs, 'f_m-old-1'), [elsewhere], 'another namespace keeps its vectors');
  });

  test('vectors: a memory keeps one vector per model; writing another model leaves the first', async (t) => {
    const s = x.cs().store;
    const v = vectorsOf(s);
    if (!v) return t.skip('this adapter has no vectors');
    const a = mem(owner, { text: 'two models, one memory', visibility: 'owner' });
    await s.apply(owner, [{ kind: 'insert', memory: a, onExistingSource: 'conflict', vector: { model: 'pair-a', vector: unit(1, 0, 0, 0) } }]);
    assert.equal(await v.put(owner, [{ id: a.id, model: 'pair-b', vector: unit(0, 1, 0, 0) }]), 1);
    assert.equal(await v.count(owner, 'pair-a'), 1, "model b's vector did not replace model a's");
    assert.equal(await v.count(owner, 'pair-b'), 1);
    const nearA = await v.nearest(owner, { model: 'pair-a', vector: unit(1, 0, 0, 0), filter: {}, limit: 3 });
    assert.deepEqual(nearA.hits.map((h) => [h.id, Math.round(h.score * 1000) / 1000]), [[a.id, 1]]);
    const nearB = await v.nearest(owner, { model: 'pair-b', vector: unit(1, 0, 0, 0), filter: {}, limit: 3 });
    assert.deepEqual(nearB.hits.map((h) => [h.id, Math.round(h.score * 1000) / 1000]), [[a.id, 0]]);
    // Replacing a model's vector replaces only that model's.
    await v.put(owner, [{ id: a.id, model: 'pair-b', vector: unit(1, 0, 0, 0) }]);
    assert.equal(await v.count(owner, 'pair-b'), 1);
    assert.equal((await v.nearest(owner, { model: 'pair-b', vector: unit(1, 0, 0, 0), filter: {}, limit: 3 })).hits[0]?.score.toFixed(3), '1.000');
    assert.deepEqual(await v.missing(owner, 'pair-a', 10).then((r) => r.filter((m) => m.id === a.id)), []);
  });

  test('vectors: the learned model is kept per namespace and provider; only an owner replaces it', async (t) => {
    const v = vectorsOf(x.cs().store);
    if (!v) return t.skip('this adapter has no vectors');
    assert.equal(await v.loadModel(owner, 'contract'), null);
    assert.equal(await v.modelId(owner, 'contract'), null);
    await v.saveModel(owner, 'contract', { model: 'm-1', state: { weights: [1, 2] }, texts: 3 });
    await v.saveModel(owner, 'contract', { model: 'm-2', state: { weights: [3] }, texts: 5 });
    const got = await v.loadModel(owner, 'contract');
    assert.deepEqual({ ...got, trainedAt: undefined }, { model: 'm-2', state: { weights: [3] }, texts: 5, trainedAt: undefined });
    assert.ok(!Number.isNaN(Date.parse(got!.trainedAt)));
    assert.equal(await v.modelId(agent, 'contract'), 'm-2', 'the namespace shares one model');
    assert.equal(await v.modelId(owner, 'other-provider'), null);
    assert.equal(await v.modelId(otherNs, 'contract'), null);
    await assert.rejects(v.saveModel(agent, 'contract', { model: 'm-3', state: null, texts: 0 }), { code: 'forbidden' });
    await assert.rejects(v.deleteModel(agent, 'contract'), { code: 'forbidden' });
    await v.saveModel(owner, 'other-provider', { model: 'o-1', state: null, texts: 1 });
    assert.equal(await v.deleteModel(owner, 'contract'), true);
    assert.equal(await v.deleteModel(owner, 'contract'), false, 'nothing left to delete');
    assert.equal(await v.loadModel(owner, 'contract'), null);
    assert.equal(await v.modelId(owner, 'other-provider'), 'o-1', 'only the named provider goes');
  });
}
