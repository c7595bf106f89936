/**
 * A model's first vector search in a handle reads the stored vectors once
 * and keeps no copy (vector-stream.ts); the second loads the copy. On the
 * selected backend, the streamed answer must be the copy's answer, ids,
 * scores and order, for an owner, a filter, a guest who sees a fifth of the
 * rows and a guest who sees so few that the admitted rows are listed; other
 * namespaces' rows never appear. Concurrent first searches read the rows
 * once between them, not once each.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/adapters/open-store.ts';
import type { VectorRow } from '../../src/adapters/vector-cache.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { MemoryFilter, MemoryStore } from '../../src/ports/store.ts';
import type { VectorIndex } from '../../src/ports/vectors.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { named, testStores } from '../helpers/backend.ts';
import { mem } from './contract.ts';
import { fillScopedVectors, scopedPrincipals } from './scoped-vectors.ts';

const { owner, guest, otherOwner } = scopedPrincipals('first-search');
const DIMS = 32;
const M = 'first-search-model';
/** Above the bounded scan's threshold (4,096 rows): the loaded copy answers through its 8-bit pass. */
const ROWS = 5000;

type Store = MemoryStore & {
  vectors: VectorIndex & {
    eachVector: (model: string, rowids: number[] | null, visit: (row: VectorRow) => void) => Promise<void>;
    scanVectors?: (model: string, visit: (row: VectorRow) => void) => Promise<void>;
  };
};


/** Counts the handle's full reads of every vector (a streamed search, paged where the backend pages it, or a copy's load). */
function countFullReads(s: Store): () => number {
  let reads = 0;
  const each = s.vectors.eachVector.bind(s.vectors);
  s.vectors.eachVector = (model, rowids, visit) => {
    if (rowids === null) reads++;
    return each(model, rowids, visit);
  };
  const scan = s.vectors.scanVectors?.bind(s.vectors);
  if (scan) {
    s.vectors.scanVectors = (model, visit) => {
      reads++;
      return scan(model, visit);
    };
  }
  return () => reads;
}

test(named('the first vector search streams the stored rows and answers exactly as the loaded copy does'), async () => {
  const st = testStores('mnemos-first-search-');
  const open = async () => (await openStore(st.db, { analyze, vectorIndex: { mode: 'exact', threshold: 0 } })) as Store;
  const writer = await open();
  const handles: Store[] = [writer];
  try {
    const { queries, elsewhere } = await fillScopedVectors(writer, { owner, elsewhere: otherOwner, model: M, dims: DIMS, rows: ROWS, queries: 3, seed: 11, key: 'fs' });
    // Written last, so past PostgreSQL's first page of 5,000 rows: the owner's and a guest's best match for each
    // query, which a scan that stopped after one page would miss.
    const late = queries.map((_, i) => mem(owner, { text: `late ${i}`, key: `late:${i}`, visibility: 'shared', type: 'fact' }));
    await writer.apply(owner, late.map((m, i) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const, vector: { model: M, vector: queries[i]! } })));
    // The reference: a handle whose copy is loaded.
    await writer.vectors.prepare(owner, { model: M, dimensions: DIMS });

    const cases: { name: string; p: Principal; filter: MemoryFilter; reads: number }[] = [
      { name: 'owner', p: owner, filter: {}, reads: 1 },
      { name: 'owner, type filter', p: owner, filter: { types: ['fact'] }, reads: 1 },
      { name: 'guest (sees a fifth)', p: guest, filter: {}, reads: 1 },
      // Ten rows of 5,000: the namespace's best rows hold too few, so the admitted rows are listed and read again.
      { name: 'guest, goals only', p: guest, filter: { types: ['goal'] }, reads: 2 },
    ];
    for (const c of cases) {
      for (const q of queries) {
        const s = await open();
        handles.push(s);
        const reads = countFullReads(s);
        const first = await s.vectors.nearest(c.p, { model: M, vector: q, filter: c.filter, limit: 20 });
        assert.match(first.index.reason, /first search of this model/, c.name);
        assert.equal(first.index.kind, 'exact');
        assert.equal(first.index.vectors, ROWS + late.length, `${c.name}: the namespace's vectors, not the other namespace's`);
        assert.equal(reads(), c.reads, `${c.name}: full reads of the vectors`);
        const loaded = await writer.vectors.nearest(c.p, { model: M, vector: q, filter: c.filter, limit: 20 });
        assert.doesNotMatch(loaded.index.reason, /first search/);
        assert.ok(first.hits.length > 0, `${c.name}: hits`);
        if (!c.filter.types?.includes('goal')) assert.ok(late.some((m) => m.id === first.hits[0]!.id), `${c.name}: the row written last is found first`);
        assert.deepEqual(first.hits, loaded.hits, `${c.name}: the streamed answer is the loaded copy's`);
        for (const h of first.hits) assert.ok(!elsewhere.has(h.id), `${c.name}: another namespace's row ${h.id}`);
        // The second search of the handle loads its copy, and answers the same.
        const second = await s.vectors.nearest(c.p, { model: M, vector: q, filter: c.filter, limit: 20 });
        assert.doesNotMatch(second.index.reason, /first search/);
        assert.deepEqual(second.hits, first.hits, `${c.name}: the handle's copy agrees`);
        assert.equal(reads(), c.reads + 1, `${c.name}: the copy was loaded once`);
        await s.close();
        handles.pop();
      }
    }

    // Eight searches at once on a fresh handle: one streams, the rest share one load of the copy.
    const s = await open();
    handles.push(s);
    const reads = countFullReads(s);
    const all = await Promise.all(Array.from({ length: 8 }, () => s.vectors.nearest(owner, { model: M, vector: queries[0]!, filter: {}, limit: 10 })));
    assert.equal(all.filter((x) => /first search/.test(x.index.reason)).length, 1, 'only the first search streams');
    assert.equal(reads(), 2, 'one streamed read and one load, not one read per search');
    for (const x of all) assert.deepEqual(x.hits, all[0]!.hits);
  } finally {
    for (const h of handles) await h.close();
    await st.cleanup();
  }
});
