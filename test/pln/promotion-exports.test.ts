import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { parseClusters } from '../../src/journal/parse-clusters.ts';
import { parseOneAtom } from '../../src/journal/metta/parser.ts';
import { printAtom } from '../../src/journal/metta/printer.ts';
import { chainInputs } from '../../src/pln/chain-inputs.ts';
import { chain } from '../../src/pln/chainer.ts';
import { evidencePackets, handoffCache, HANDOFF_LABEL, patham9Sentences, pettaChainerStatements, writeHandoffCache } from '../../src/pln/exports.ts';
import { plnPremises } from '../../src/pln/promotion.ts';
import { record, tempDir } from '../journal/fixtures/example.ts';
import { sampleClusters } from '../journal/fixtures/sample-journal.ts';

const { premises, held } = plnPremises(sampleClusters());

test('only promoted beliefs with rule, trust and domain become premises', () => {
  assert.deepEqual(premises.map((p) => p.beliefId), ['b-1', 'r-1']);
  assert.deepEqual(held, [{ beliefId: 'b-2', reasons: ['no PromotionEvent PromotesTo it', 'no EvidenceFor', 'no PromotionRule', 'no PromotionDomain', 'no PromotionTrust in [0, 1]'] }]);
});

test('confidence is capped by trust; the recorded value is kept beside it', () => {
  const b1 = premises[0]!;
  assert.deepEqual(b1.tv, { s: 0.8, c: 0.5 });
  assert.deepEqual(b1.recordedTv, { s: 0.8, c: 0.6 });
  assert.equal(b1.trust, 0.5);
  assert.equal(b1.stamp, 1);
  assert.equal(premises[1]!.stamp, 3, 'stamps number every belief in journal order, held ones included');
});

const heldCases: Array<[string, string[], string]> = [
  ['no promotion rule', ['(PromotionTrust pe-9 1)', '(PromotionDomain pe-9 d)'], 'no PromotionRule'],
  ['no trust', ['(PromotionRule pe-9 r)', '(PromotionDomain pe-9 d)'], 'no PromotionTrust in [0, 1]'],
  ['no domain', ['(PromotionRule pe-9 r)', '(PromotionTrust pe-9 1)'], 'no PromotionDomain'],
];
for (const [name, meta, reason] of heldCases) {
  test(`held back: ${name}`, () => {
    const text = record('mc-z', 'b-9', ['(BeliefContent b-9 (S z))', '(TruthValue b-9 (stv 1 1))', '(EvidenceFor e-9 b-9)', '(PromotionEvent pe-9)', '(PromotesTo pe-9 b-9)', ...meta], 'DerivedBelief');
    const out = plnPremises(parseClusters(text));
    assert.deepEqual(out.premises, []);
    assert.ok(out.held[0]!.reasons.includes(reason), JSON.stringify(out.held));
  });
}

test('a promotion event in a later cluster promotes a belief from an earlier one', () => {
  const belief = record('mc-1', 'b-9', ['(BeliefContent b-9 (S z))', '(TruthValue b-9 (stv 1 0.9))', '(EvidenceFor e-9 b-9)'], 'DerivedBelief');
  const promotion = record('mc-2', 'pe-9', ['(PromotesTo pe-9 b-9)', '(PromotionRule pe-9 r)', '(PromotionTrust pe-9 0.7)', '(PromotionDomain pe-9 d)'], 'PromotionEvent');
  const out = plnPremises(parseClusters(belief + promotion));
  assert.deepEqual(out.premises.map((p) => [p.beliefId, p.tv.c, p.promotionEvent]), [['b-9', 0.7, 'pe-9']]);
});

test('PeTTaChainer statements: (: id statement (STV s min(c, trust)))', () => {
  assert.deepEqual(pettaChainerStatements(premises), ['(: b-1 (S a) (STV 0.8 0.5))', '(: r-1 (Implication (S $x) (T $x)) (STV 0.9 0.8))']);
});

test('EvidencePacket only where both counts are explicit; counts are never inferred', () => {
  assert.deepEqual(evidencePackets(premises), ['(EvidencePacket (S a) (EC 8 2) ((domain testing) (promotion-rule manual-review)) pe-1)']);
  assert.equal(premises[1]!.support, undefined);
  assert.equal(premises[1]!.opposition, undefined);
});

