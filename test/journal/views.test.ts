import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { clusterText } from '../../src/journal/cluster.ts';
import { num, str, sym } from '../../src/journal/metta/ast.ts';
import { parseMetta } from '../../src/journal/metta/parser.ts';
import { queryClusters } from '../../src/journal/query.ts';
import { JournalSnapshot } from '../../src/journal/snapshot.ts';
import { auditView, auditViewBounded } from '../../src/journal/views/audit-view.ts';
import { parseClusters } from '../../src/journal/parse-clusters.ts';
import { record } from './fixtures/example.ts';
import { joinBounded } from '../../src/journal/views/bounded.ts';
import { indexView } from '../../src/journal/views/index-view.ts';
import { plnSafeView } from '../../src/journal/views/pln-view.ts';
import { promptView, rankClusters, saliencePoints } from '../../src/journal/views/prompt-view.ts';
import { sampleClusters } from './fixtures/sample-journal.ts';

const clusters = sampleClusters();
const snapshot = JournalSnapshot.of(clusters);

function assertWholeLines(text: string): void {
  assert.ok(text === '' || text.endsWith('\n'));
  for (const line of text.split('\n').filter(Boolean)) {
    if (!line.startsWith(';')) assert.equal(parseMetta(line).length, 1, line);
  }
}

test('view budgets count characters (code points), as the record limits do', () => {
  const emoji = '\u{1F600}'.repeat(10); // 10 characters, 20 UTF-16 units
  const r = joinBounded([emoji, emoji, emoji], 22);
  assert.deepEqual([r.included, r.truncated], [2, true], 'two lines of 11 characters fit in 22');
  assert.equal(joinBounded([emoji], 10).included, 0, 'the newline counts too');
  const one = parseClusters(record('mc-e', 'c-e', [`(CommitmentText c-e "${emoji}")`]))[0]!;
  const chars = [...clusterText(one)].length;
  assert.equal(auditViewBounded([one], { maxChars: chars }).included, 1);
  assert.equal(auditViewBounded([one], { maxChars: chars - 1 }).included, 0);
});

test('joinBounded stops before the unit that would pass the budget', () => {
  const units = ['aaaa', 'bb', 'c'];
  const cases: Array<[number | undefined, string]> = [
    [undefined, 'aaaa\nbb\nc\n'],
    [0, ''],
    [4, ''],
    [5, 'aaaa\n'],
    [7, 'aaaa\n'],
    [8, 'aaaa\nbb\n'],
    [10, 'aaaa\nbb\nc\n'],
  ];
  for (const [budget, want] of cases) assert.equal(joinBounded(units, budget).text, want, String(budget));
});

