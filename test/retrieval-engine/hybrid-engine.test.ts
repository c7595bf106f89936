import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openMemory } from '../../src/index.ts';
import { loadLocomo } from '../../src/bench/locomo.ts';
import { runLocomo } from '../../src/bench/locomo-harness.ts';
import { EngineBenchStores, engineLocomoSearch } from '../../src/bench/engine-search.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';

test(named('vector search applies scope before ranking: a guest finds the shared memory even when owner-only ones are nearer'), async () => {
  const { db, cleanup } = testStores();
  try {
    // No similarity floor here: the point is which rows get ranked at all.
    const owner = await openMemory({ db, config: { vectorMinSimilarity: -1 } });
    const near = Array.from({ length: 300 }, (_, i) => ({ text: `the lighthouse keeper logged storm number ${i} on the northern cliffs` }));
    await owner.rememberMany(near);
    const shared = await owner.remember({ text: 'the lighthouse keeper wrote about a storm over the cliffs', visibility: 'shared' });
    // Untrained (word pieces): a trained built-in model serves the owner only (the test below).
    const guest = owner.as({ role: 'guest', namespace: 'default', id: 'g' });
    const r = await guest.search({ query: 'lighthouse keeper storm cliffs', mode: 'vector', limit: 5 });
    assert.deepEqual(r.hits.map((h) => h.memory.id), [shared.id]);
    const o = await owner.search({ query: 'lighthouse keeper storm cliffs', mode: 'vector', limit: 5 });
    assert.equal(o.hits.length, 5);
    // A filter also applies before ranking.
    const tagged = await owner.remember({ text: 'harbour master notes', tags: ['port'] });
    const f = await owner.search({ query: 'lighthouse keeper storm cliffs', mode: 'vector', limit: 5, filter: { tags: ['port'] } });
    assert.ok(f.hits.every((h) => h.memory.id === tagged.id));
    await owner.close();
  } finally {
    await cleanup();
  }
});

test(named('hybrid search: the trained built-in embedder finds a paraphrase keyword search misses; explain gives each list rank'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db });
    const convo = [
      'I adopted a puppy last weekend, a little beagle',
      'the puppy chews everything, my shoes are ruined',
      'we take the dog to the park every morning',
      'my beagle loves the park and chasing squirrels',
      'work has been busy with the quarterly report',
      'the quarterly report is due on friday',
    ];
    await m.rememberMany(convo.map((text, i) => ({ text, sessionId: 's1', key: `t${i}` })));
    const untrained = (await m.search({ query: 'dog', mode: 'vector' })).explain.vectorModel!;
    assert.equal(await m.store.vectors!.count(m.principal, untrained), convo.length, 'written with vectors of the untrained model');
    const b = await m.embedBackfill({ retrain: true });
    assert.equal(b.trained, true);
    assert.equal(b.embedded, convo.length);
    // The untrained model's vectors are gone: both backends kept them beside the new ones until the drop.
    assert.equal(await m.store.vectors!.count(m.principal, untrained), 0);
    assert.equal(b.droppedVectors, convo.length);
    const r = await m.search({ query: 'dog', limit: 3 });
    assert.ok(r.explain.lists.includes('vector'));
    assert.ok(r.hits.length > 0);
    for (const h of r.hits) assert.ok(Object.keys(h.why.ranks).length > 0);
    const kw = await m.search({ query: 'beagle chews', mode: 'keyword', limit: 3 });
    assert.deepEqual(Object.keys(kw.hits[0]!.why.ranks), ['keyword']);
    await m.close();
  } finally {
    await cleanup();
  }
});

test(named('mnemos context packs whole cited items and never exceeds the budget'), async () => {
  const { dir, db, cleanup } = testStores();
  try {
    const bin = resolve('bin/mnemos.js');
    const run = (...a: string[]) => spawnSync(process.execPath, [bin, ...a], { cwd: dir, encoding: 'utf8', env: { ...process.env, MNEMOS_DB: db } });
    // The notes go in through the library (8 spawned adds were most of this test's time); `context` is what is tested, through the CLI.
    const seed = await openMemory({ db });
    try {
      for (let i = 0; i < 8; i++) await seed.remember({ text: `project atlas note ${i}: ${'the parser ships soon '.repeat(4 + i)}` });
    } finally {
      await seed.close();
    }
    for (const budget of [5, 40, 120, 400]) {
      const r = run('context', 'atlas parser', '--max-tokens', String(budget), '--json');
      assert.equal(r.status, 0, r.stderr);
      const body = JSON.parse(r.stdout);
      assert.ok(body.usedTokens <= budget, `used ${body.usedTokens} of ${budget}`);
      for (const item of body.items) {
        assert.match(item.text, /^project atlas note \d: /);
        assert.ok(item.citation.length > 0);
      }
      if (budget === 5) assert.equal(body.items.length, 0);
      if (budget === 400) assert.ok(body.items.length >= 2);
    }
  } finally {
    await cleanup();
  }
});

