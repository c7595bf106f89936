import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backoffDelay, EmbeddingService, DEFAULT_RETRY } from '../../src/embedding/embedding-service.ts';
import type { EmbedOptions, Embedder } from '../../src/embedding/port.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { LruCache } from '../../src/embedding/lru-cache.ts';

/** A recording test double: vector = [text length, batch number]; failures scripted per call. */
class FakeEmbedder implements Embedder {
  readonly id = 'fake';
  readonly dimensions = 2;
  calls: string[][] = [];
  kinds: Array<string | undefined> = [];
  constructor(
    readonly model = 'fake/1',
    readonly maxBatch = 2,
    private readonly failures: Array<MnemosError | null> = [],
    private readonly width = 2,
  ) {}
  async embed(texts: readonly string[], options: EmbedOptions = {}): Promise<Float32Array[]> {
    this.calls.push([...texts]);
    this.kinds.push(options.kind);
    const failure = this.failures.shift();
    if (failure) throw failure;
    return texts.map((t) => Float32Array.from({ length: this.width }, (_, i) => (i === 0 ? t.length : this.calls.length)));
  }
}

const retryable = (retryAfterMs?: number): MnemosError => new MnemosError('unavailable', 'busy', { retryable: true, retryAfterMs });
const noSleep = { sleep: async () => {} };

test('backoffDelay: base·2^attempt capped; Retry-After raises it within the cap', () => {
  const p = { retries: 4, baseDelayMs: 250, maxDelayMs: 8000 };
  const cases: Array<[attempt: number, retryAfter: number | undefined, delay: number]> = [
    [0, undefined, 250], [1, undefined, 500], [2, undefined, 1000], [5, undefined, 8000], [10, undefined, 8000],
    [0, 3000, 3000], [3, 100, 2000], [0, 60_000, 8000],
  ];
  for (const [attempt, after, delay] of cases) assert.equal(backoffDelay(attempt, p, after), delay, `${attempt}/${after}`);
  assert.deepEqual(DEFAULT_RETRY, { retries: 4, baseDelayMs: 250, maxDelayMs: 8000 });
});

test('batches by maxBatch, keeps order, embeds a repeated text once', async () => {
  const fake = new FakeEmbedder();
  const service = new EmbeddingService(fake);
  const out = await service.embed(['a', 'bb', 'ccc', 'bb', 'dddd', 'eeeee']);
  assert.deepEqual(fake.calls, [['a', 'bb'], ['ccc', 'dddd'], ['eeeee']]);
  assert.deepEqual(out.map((v) => v[0]), [1, 2, 3, 2, 4, 5]);
  assert.deepEqual(fake.kinds, ['document', 'document', 'document']);
});

test('cache: keyed by model + kind + content hash', async () => {
  const fake = new FakeEmbedder();
  const service = new EmbeddingService(fake);
  await service.embed(['alpha', 'beta']);
  await service.embed(['beta', 'alpha']);
  assert.equal(fake.calls.length, 1, 'second call served from cache');
  await service.embed(['alpha'], { kind: 'query' });
  assert.equal(fake.calls.length, 2, 'a query vector is cached apart from the document vector');
  const other = new EmbeddingService(new FakeEmbedder('fake/2'));
  assert.notEqual(other.cacheKey('alpha'), service.cacheKey('alpha'));
  const tiny = new EmbeddingService(new FakeEmbedder(), { cacheSize: 0 });
  await tiny.embed(['x']);
  await tiny.embed(['x']);
});