test('negative or fractional bounds are errors in every view', () => {
  const calls = [
    () => auditView(clusters, { maxChars: -1 }),
    () => indexView(snapshot, { maxChars: -5 }),
    () => promptView(clusters, { maxChars: -1 }),
    () => promptView(clusters, { maxClusters: -1 }),
    () => plnSafeView(clusters, { maxChars: -1 }),
    () => joinBounded([], 1.5),
  ];
  for (const call of calls) assert.throws(call, (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('audit view keeps whole canonical records with their delimiters', () => {
  const full = auditView(clusters);
  assert.equal(full, clusters.map(clusterText).join(''));
  // Under a budget the newest records that fit are kept, in journal order (the prototype's audit_view does the same).
  const last = clusterText(clusters[clusters.length - 1]!);
  const before = clusterText(clusters[clusters.length - 2]!);
  assert.equal(auditView(clusters, { maxChars: last.length + before.length - 1 }), last);
  assert.equal(auditView(clusters, { maxChars: last.length + before.length }), before + last);
  assert.equal(auditView(clusters, { maxChars: last.length - 1 }), '');
});

test('audit view under a budget shows recent appends, not the same oldest records forever', () => {
  const many = Array.from({ length: 30 }, (_, i) => parseClusters(record(`mc-${String(i).padStart(2, '0')}`, `c-${String(i).padStart(2, '0')}`))[0]!);
  const budget = clusterText(many[0]!).length * 3 + 5;
  const cut = auditViewBounded(many, { maxChars: budget });
  assert.deepEqual([cut.included, cut.truncated], [3, true]);
  assert.deepEqual(cut.text.split('\n').filter((l) => l.startsWith(';;; BEGIN')), [';;; BEGIN MemoryCluster mc-27', ';;; BEGIN MemoryCluster mc-28', ';;; BEGIN MemoryCluster mc-29']);
  assert.ok(cut.text.length <= budget);
  assert.deepEqual(auditViewBounded(many.slice(0, 2), { maxChars: budget }).truncated, false);
});

test('index view: edges per cluster, superseded status events left out', () => {
  const lines = indexView(snapshot).split('\n');
  for (const want of [
    '(MM-index mc-c)',
    '(MM-index-id c-1 mc-c)',
    '(MM-index-type StatusEvent se-2 mc-c)',
    '(MM-index-status blocked c-1 mc-c)',
    '(MM-index-role quoted-utterance s-1 mc-c)',
    '(MM-index-about parser s-1 mc-c)',
    '(MM-index-status active c-1 mc-a)',
    '(MM-index-type Commitment c-1 mc-a)',
    '(MM-index-id S mc-d)',
    '(MM-index-id a mc-d)',
    '(MM-index-id Implication mc-d)',
  ]) {
    assert.ok(lines.includes(want), want);
  }
  assert.ok(!lines.some((l) => l.startsWith('(MM-index-status done')), 'superseded se-1 has no status edge');
  assert.ok(!lines.includes('(MM-index-id x mc-d)'), 'variables are not identifiers');
});

test('index id edges give the same recall as the id query', () => {
  const edges = new Map<string, Set<string>>();
  for (const line of indexView(snapshot).split('\n')) {
    const m = /^\(MM-index-id (\S+) (\S+)\)$/.exec(line);
    if (m) edges.set(m[1]!, (edges.get(m[1]!) ?? new Set()).add(m[2]!));
  }
  assert.ok(edges.size > 20);
  for (const [id, via] of edges) {
    assert.deepEqual([...via].sort(), queryClusters(snapshot, { kind: 'id', value: id, limit: 1000 }).map((c) => c.id).sort(), id);
  }
});

test('bounded index output keeps whole atom lines', () => {
  for (const budget of [0, 1, 17, 40, 100, 333]) {
    const text = indexView(snapshot, { maxChars: budget });
    assert.ok(text.length <= budget);
    assertWholeLines(text);
  }
});

const salience: Array<[Parameters<typeof saliencePoints>[0], number]> = [
  [sym('critical'), 40],
  [sym('high'), 30],
  [sym('medium'), 20],
  [str('low'), 10],
  [sym('unknown'), 0],
  [num(0.5), 20],
  [num(0.25), 10],
  [num(2), 40],
  [num(-1), 0],
];
for (const [value, points] of salience) {
  test(`salience ${JSON.stringify(value)} scores ${points}`, () => assert.equal(saliencePoints(value), points));
}

test('prompt scores: +100 topic, +50 status, salience, +10 per text of a matched subject', () => {
  const ranked = rankClusters(clusters, { topics: ['parser'], statuses: ['active'] });
  assert.deepEqual(
    ranked.map((r) => [r.cluster.id, r.score]),
    [
      ['mc-a', 100 + 50 + 30 + 10],
      ['mc-d', 100], // ties with mc-c; opened later, so first
      ['mc-c', 100],
      ['mc-b', 20],
    ],
  );
  const none = rankClusters(clusters);
  assert.deepEqual(none.map((r) => [r.cluster.id, r.score]), [['mc-a', 30], ['mc-b', 20], ['mc-d', 0], ['mc-c', 0]]);
});

test('prompt view keeps only prompt atoms, best clusters first', () => {
  const text = promptView(clusters, { topics: ['release'] });
  const lines = text.trimEnd().split('\n');
  assert.deepEqual(lines.slice(0, 4), ['(StatusValue se-1 done)', '(QuestionText q-1 "when is the release?")', '(About q-1 release)', '(SalienceValue q-1 0.5)']);
  for (const line of lines) assert.match(line, /^\((CommitmentText|QuestionText|BoundaryName|ArtifactPath|HasStatus|ClusterStatus|StatusValue|About|SalienceValue) /);
});

test('under a tight budget the prompt view still brings the relevant cluster', () => {
  const budget = 90;
  const text = promptView(clusters, { topics: ['release'], maxChars: budget });
  assert.ok(text.length <= budget);
  assert.match(text, /when is the release/);
  assert.doesNotMatch(text, /ship the parser/);
  assertWholeLines(text);
  assert.equal(promptView(clusters, { maxClusters: 1 }).split('\n').filter(Boolean).length, 4);
});

test('PLN-safe view drops raw speech, quoted claims and unpromoted beliefs', () => {
  const text = plnSafeView(clusters);
  for (const gone of ['RawUtterance', 'ClaimText', 'SpeechEvent', 'QuotedClaim', 'ClaimSource', ' s-1', ' qc-1', ' b-2', 'cursed']) {
    assert.ok(!text.includes(gone), `${gone} must not appear`);
  }
  for (const kept of ['(DerivedBelief b-1)', '(BeliefContent b-1 (S a))', '(TruthValue b-1 (stv 0.8 0.6))', '(BeliefContent r-1 (Implication (S $x) (T $x)))', '(CommitmentText c-1 "ship the parser")']) {
    assert.ok(text.includes(kept + '\n'), kept);
  }
  const bounded = plnSafeView(clusters, { maxChars: 120 });
  assert.ok(bounded.length <= 120);
  assertWholeLines(bounded);
});

test('PLN-safe view: a speech event or quoted claim without a quoted-utterance role leaks nothing about it', () => {
  // Only the role used to exclude a subject: a quoted claim's content and truth value, and the
  // topics and statuses of an utterance, reached the view a reasoner takes premises from.
  const quoted = parseClusters(
    record('mc-q', 's-1', [
      '(RawUtterance s-1 "Bob said the vault code is 1234")',
      '(About s-1 vault)',
      '(HasStatus s-1 logged)',
      '(QuotedClaim qc-1)',
      '(Contains mc-q qc-1)',
      '(ClaimText qc-1 "the vault code is 1234")',
      '(About qc-1 vault)',
      '(HasProvenance qc-1 s-1)',
      '(BeliefContent qc-1 (VaultCode 1234))',
      '(TruthValue qc-1 (stv 1 0.9))',
      '(ObservedEvent o-9)',
      '(Contains mc-q o-9)',
      '(BeliefContent o-9 (Door open))',
      '(About o-9 door)',
    ], 'SpeechEvent'),
  );
  const text = plnSafeView([...clusters, ...quoted]);
  for (const gone of [' s-1', ' qc-1', 'VaultCode', '1234', '(Door open)']) assert.ok(!text.includes(gone), `${gone} must not appear:\n${text}`);
  // What is not about them stays, and the promoted beliefs of the sample are untouched.
  for (const kept of ['(About o-9 door)', '(ObservedEvent o-9)', '(BeliefContent b-1 (S a))', '(TruthValue b-1 (stv 0.8 0.6))']) {
    assert.ok(text.includes(kept + '\n'), kept);
  }
});

test('index view lists an edge once even when its atom is repeated in the cluster', () => {
  const repeated = parseClusters(record('mc-r', 'c-r', ['(About c-r parser)', '(About c-r parser)', '(HasStatus c-r active)', '(HasStatus c-r active)']));
  const lines = indexView(JournalSnapshot.of(repeated)).split('\n').filter(Boolean);
  assert.equal(lines.filter((l) => l === '(MM-index-about parser c-r mc-r)').length, 1);
  assert.equal(lines.filter((l) => l === '(MM-index-status active c-r mc-r)').length, 1);
  assert.equal(new Set(lines).size, lines.length);
});
