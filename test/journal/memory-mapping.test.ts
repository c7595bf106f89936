import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { MEMORY_TYPES, type Memory } from '../../src/domain/memory.ts';
import { clusterText } from '../../src/journal/cluster.ts';
import { Journal } from '../../src/journal/journal.ts';
import { clustersToMemoryInputs } from '../../src/journal/memory-import.ts';
import { memoriesToClusters } from '../../src/journal/memory-export.ts';
import { parseCluster, parseClusters } from '../../src/journal/parse-clusters.ts';
import { clusterProblems } from '../../src/journal/validate.ts';
import { REFERENCE_EXAMPLE, tempDir } from './fixtures/example.ts';

function memory(i: number, over: Partial<Memory> = {}): Memory {
  const id = `01J0000000000000000000000${String.fromCharCode(65 + i)}`;
  return {
    id,
    lineageId: `01HZZZZZZZZZZZZZZZZZZZZZZ${String.fromCharCode(65 + i)}`,
    version: 2,
    text: `memory ${i}`,
    contentHash: 'h',
    type: MEMORY_TYPES[i % MEMORY_TYPES.length]!,
    importance: 0.75,
    accessCount: 3,
    lastAccessedAt: null,
    emotionalValence: -0.25,
    salience: 0.6,
    lifecycle: 'consolidated',
    validFrom: '2026-03-01T10:00:00.000Z',
    validTo: i % 2 === 0 ? null : '2026-04-01T00:00:00.000Z',
    recordedAt: '2026-03-02T11:22:33.444Z',
    supersededAt: null,
    supersededBy: null,
    origin: 'transcript',
    source: { sessionId: 's-42', turnStart: 3, turnEnd: 5, path: 'notes/2026 "march".md' },
    sourceKey: i % 3 === 0 ? null : `transcript:s-42#${i}`,
    namespace: 'default',
    ownerId: 'owner',
    agentId: null,
    sessionId: 's-42',
    visibility: 'shared',
    labels: i === 0 ? ['SafetyAudit'] : [],
    readOnly: false,
    tags: ['parser', 'needs review', 'ü-tag'],
    metadata: i === 1 ? { nested: { list: [1, 'two'] }, quote: 'say "hi"\n' } : {},
    expiresAt: null,
    ...over,
  };
}

const TRICKY_TEXTS = [
  'plain',
  'quotes "inside" and \\backslashes\\',
  'line one\nline two\r\n\ttabbed',
  'control \u0000\u0001\u001f\u007f chars',
  'emoji 😀 and 中文 and a lone \ud800 surrogate',
  '(looks like (metta) $x ; not a comment)',
  '',
];

test('memories round-trip through MemoryCluster text: text, type, times, tags, provenance', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const memories = [...MEMORY_TYPES.map((_, i) => memory(i)), ...TRICKY_TEXTS.map((text, k) => memory(10 + k, { text }))];
    const clusters = memoriesToClusters(memories);
    for (const c of clusters) assert.deepEqual(clusterProblems(c), [], c.id);
    const journal = await Journal.open(join(dir, 'export.metta'));
    await journal.appendMany(clusters);
    const reread = (await Journal.open(join(dir, 'export.metta'), { readOnly: true })).clusters();
    const inputs = clustersToMemoryInputs(reread);
    assert.equal(inputs.length, memories.length);
    memories.forEach((m, k) => {
      const got = inputs[k]!;
      assert.equal(got.text, m.text, `text of ${k}`);
      assert.equal(got.type, m.type);
      assert.equal(got.validFrom, m.validFrom);
      assert.equal(got.validTo, m.validTo);
      assert.equal(got.recordedAt, m.recordedAt);
      assert.deepEqual(got.tags, m.tags);
      assert.deepEqual(got.labels, m.labels);
      assert.equal(got.origin, m.origin);
      assert.deepEqual(got.source, m.source);
      assert.equal(got.sourceKey, m.sourceKey);
      assert.equal(got.lifecycle, m.lifecycle);
      assert.equal(got.salience, m.salience);
      assert.equal(got.importance, m.importance);
      assert.equal(got.emotionalValence, m.emotionalValence);
      assert.equal(got.visibility, m.visibility);
      assert.deepEqual(got.metadata, m.metadata);
      assert.deepEqual(got.journal, { clusterId: `mc-${m.id}`, subjectId: `m-${m.id}`, declaredAs: m.type === 'goal' ? 'Commitment' : 'ObservedEvent', mnemosId: m.id, lineageId: m.lineageId, version: 2 });
    });
  } finally {
    cleanup();
  }
});

