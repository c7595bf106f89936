import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryHybridIndex, type HybridDocument } from '../../src/retrieval/in-memory-hybrid-index.ts';
import { BuiltinEmbedder } from '../../src/embedding/builtin/builtin-embedder.ts';
import { EmbeddingService } from '../../src/embedding/embedding-service.ts';

const DOCS: HybridDocument[] = [
  { id: 's1:1', sessionId: 's1', validFrom: '2023-05-08T13:00:00Z', text: 'Joanna said, "What flavor of ice cream did you make?"' },
  { id: 's1:2', sessionId: 's1', validFrom: '2023-05-08T13:00:00Z', text: 'Nate said, "Chocolate and vanilla swirl, my new favorite."' },
  { id: 's1:3', sessionId: 's1', validFrom: '2023-05-08T13:00:00Z', text: 'Joanna said, "I am writing a screenplay about a girl on a journey."' },
  { id: 's2:1', sessionId: 's2', validFrom: '2023-06-20T10:00:00Z', text: 'Nate said, "I made coconut milk ice cream yesterday."' },
  { id: 's2:2', sessionId: 's2', validFrom: '2023-06-20T10:00:00Z', text: 'Joanna said, "My screenplay got accepted at a film festival!"' },
  { id: 's2:3', sessionId: 's2', validFrom: '2023-06-20T10:00:00Z', text: 'Nate said, "Congrats! The turtles say hi too."' },
];

async function build(options: Parameters<typeof InMemoryHybridIndex.build>[2] = {}): Promise<InMemoryHybridIndex> {
  const embedder = BuiltinEmbedder.train([DOCS.slice(0, 3).map((d) => d.text), DOCS.slice(3).map((d) => d.text)], { rank: 8 });
  return InMemoryHybridIndex.build(DOCS, new EmbeddingService(embedder), options);
}

test('modes: keyword and vector lists alone, hybrid fuses them and keeps each rank for explain', async () => {
  const index = await build();
  const kw = await index.search({ text: 'screenplay festival', limit: 3, mode: 'keyword' });
  assert.equal(kw.results[0]!.id, 's2:2');
  assert.deepEqual(Object.keys(kw.results[0]!.ranks), ['keyword']);
  assert.deepEqual(kw.searched, { terms: ['screenplai', 'festiv'], lists: ['keyword'], timeRange: null });
  const vec = await index.search({ text: 'screenplay festival', limit: 3, mode: 'vector' });
  assert.deepEqual(vec.searched.lists, ['vector']);
  const hy = await index.search({ text: 'screenplay festival', limit: 6 });
  assert.deepEqual(hy.searched.lists, ['keyword', 'vector']);
  assert.equal(hy.results[0]!.id, 's2:2');
  assert.deepEqual(Object.keys(hy.results[0]!.ranks).sort(), ['keyword', 'vector']);
  assert.ok(hy.results.length <= 6);
});

test('session context lends an answer its question: the reply is found by the words of the question', async () => {
  const withContext = await build();
  const without = await build({ context: null });
  const q = { text: 'Which ice cream flavor?', limit: 6, mode: 'keyword' as const };
  const rank = async (index: InMemoryHybridIndex): Promise<number> => (await index.search(q)).results.findIndex((r) => r.id === 's1:2');
  assert.equal(await rank(without), -1, 'without context the reply shares no term with the question');
  assert.ok((await rank(withContext)) >= 0);
});

test('a dated query adds a time list that favours memories in range', async () => {
  const index = await build();
  const out = await index.search({ text: 'ice cream on 20 June 2023', limit: 6, referenceDate: '2023-07-01T00:00:00Z' });
  assert.deepEqual(out.searched.timeRange, { from: '2023-06-20T00:00:00.000Z', to: '2023-06-21T00:00:00.000Z' });
  assert.deepEqual(out.searched.lists, ['keyword', 'vector', 'time']);
  assert.equal(out.results[0]!.id, 's2:1');
  assert.ok(out.results.every((r) => r.ranks['time'] === undefined || r.id.startsWith('s2')));
  const off = await (await build({ timeBoost: 'off' })).search({ text: 'ice cream on 20 June 2023', limit: 6, referenceDate: '2023-07-01T00:00:00Z' });
  assert.deepEqual(off.searched.lists, ['keyword', 'vector']);
});

test('scope filters apply before ranking, in every list', async () => {
  const index = await build();
  const allow = (id: string): boolean => id.startsWith('s1');
  for (const mode of ['keyword', 'vector', 'hybrid'] as const) {
    const out = await index.search({ text: 'ice cream screenplay', limit: 6, mode, allow });
    assert.ok(out.results.length > 0, mode);
    assert.ok(out.results.every((r) => r.id.startsWith('s1')), mode);
  }
});

test('nothing found still says what was searched', async () => {
  const index = await build();
  const out = await index.search({ text: 'xylophone', limit: 5, mode: 'keyword' });
  assert.deepEqual(out.results, []);
  assert.deepEqual(out.searched.terms, ['xylophon']);
});