test('handoff cache is labelled not-inferred, gated, and written create-once', () => {
  const cache = handoffCache(premises, '2026-01-05T00:00:00Z');
  assert.equal(cache.inferred, false);
  assert.equal(cache.label, HANDOFF_LABEL);
  assert.deepEqual(cache.gates, { compileadd: 'closed', query: 'closed', promotion: 'closed' });
  assert.equal(cache.statements[0]!.metta, '(: b-1 (S a) (STV 0.8 0.5))');
  assert.equal(cache.statements[0]!.recordedConfidence, 0.6);
  assert.equal(cache.evidencePackets.length, 1);
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'handoff.json');
    writeHandoffCache(path, cache);
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), cache);
    assert.throws(() => writeHandoffCache(path, cache), (e: unknown) => MnemosError.is(e, 'conflict'));
  } finally {
    cleanup();
  }
});

test('patham9 Sentences carry numeric stamps; provenance goes to the sidecar', () => {
  const out = patham9Sentences(premises);
  assert.deepEqual(out.sentences, ['(Sentence ((S a) (stv 0.8 0.5)) (1))', '(Sentence ((Implication (S $x) (T $x)) (stv 0.9 0.8)) (3))']);
  assert.deepEqual(out.sidecar[0], { stamp: 1, beliefId: 'b-1', clusterId: 'mc-d', promotionEvent: 'pe-1', evidence: ['o-1'], rule: 'manual-review', domain: 'testing', trust: 0.5, support: 8, opposition: 2 });
  for (const s of out.sentences) parseOneAtom(s);
});

test('journal premises chain: the pinned vector from promoted beliefs with full trust', () => {
  const text = record('mc-p', 'f-1', [
    '(BeliefContent f-1 (S a))',
    '(TruthValue f-1 (stv 0.8 0.6))',
    '(EvidenceFor o-1 f-1)',
    '(DerivedBelief rule-1)',
    '(BeliefContent rule-1 (Implication (S $x) (T $x)))',
    '(TruthValue rule-1 (stv 0.9 0.8))',
    '(EvidenceFor o-1 rule-1)',
    '(PromotionEvent pe-1)',
    '(PromotesTo pe-1 f-1)',
    '(PromotesTo pe-1 rule-1)',
    '(PromotionRule pe-1 reviewed)',
    '(PromotionTrust pe-1 1)',
    '(PromotionDomain pe-1 demo)',
  ], 'DerivedBelief');
  const { facts, rules } = chainInputs(plnPremises(parseClusters(text)).premises);
  const result = chain(parseOneAtom('(T a)'), facts, rules, { maxSteps: 10 });
  assert.equal(printAtom(result.answers[0]!.proof), '(rule-proof rule-1 f-1)');
  assert.deepEqual(result.answers[0]!.tv, { s: 0.7600000000000001, c: 0.52 });
});

test('journal derive: two promoted beliefs from one EvidenceFor observation are not revised into more confidence', () => {
  const text = record('mc-dbl', 'b-1', [
    '(BeliefContent b-1 (T a))',
    '(TruthValue b-1 (stv 0.9 0.5))',
    '(EvidenceFor b-1 o-1)',
    '(Contains mc-dbl b-2)',
    '(DerivedBelief b-2)',
    '(BeliefContent b-2 (T a))',
    '(TruthValue b-2 (stv 0.9 0.5))',
    '(EvidenceFor b-2 o-1)',
    '(PromotionEvent pe-1)',
    '(PromotesTo pe-1 b-1)',
    '(PromotesTo pe-1 b-2)',
    '(PromotionRule pe-1 reviewed)',
    '(PromotionTrust pe-1 1)',
    '(PromotionDomain pe-1 demo)',
  ], 'DerivedBelief');
  const { facts, rules } = chainInputs(plnPremises(parseClusters(text)).premises);
  assert.deepEqual(facts.map((f) => f.evidence), [['o-1'], ['o-1']]);
  const result = chain(parseOneAtom('(T a)'), facts, rules, { maxSteps: 10 });
  assert.equal(result.answers.length, 1);
  assert.deepEqual(result.answers[0]!.tv, { s: 0.9, c: 0.5 });
});