test('exported clusters are readable petta-memory records: goals are Commitments, tags become About topics', () => {
  const [goal] = memoriesToClusters([memory(0, { type: 'goal', text: 'ship it' })]);
  const text = clusterText(goal!);
  assert.match(text, /\(Commitment m-01J\w+\)\n\(CommitmentText m-01J\w+ "ship it"\)/);
  assert.match(text, /\(About m-01J\w+ parser\)/);
  assert.doesNotMatch(text, /\(About m-01J\w+ "needs review"\)/, 'only identifier tags become About');
  assert.match(text, /\(HasStatus m-01J\w+ consolidated\)/);
  assert.deepEqual(clustersToMemoryInputs(parseClusters(text)).map((i) => i.text), ['ship it']);
});

test('foreign records import with their declaration, opened-at time and About topics', () => {
  const [input] = clustersToMemoryInputs([parseCluster(REFERENCE_EXAMPLE)]);
  assert.deepEqual(input, {
    text: 'ship the parser by Friday',
    type: 'goal',
    validFrom: '2026-11-29T09:00:00Z',
    validTo: null,
    recordedAt: null,
    origin: 'import',
    source: { key: 'mc-2026-11-29-standup#c-ship-parser' },
    sourceKey: 'metta:mc-2026-11-29-standup#c-ship-parser',
    tags: ['parser'],
    labels: [],
    lifecycle: undefined,
    salience: 0.75, // its `high` level: 30 of 40 points
    importance: undefined,
    emotionalValence: undefined,
    visibility: undefined,
    metadata: {},
    journal: { clusterId: 'mc-2026-11-29-standup', subjectId: 'c-ship-parser', declaredAs: 'Commitment', mnemosId: undefined, lineageId: undefined },
  });
});

test('SalienceValue reads as a number or a named level; an unknown word is refused, not read as 0', () => {
  const rows: [string, number | RegExp][] = [
    ['critical', 1],
    ['high', 0.75],
    ['Medium', 0.5],
    ['"low"', 0.25],
    ['0.4', 0.4],
    ['urgent', /SalienceValue of c-ship-parser must be a number from 0 to 1 or one of critical, high, medium, low, got urgent/],
  ];
  for (const [value, want] of rows) {
    const text = REFERENCE_EXAMPLE.replace('(SalienceValue c-ship-parser high)', `(SalienceValue c-ship-parser ${value})`);
    if (typeof want === 'number') assert.equal(clustersToMemoryInputs([parseCluster(text)])[0]!.salience, want, value);
    else assert.throws(() => clustersToMemoryInputs([parseCluster(text)]), want, value);
  }
});

test('items without text are skipped; malformed JSON provenance is a clear error', () => {
  const [c] = memoriesToClusters([memory(0)]);
  const broken = clusterText(c!).replace(/\(SourceRef (m-\S+) "[^\n]*"\)/, '(SourceRef $1 "not json")');
  assert.throws(() => clustersToMemoryInputs(parseClusters(broken)), /SourceRef of m-\S+ must be a JSON object string/);
  const noText = REFERENCE_EXAMPLE.replace('(CommitmentText c-ship-parser "ship the parser by Friday")\n', '');
  assert.deepEqual(clustersToMemoryInputs([parseCluster(noText)]), []);
});