test('an embedder cheap to recompute skips the cache but keeps batching, order and checks', async () => {
  class Cheap extends FakeEmbedder {
    readonly cheapToRecompute = true;
  }
  const fake = new Cheap();
  const service = new EmbeddingService(fake);
  const out = await service.embed(['a', 'bb', 'ccc', 'bb', 'dddd'], { kind: 'query' });
  assert.deepEqual(out.map((v) => v[0]), [1, 2, 3, 2, 4]);
  assert.deepEqual(fake.calls, [['a', 'bb'], ['ccc', 'bb'], ['dddd']]);
  assert.deepEqual(fake.kinds, ['query', 'query', 'query']);
  await service.embed(['a']);
  assert.equal(fake.calls.length, 4, 'nothing was served from a cache');
  const wrongWidth = new Cheap('fake/1', 2, [], 3);
  await assert.rejects(new EmbeddingService(wrongWidth).embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable'));
});

test('progress: texts with vectors after each provider batch, cached ones counted from the start', async () => {
  const seen: Array<[number, number]> = [];
  const onProgress = (done: number, total: number) => void seen.push([done, total]);
  const service = new EmbeddingService(new FakeEmbedder('fake/1', 2));
  await service.embed(['a', 'b']);
  await service.embed(['a', 'b', 'c', 'd', 'e'], { onProgress });
  assert.deepEqual(seen, [[4, 5], [5, 5]], 'two were cached; three new in batches of two');
  seen.length = 0;
  const cheap = new EmbeddingService(
    new (class extends FakeEmbedder {
      readonly cheapToRecompute = true;
    })('fake/1', 2),
  );
  await cheap.embed(['a', 'b', 'c'], { onProgress });
  assert.deepEqual(seen, [[2, 3], [3, 3]]);
});

test('retries retryable failures with exponential back-off, then succeeds', async () => {
  const fake = new FakeEmbedder('fake/1', 8, [retryable(), retryable(1200), null]);
  const delays: number[] = [];
  const service = new EmbeddingService(fake, { sleep: async (ms) => void delays.push(ms) });
  const [v] = await service.embed(['hello']);
  assert.equal(v![0], 5);
  assert.equal(fake.calls.length, 3);
  assert.deepEqual(delays, [250, 1200]);
});

test('gives up after the configured retries; non-retryable errors are not retried', async () => {
  const always = new FakeEmbedder('fake/1', 8, Array.from({ length: 10 }, () => retryable()));
  await assert.rejects(new EmbeddingService(always, { ...noSleep, retry: { retries: 2 } }).embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable'));
  assert.equal(always.calls.length, 3);
  const fatal = new FakeEmbedder('fake/1', 8, [new MnemosError('unavailable', 'bad key', { retryable: false })]);
  await assert.rejects(new EmbeddingService(fatal, noSleep).embed(['x']), /bad key/);
  assert.equal(fatal.calls.length, 1);
  const plain = new FakeEmbedder('fake/1', 8, [new Error('boom') as MnemosError]);
  await assert.rejects(new EmbeddingService(plain, noSleep).embed(['x']), (e: unknown) => MnemosError.is(e, 'internal'));
});

test('a query (a search waiting for its vector) is retried once, a document batch up to the configured retries', async () => {
  const failing = () => new FakeEmbedder('fake/1', 8, Array.from({ length: 10 }, () => retryable()));
  const query = failing();
  await assert.rejects(new EmbeddingService(query, noSleep).embedOne('where is the key', { kind: 'query' }), (e: unknown) => MnemosError.is(e, 'unavailable'));
  assert.equal(query.calls.length, 2);
  const documents = failing();
  await assert.rejects(new EmbeddingService(documents, noSleep).embed(['a note'], { kind: 'document' }), (e: unknown) => MnemosError.is(e, 'unavailable'));
  assert.equal(documents.calls.length, 5);
});

test('vectors of the wrong size are refused', async () => {
  const wrong = new FakeEmbedder('fake/1', 8, [], 3);
  await assert.rejects(new EmbeddingService(wrong).embed(['x']), (e: unknown) => MnemosError.is(e, 'unavailable') && e.details?.['reason'] === 'dimension_mismatch');
  assert.throws(() => new EmbeddingService(new FakeEmbedder('m', 0)), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('an aborted signal stops the retry loop', async () => {
  const fake = new FakeEmbedder('fake/1', 8, Array.from({ length: 10 }, () => retryable()));
  const controller = new AbortController();
  const service = new EmbeddingService(fake, { sleep: async () => controller.abort() });
  await assert.rejects(service.embed(['x'], { signal: controller.signal }), (e: unknown) => MnemosError.is(e, 'unavailable'));
  assert.equal(fake.calls.length, 2);
});

test('LruCache evicts the least recently used entry', () => {
  const c = new LruCache<string, number>(2);
  c.set('a', 1);
  c.set('b', 2);
  assert.equal(c.get('a'), 1);
  c.set('c', 3);
  assert.equal(c.get('b'), undefined);
  assert.equal(c.get('a'), 1);
  assert.equal(c.size, 2);
});
