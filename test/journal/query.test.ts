import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { queryClusters, type JournalQueryKind } from '../../src/journal/query.ts';
import { JournalSnapshot } from '../../src/journal/snapshot.ts';
import { parseClusters } from '../../src/journal/parse-clusters.ts';
import { record } from './fixtures/example.ts';
import { sampleClusters } from './fixtures/sample-journal.ts';

const snapshot = JournalSnapshot.of(sampleClusters());
const ids = (kind: JournalQueryKind, value: string, limit?: number) => queryClusters(snapshot, { kind, value, limit }).map((c) => c.id);

const cases: Array<[JournalQueryKind, string, string[]]> = [
  ['id', 'c-1', ['mc-a', 'mc-b', 'mc-c']],
  ['id', 'se-1', ['mc-b', 'mc-c']],
  ['id', 'mc-d', ['mc-d']],
  ['id', 'nobody', []],
  // Nested arguments are mentions too (BeliefContent b-1 (S a)), variables are not.
  ['id', 'S', ['mc-d']],
  ['id', 'a', ['mc-d']],
  ['id', 'T', ['mc-d']],
  ['id', 'x', []],
  ['cluster', 'mc-b', ['mc-b']],
  ['cluster', 'c-1', []],
  ['type', 'StatusEvent', ['mc-b', 'mc-c']],
  ['type', 'DerivedBelief', ['mc-d']],
  ['type', 'Commitment', ['mc-a']],
  ['about', 'parser', ['mc-a', 'mc-c', 'mc-d']],
  ['about', 'release', ['mc-b']],
  ['status', 'active', ['mc-a']],
  ['status', 'blocked', ['mc-c']],
  ['status', 'done', []], // se-1 was superseded by se-2
  ['role', 'quoted-utterance', ['mc-c']],
  ['role', 'observation', ['mc-a']],
];
for (const [kind, value, want] of cases) {
  test(`query ${kind}=${value}`, () => assert.deepEqual(ids(kind, value), want));
}

test('queries return whole clusters', () => {
  const [c] = queryClusters(snapshot, { kind: 'cluster', value: 'mc-a' });
  assert.equal(c!.atoms.length, 12);
});

test('current status follows StatusEvent and Supersedes, then falls back to HasStatus', () => {
  assert.deepEqual(snapshot.currentStatus('c-1'), { status: 'blocked', event: 'se-2' });
  assert.equal(snapshot.currentStatus('q-1'), undefined);
  const plain = JournalSnapshot.of(parseClusters(record('mc-x', 'c-x', ['(HasStatus c-x active)']) + record('mc-y', 'c-y', ['(HasStatus c-x paused)'])));
  assert.deepEqual(plain.currentStatus('c-x'), { status: 'paused' });
});

test('an un-superseded later event wins; superseding the latest brings back the earlier one', () => {
  const ev = (id: string, cid: string, value: string, extra: string[] = []) => record(cid, id, [`(StatusSubject ${id} t-1)`, `(StatusValue ${id} ${value})`, ...extra], 'StatusEvent');
  const s = JournalSnapshot.of(parseClusters(ev('e-1', 'mc-1', 'open') + ev('e-2', 'mc-2', 'closed') + ev('e-3', 'mc-3', 'reopened', ['(Supersedes e-3 e-2)'])));
  assert.deepEqual(s.currentStatus('t-1'), { status: 'reopened', event: 'e-3' });
  const t = JournalSnapshot.of(parseClusters(ev('e-1', 'mc-1', 'open') + ev('e-2', 'mc-2', 'closed') + record('mc-3', 'e-9', ['(Supersedes e-9 e-2)'], 'StatusEvent')));
  assert.deepEqual(t.currentStatus('t-1'), { status: 'open', event: 'e-1' });
});

test('default limit is 20 and limits are honoured', () => {
  const many = JournalSnapshot.of(parseClusters(Array.from({ length: 30 }, (_, i) => record(`mc-${i}`, `c-${i}`, [`(About c-${i} topic)`])).join('')));
  assert.equal(queryClusters(many, { kind: 'about', value: 'topic' }).length, 20);
  assert.equal(queryClusters(many, { kind: 'about', value: 'topic', limit: 3 }).map((c) => c.id).join(), 'mc-0,mc-1,mc-2');
  assert.equal(queryClusters(many, { kind: 'about', value: 'topic', limit: 0 }).length, 0);
});

test('bad queries are refused with what to fix', () => {
  const bad: Array<[unknown, string]> = [
    [{ kind: 'id', value: 'x', limit: -1 }, 'validation_failed'],
    [{ kind: 'id', value: 'x', limit: 1.5 }, 'validation_failed'],
    [{ kind: 'colour', value: 'x' }, 'validation_failed'],
    [{ kind: 'id', value: '' }, 'validation_failed'],
    [{ kind: 'id', value: 'x'.repeat(20_001) }, 'limit_exceeded'],
    [{ kind: 'id', value: '\u{1F600}'.repeat(20_001) }, 'limit_exceeded'],
  ];
  for (const [q, code] of bad) assert.throws(() => queryClusters(snapshot, q as never), (e: unknown) => MnemosError.is(e, code as never));
  // The 20,000 limit is in characters (code points), like every journal limit: 20,000 emoji are 40,000 UTF-16 units.
  assert.deepEqual(queryClusters(snapshot, { kind: 'about', value: '\u{1F600}'.repeat(20_000) }), []);
});

test('id query finds identifiers nested several levels deep, once per cluster', () => {
  const deep = JournalSnapshot.of(parseClusters(
    record('mc-n', 'b-n', ['(BeliefContent b-n (And (S deep-1) (Not (T deep-2 deep-2))))'], 'DerivedBelief') +
    record('mc-m', 'b-m', ['(BeliefContent b-m (S other))'], 'DerivedBelief'),
  ));
  const q = (value: string) => queryClusters(deep, { kind: 'id', value }).map((c) => c.id);
  assert.deepEqual(q('deep-2'), ['mc-n']);
  assert.deepEqual(q('Not'), ['mc-n']);
  assert.deepEqual(q('S'), ['mc-n', 'mc-m']);
  assert.deepEqual(q('BeliefContent'), [], 'a line\'s own predicate is not an argument');
});
