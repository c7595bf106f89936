import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rrf, type RankedList } from '../../src/retrieval/rrf.ts';
import { MnemosError } from '../../src/domain/errors.ts';

const ids = (lists: RankedList[], opts?: Parameters<typeof rrf>[1]): string[] => rrf(lists, opts).map((r) => r.id);

test('rrf scores are Σ w / (k + rank) with 1-based ranks, and every list rank is kept', () => {
  const out = rrf([
    { name: 'keyword', ids: ['a', 'b', 'c'] },
    { name: 'vector', ids: ['b', 'a', 'd'] },
  ]);
  const byId = new Map(out.map((r) => [r.id, r]));
  assert.equal(byId.get('a')!.score, 1 / 61 + 1 / 62);
  assert.equal(byId.get('d')!.score, 1 / 63);
  assert.deepEqual(byId.get('a')!.ranks, { keyword: 1, vector: 2 });
  assert.deepEqual(byId.get('d')!.ranks, { vector: 3 });
});

test('rrf ordering table', () => {
  const cases: Array<{ name: string; lists: RankedList[]; opts?: Parameters<typeof rrf>[1]; expect: string[] }> = [
    { name: 'agreement wins', lists: [{ name: 'k', ids: ['a', 'b'] }, { name: 'v', ids: ['b', 'c'] }], expect: ['b', 'a', 'c'] },
    // a and b tie exactly (1/61 + 1/62 each): the better best rank ties too, so the earlier list decides.
    { name: 'exact tie -> earlier list', lists: [{ name: 'k', ids: ['a', 'b', 'c'] }, { name: 'v', ids: ['b', 'a', 'd'] }], expect: ['a', 'b', 'c', 'd'] },
    { name: 'tie broken by prior', lists: [{ name: 'k', ids: ['a', 'b', 'c'] }, { name: 'v', ids: ['b', 'a', 'd'] }], opts: { tieBreaker: (id) => (id === 'b' || id === 'd' ? 1 : 0) }, expect: ['b', 'a', 'd', 'c'] },
    { name: 'prior never beats a real difference', lists: [{ name: 'k', ids: ['a', 'b'] }, { name: 'v', ids: ['a'] }], opts: { tieBreaker: (id) => (id === 'b' ? 100 : 0) }, expect: ['a', 'b'] },
    { name: 'list weight', lists: [{ name: 'k', ids: ['a', 'b'] }, { name: 'v', ids: ['b', 'a'], weight: 2 }], expect: ['b', 'a'] },
    { name: 'repeated id keeps its best rank', lists: [{ name: 'k', ids: ['a', 'a', 'b'] }], expect: ['a', 'b'] },
    { name: 'k changes how much top ranks dominate', lists: [{ name: 'k', ids: ['a', 'x', 'y', 'z', 'b'] }, { name: 'v', ids: ['b', 'p', 'q', 'r', 's', 'a'] }], opts: { k: 0 }, expect: ['b', 'a', 'x', 'p', 'y', 'q', 'z', 'r', 's'] },
    { name: 'empty', lists: [], expect: [] },
  ];
  for (const c of cases) assert.deepEqual(ids(c.lists, c.opts), c.expect, c.name);
});

test('near tie: within tieEpsilon (default 1e-9) the prior decides, beyond it the score does', () => {
  const prior = (id: string): number => (id === 'y' ? 1 : 0);
  // x = 1/61; y = (1/61)·w, w chosen so that x − y is 5e-10 (a near tie) or 1e-8 (a real difference).
  const lists = (gap: number): RankedList[] => [
    { name: 'k', ids: ['x'] },
    { name: 'v', ids: ['y'], weight: 1 - gap * 61 },
  ];
  assert.deepEqual(ids(lists(5e-10), { tieBreaker: prior }), ['y', 'x']);
  assert.deepEqual(ids(lists(5e-10)), ['x', 'y']);
  assert.deepEqual(ids(lists(1e-8), { tieBreaker: prior }), ['x', 'y']);
  assert.deepEqual(ids(lists(1e-8), { tieBreaker: prior, tieEpsilon: 1e-6 }), ['y', 'x'], 'epsilon is configurable');
});

test('rrf is deterministic and validates its input', () => {
  const lists: RankedList[] = [{ name: 'k', ids: ['c', 'b', 'a'] }, { name: 'v', ids: ['a', 'b', 'c'] }];
  assert.deepEqual(rrf(lists), rrf(lists));
  assert.throws(() => rrf([{ name: 'k', ids: [] }, { name: 'k', ids: [] }]), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => rrf([], { k: -1 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});
