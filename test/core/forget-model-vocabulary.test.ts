/**
 * The built-in embedder learns from the store's own text, and its stored
 * model kept the vocabulary as words: every word of a small store, so a
 * forgotten memory's rare word (a name, a code) stayed readable in the
 * database after forget had removed it from every other place, until the
 * namespace doubled and the model was trained again. The vocabulary is kept
 * as digests (src/embedding/builtin/model.ts); searches by meaning still
 * work.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { BACKEND, named, rawSql, testStores } from '../helpers/backend.ts';

const TOPICS = ['budget', 'roadmap', 'hiring', 'release', 'design'];
const PEOPLE = ['Alice', 'Bob', 'Carol'];

test(named('a forgotten word is not left in the learned model'), async () => {
  const { dir, db, cleanup } = testStores('mnemos-model-vocab-');
  try {
    const m = await openMemory({ db });
    try {
      const notes = Array.from({ length: 150 }, (_, i) => ({
        text: `Note ${i}: the team discussed the ${TOPICS[i % 5]} with ${PEOPLE[i % 3]} on day ${i}` + (i < 3 ? ' and the zorblattix widget pricing' : ''),
        key: `note-${i}`,
      }));
      await m.rememberMany(notes);
      const report = await m.consolidate({ force: true });
      assert.equal(report.model?.status, 'trained', 'the store is large enough for a learned model');
      const secrets = (await m.list({ limit: 200 })).items.filter((x) => x.text.includes('zorblattix'));
      assert.equal(secrets.length, 3);
      for (const s of secrets) await m.confirmForget((await m.forget(s.id)).token);
      assert.ok((await m.search('budget discussed with Alice')).hits.length > 0, 'search still works');
    } finally {
      await m.close();
    }
    const models = (await rawSql(db, 'SELECT model, state FROM embedding_models')) as { model: string; state: unknown }[];
    assert.ok(models.some((r) => r.state !== null), 'a learned model is stored');
    for (const r of models) assert.ok(!JSON.stringify(r.state ?? '').toLowerCase().includes('zorblattix'), `model ${r.model} keeps the forgotten word`);
    if (BACKEND === 'sqlite') {
      for (const f of readdirSync(dir)) assert.equal(readFileSync(join(dir, f)).includes('zorblattix'), false, `${f} still holds the forgotten word`);
    }
  } finally {
    await cleanup();
  }
});