const LOCOMO = resolve('../shared/datasets/locomo/locomo10.json');

test(named('LoCoMo slice (two conversations) through the engine stays above its floors'), { skip: existsSync(LOCOMO) ? false : 'dataset not present' }, async () => {
  const convs = (await loadLocomo(LOCOMO)).slice(0, 2);
  // One fresh store per conversation on either backend, as the benchmark measures it.
  const targets = testStores();
  const stores = new EngineBenchStores({ mode: 'hybrid', ...(BACKEND === 'postgres' ? { db: () => targets.store('locomo') } : {}) });
  try {
    const r = await runLocomo(convs, engineLocomoSearch(stores, 'hybrid'));
    // Measured 0.589 / 0.705 on this slice; floors just under, so a regression fails.
    assert.ok(r.report.recall['5']! >= 0.57, `recall@5 ${r.report.recall['5']}`);
    assert.ok(r.report.recall['10']! >= 0.69, `recall@10 ${r.report.recall['10']}`);
  } finally {
    await stores.close();
    await targets.cleanup();
  }
});

test(named('search pages are slices of one ranking in every mode, ties and filters included (records are read page by page)'), async () => {
  const { db, cleanup } = testStores();
  try {
    const m = await openMemory({ db, config: { vectorMinSimilarity: -1 } });
    // Repeated texts in different sessions tie on keyword rank patterns across lists.
    const texts = Array.from({ length: 60 }, (_, i) => ({
      text: i % 3 === 0 ? 'river boat trip at dawn' : `river notes ${i} about the boat and the ${i % 2 ? 'harbour' : 'dawn'}`,
      sessionId: `s${i}`,
      key: `k${i}`,
      tags: i % 4 === 0 ? ['keep'] : [],
    }));
    await m.rememberMany(texts);
    await m.embedBackfill({ retrain: true });
    for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
      for (const filter of [undefined, { tags: ['keep'] }]) {
        const whole = await m.search({ query: 'river boat dawn', mode, limit: 24, ...(filter ? { filter } : {}) });
        const pages: string[] = [];
        for (let offset = 0; offset < 24; offset += 6) {
          const r = await m.search({ query: 'river boat dawn', mode, limit: 6, offset, ...(filter ? { filter } : {}) });
          pages.push(...r.hits.map((h) => h.memory.id));
        }
        assert.ok(whole.hits.length > (filter ? 10 : 20), `${mode}: enough hits to page (${whole.hits.length})`);
        assert.deepEqual(pages, whole.hits.map((h) => h.memory.id), `${mode} ${filter ? 'filtered' : ''}: pages match one ranking`);
        if (filter) assert.ok(whole.hits.every((h) => h.memory.tags.includes('keep')));
      }
    }
    await m.close();
  } finally {
    await cleanup();
  }
});

/** A fresh engine on the selected backend, closed and removed after `body`. */
async function withEngine(body: (m: Awaited<ReturnType<typeof openMemory>>) => Promise<void>): Promise<void> {
  const { db, cleanup } = testStores();
  const m = await openMemory({ db });
  try {
    await body(m);
  } finally {
    await m.close();
    await cleanup();
  }
}

