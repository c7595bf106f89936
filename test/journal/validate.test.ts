import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { parseCluster, parseClusters } from '../../src/journal/parse-clusters.ts';
import { clusterProblems, validateCluster } from '../../src/journal/validate.ts';
import { clusterText } from '../../src/journal/cluster.ts';
import { REFERENCE_EXAMPLE, record } from './fixtures/example.ts';

test('the reference example record is valid and prints back byte for byte', () => {
  const cluster = parseCluster(REFERENCE_EXAMPLE);
  assert.deepEqual(clusterProblems(cluster), []);
  assert.equal(clusterText(cluster), REFERENCE_EXAMPLE);
  assert.equal(cluster.lines?.[0], 2);
});

const base = (extra: string[] = [], decl = 'Commitment') => record('mc-a', 'c-1', extra, decl);
const without = (text: string, line: string) => text.replace(line + '\n', '');

/** [name, record text, expected rule, fragment of the message] */
const invalid: Array<[string, string, string, string]> = [
  ['missing SchemaVersion', without(base(), '(SchemaVersion mc-a medium-memory-v1)'), 'required', 'SchemaVersion'],
  ['wrong schema version', base().replace('medium-memory-v1', 'medium-memory-v2'), 'schema-version', 'medium-memory-v1'],
  ['schema version about another id', base().replace('(SchemaVersion mc-a medium-memory-v1)', '(SchemaVersion c-1 medium-memory-v1)'), 'schema-version', 'missing (SchemaVersion mc-a'],
  ['missing ClusterType', without(base(), '(ClusterType mc-a meeting)'), 'required', 'ClusterType'],
  ['missing ClusterOpenedAt', without(base(), '(ClusterOpenedAt mc-a "2026-01-01T00:00:00Z")'), 'required', 'ClusterOpenedAt'],
  ['missing Contains', without(base(), '(Contains mc-a c-1)'), 'required', 'Contains'],
  ['missing source', without(base(), '(ClusterSource mc-a tests)'), 'required', 'ClusterSource'],
  ['envelope and atom disagree', base().replace('(MemoryCluster mc-a)', '(MemoryCluster mc-b)'), 'envelope-id', 'must agree'],
  ['two MemoryCluster atoms', base(['(MemoryCluster mc-a)']), 'duplicate-id', 'already declared'],
  ['unary with two arguments', base(['(Decision d-1 extra)']), 'arity', 'exactly 1 argument'],
  ['unary with no argument', base(['(Decision)']), 'arity', 'exactly 1 argument'],
  ['binary with one argument', base(['(About c-1)']), 'arity', 'exactly 2 arguments'],
  ['binary with three arguments', base(['(About c-1 parser extra)']), 'arity', 'exactly 2 arguments'],
  ['declared id with bad syntax', base(['(Decision 1abc)']), 'id-syntax', 'identifier'],
  ['declared id as a string', base(['(Decision "d-1")']), 'id-syntax', 'identifier'],
  ['subject that is not an identifier', base(['(About "c-1" parser)']), 'subject-id', 'identifier symbol'],
  ['duplicate declared id', base(['(Decision c-1)']), 'duplicate-id', 'c-1 is already declared at line'],
  ['negative support count', base(['(EvidenceSupportCount c-1 -1)']), 'numeric-value', 'non-negative'],
  ['symbolic opposition count', base(['(EvidenceOppositionCount c-1 many)']), 'numeric-value', 'non-negative'],
  ['trust above one', base(['(PromotionTrust c-1 1.5)']), 'numeric-value', '[0, 1]'],
  ['trust as a string', base(['(PromotionTrust c-1 "0.5")']), 'numeric-value', '[0, 1]'],
  ['self containment', base(['(Contains mc-a mc-a)']), 'contains-self', 'cannot contain itself'],
  ['contains owned by another cluster', base(['(Decision d-1)', '(Contains mc-other d-1)']), 'contains-owner', 'owned by this cluster'],
  ['contains an undeclared target', base(['(Contains mc-a c-9)']), 'contains-target', 'c-9 is not declared'],
  ['atom that is not a list', base(['loose-symbol']), 'atom-shape', 'non-empty list'],
  ['empty list', base(['()']), 'atom-shape', 'non-empty list'],
  ['list headed by a string', base(['("About" c-1 x)']), 'atom-shape', 'head is a symbol'],
  ['atom over 4096 chars', base([`(CommitmentText c-1 "${'x'.repeat(4100)}")`]), 'atom-size', 'over the limit of 4096'],
  // 4,097 characters (code points), 4,074 of them emoji: over the limit, and said in characters, not UTF-16 units.
  ['atom over 4096 chars of emoji', base([`(CommitmentText c-1 "${'\u{1F600}'.repeat(4074)}")`]), 'atom-size', 'atom is 4097 characters'],
  ['two SchemaVersion atoms of the cluster', base(['(SchemaVersion mc-a medium-memory-v1)']), 'schema-version', 'already given at line 3; a record has exactly one'],
  [
    'cluster over 65536 chars',
    base(Array.from({ length: 20 }, (_, i) => `(About c-1 "${'y'.repeat(3500)}${i}")`)),
    'cluster-size',
    'over the limit of 65536',
  ],
];