test(named('an empty result says how many memories were searched, counting at most 1,000 of them'), async () => {
  await withEngine(async (m) => {
    await m.rememberMany([{ text: 'the harbour at dawn' }, { text: 'tea with the neighbours' }, { text: 'a long walk home' }]);
    const few = await m.search({ query: 'volcano', mode: 'keyword' });
    assert.equal(few.hits.length, 0);
    assert.equal(few.explain.visibleMemories, 3);
    assert.equal(few.explain.visibleMemoriesCapped, undefined);
    assert.match(few.explain.message!, /nothing among the 3 memories visible to owner/);
    await m.rememberMany(Array.from({ length: 1000 }, (_, i) => ({ text: `ledger line ${i} about the harbour` })));
    const many = await m.search({ query: 'volcano', mode: 'keyword' });
    assert.equal(many.explain.visibleMemories, 1000);
    assert.equal(many.explain.visibleMemoriesCapped, true);
    assert.match(many.explain.message!, /nothing among the more than 1,000 memories visible to owner/);
  });
});

test(named('an untrained built-in model joins a hybrid search only when no keyword matches'), async () => {
  await withEngine(async (m) => {
    const convo = [
      'We booked the restaurant by the river for Friday',
      'The restaurant serves grilled fish and lemon cake',
      'My sister is flying in from Lisbon on Thursday',
      'The quarterly report is due on Monday morning',
    ];
    await m.rememberMany(convo.map((text, i) => ({ text, sessionId: 's1', key: `t${i}` })));
    // A keyword match: word-piece vectors would only add noise, so they stay out and explain says why.
    const matched = await m.search({ query: 'restaurant by the river' });
    assert.ok(!matched.explain.lists.includes('vector'));
    assert.match(matched.explain.skipped.vector!, /not trained yet/);
    assert.equal(matched.hits[0]?.memory.text, convo[0]);
    // Nothing matches a keyword (every word misspelt): the word-piece vectors are asked after all.
    const typo = await m.search({ query: 'resturant rivr', limit: 2 });
    assert.deepEqual(typo.explain.terms.length > 0 && typo.explain.lists, ['keyword', 'vector']);
    assert.equal(typo.explain.skipped.vector, undefined);
    // Asked for vectors alone, the caller gets them.
    assert.ok((await m.search({ query: 'restaurant by the river', mode: 'vector' })).explain.lists.includes('vector'));
    // Once trained, the vector list is fused again.
    await m.embedBackfill({ retrain: true });
    const trained = await m.search({ query: 'restaurant by the river' });
    assert.ok(trained.explain.lists.includes('vector'));
    assert.equal(trained.explain.skipped.vector, undefined);
  });
});

// The trained built-in model learns from every memory of the namespace: a guest's query for a word only the
// owner wrote ranked the guest's shared memories by the owner's private associations.
test(named("a trained built-in model serves the owner's searches only: a guest's ranking cannot follow owner-only text"), async () => {
  const { db, cleanup } = testStores();
  try {
    const owner = await openMemory({ db });
    const topics = ['harbour sonar ship', 'goal stadium match', 'lava eruption volcano'];
    const secret = await owner.rememberMany(Array.from({ length: 120 }, (_, i) => ({ text: `${topics[i % 3]} ${i % 3 === 1 ? 'blorptang ' : ''}notes from day ${i}` })));
    assert.equal(secret.length, 120);
    for (const t of topics) await owner.remember({ text: `shared: ${t}`, visibility: 'shared' });
    await owner.embedBackfill({ retrain: true });
    const asOwner = await owner.search({ query: 'blorptang', mode: 'vector', limit: 3 });
    assert.ok(asOwner.explain.lists.includes('vector') && asOwner.hits.length > 0, 'the owner still searches by vectors');
    const guest = owner.as({ role: 'guest', namespace: 'default', id: 'g' });
    for (const mode of ['vector', 'hybrid'] as const) {
      const r = await guest.search({ query: 'blorptang', mode, limit: 3 });
      assert.deepEqual(r.hits, [], `${mode}: ${JSON.stringify(r.hits.map((h) => h.memory.text))}`);
      assert.ok(!r.explain.lists.includes('vector'));
      assert.match(r.explain.skipped.vector ?? '', /only the owner's searches use it/);
    }
    assert.match(guest.selfState().parts.find((x) => x.part === 'vector_search')!.why, /serves the owner's searches only/);
    assert.doesNotMatch(owner.selfState().parts.find((x) => x.part === 'vector_search')!.why, /serves the owner's searches only/);
    // Words the guest can see still find its memories.
    assert.equal((await guest.search({ query: 'stadium' })).hits[0]!.memory.text, 'shared: goal stadium match');
    await owner.close();
  } finally {
    await cleanup();
  }
});