for (const [name, text, rule, fragment] of invalid) {
  test(`rejects ${name} (${rule})`, () => {
    const problems = clusterProblems(parseCluster(text));
    const hit = problems.find((p) => p.rule === rule);
    assert.ok(hit, `expected rule ${rule}, got ${JSON.stringify(problems)}`);
    assert.ok(hit.message.includes(fragment), hit.message);
  });
}

test('a valid record passes, other vocabularies pass through unchecked', () => {
  assert.deepEqual(clusterProblems(parseCluster(base(['(MM-PLN-anything a b c d)', '(EvidenceSupportCount c-1 3)', '(PromotionTrust c-1 0)']))), []);
});

test('errors name the atom and its line', () => {
  const cluster = parseCluster(base(['(Decision d-1 extra)']));
  assert.throws(
    () => validateCluster(cluster),
    (err: unknown) => {
      assert.ok(MnemosError.is(err, 'validation_failed'));
      assert.match(err.message, /line 9: \(Decision d-1 extra\): Decision declares one id/);
      const problems = err.details?.problems as Array<{ line: number }>;
      assert.equal(problems[0]!.line, 9);
      return true;
    },
  );
});

test('ids already in the journal are reported as duplicates', () => {
  const problems = clusterProblems(parseCluster(base()), { isKnownId: (id) => id === 'c-1' });
  assert.equal(problems[0]!.rule, 'duplicate-id-journal');
});

// petta-memory counts characters as Python's len does, in code points; UTF-16 units counted an emoji twice,
// so a record it accepts was refused here (and the message gave a count no one could check).
test('size limits count characters (code points), not UTF-16 units or UTF-8 bytes', () => {
  const fits = (n: number, ch: string) => base([`(CommitmentText c-1 "${ch.repeat(n)}")`]);
  const overhead = '(CommitmentText c-1 "")'.length;
  for (const ch of ['x', 'é', '中', '\u{1F600}', '\u{20000}']) {
    assert.deepEqual(clusterProblems(parseCluster(fits(4096 - overhead, ch))).map((p) => p.rule), [], `${ch}: exactly at the limit`);
    assert.deepEqual(clusterProblems(parseCluster(fits(4097 - overhead, ch))).map((p) => p.rule), ['atom-size'], `${ch}: one over`);
  }
  // The record limit counts the same way: 17 atoms of 3,700 emoji fit in 65,536 characters (they are 125,800 UTF-16 units); of 3,900 they do not.
  const many = (per: number) => base(Array.from({ length: 17 }, (_, i) => `(About c-1 "${'\u{1F600}'.repeat(per)}${i}")`));
  assert.deepEqual(clusterProblems(parseCluster(many(3700))).map((p) => p.rule), []);
  assert.deepEqual(clusterProblems(parseCluster(many(3900))).map((p) => p.rule), ['cluster-size']);
});

test('limits are configurable', () => {
  const cluster = parseCluster(base(['(CommitmentText c-1 "a fairly long text that goes on and on")']));
  assert.equal(clusterProblems(cluster, { limits: { maxAtomChars: 50 } }).filter((p) => p.rule === 'atom-size').length, 1);
});

const envelopes: Array<[string, string, string]> = [
  ['END id differs from BEGIN', ';;; BEGIN MemoryCluster a\n(MemoryCluster a)\n;;; END MemoryCluster b\n', 'END names "b"'],
  ['nested BEGIN', ';;; BEGIN MemoryCluster a\n;;; BEGIN MemoryCluster b\n', 'cannot nest'],
  ['unterminated record', ';;; BEGIN MemoryCluster a\n(MemoryCluster a)\n', 'never ended'],
  ['text outside a record', '(MemoryCluster a)\n', 'outside a record'],
  ['END without BEGIN', ';;; END MemoryCluster a\n', 'without a matching BEGIN'],
  ['bad record id', ';;; BEGIN MemoryCluster 9a\n', 'not a valid identifier'],
  ['other record kind', ';;; BEGIN Something a\n', 'only MemoryCluster'],
  ['two atoms on a line', ';;; BEGIN MemoryCluster a\n(a b) (c d)\n;;; END MemoryCluster a\n', 'one atom per line'],
  ['syntax error in an atom', ';;; BEGIN MemoryCluster a\n(a "b)\n;;; END MemoryCluster a\n', 'line 2, column 4'],
];
for (const [name, text, fragment] of envelopes) {
  test(`envelope: rejects ${name}`, () => {
    assert.throws(
      () => parseClusters(text),
      (err: unknown) => MnemosError.is(err, 'validation_failed') && err.message.includes(fragment),
    );
  });
}

test('blank lines between records are fine', () => {
  assert.equal(parseClusters('\n' + REFERENCE_EXAMPLE + '\n\n' + base()).length, 2);
});
