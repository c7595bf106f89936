import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { parseOneAtom } from '../../src/journal/metta/parser.ts';
import { printAtom } from '../../src/journal/metta/printer.ts';
import { chain, type ChainFact, type ChainRule } from '../../src/pln/chainer.ts';
import { modusPonens, revision } from '../../src/pln/formulas.ts';
import { stv } from '../../src/pln/truth.ts';

const t = (text: string) => parseOneAtom(text);
const fact = (id: string, term: string, s: number, c: number, stamp: number[]): ChainFact => ({ id, term: t(term), tv: stv(s, c), stamp });
const rule = (id: string, premise: string, conclusion: string, s: number, c: number, stamp: number[]): ChainRule => ({ id, premise: t(premise), conclusion: t(conclusion), tv: stv(s, c), stamp });

test('pinned derivation: (T a) with (STV 0.7600000000000001 0.52) and proof (rule-proof r1 f1)', () => {
  const r = chain(t('(T a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [2])], { maxSteps: 10 });
  assert.equal(r.answers.length, 1);
  const [a] = r.answers;
  assert.equal(printAtom(a!.proof), '(rule-proof r1 f1)');
  assert.deepEqual(a!.tv, { s: 0.7600000000000001, c: 0.52 });
  assert.equal(printAtom({ kind: 'expr', items: [t('STV'), { kind: 'number', value: a!.tv.s }, { kind: 'number', value: a!.tv.c }] }), '(STV 0.7600000000000001 0.52)');
  assert.deepEqual(a!.stamp, [1, 2]);
  assert.equal(r.budgetExhausted, false);
});

test('queries with variables return bindings; base facts answer too', () => {
  const r = chain(t('($P a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [2])], { maxSteps: 10 });
  assert.deepEqual(r.answers.map((a) => [printAtom(a.term), printAtom(a.bindings.P!)]), [['(S a)', 'S'], ['(T a)', 'T']]);
});

test('two rules chain with nested proofs and united stamps', () => {
  const r = chain(t('(U a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [2]), rule('r2', '(T $x)', '(U $x)', 0.7, 0.9, [3])], { maxSteps: 50 });
  assert.equal(printAtom(r.answers[0]!.proof), '(rule-proof r2 (rule-proof r1 f1))');
  assert.deepEqual(r.answers[0]!.stamp, [1, 2, 3]);
  assert.deepEqual(r.answers[0]!.tv, modusPonens(modusPonens(stv(0.8, 0.6), stv(0.9, 0.8)), stv(0.7, 0.9)));
});

test('evidence is never counted twice: a rule sharing the fact stamp draws nothing', () => {
  const r = chain(t('(T a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [1])], { maxSteps: 10 });
  assert.deepEqual(r.answers, []);
});

test('duplicate conclusions from disjoint evidence are revised', () => {
  const r = chain(
    t('(T a)'),
    [fact('f1', '(S a)', 0.8, 0.6, [1]), fact('f2', '(R a)', 0.5, 0.9, [2])],
    [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [3]), rule('r2', '(R $x)', '(T $x)', 0.6, 0.7, [4])],
    { maxSteps: 50 },
  );
  const [a] = r.answers;
  assert.equal(printAtom(a!.proof), '(revision-proof (rule-proof r1 f1) (rule-proof r2 f2))');
  assert.deepEqual(a!.stamp, [1, 2, 3, 4]);
  assert.deepEqual(a!.tv, revision(modusPonens(stv(0.8, 0.6), stv(0.9, 0.8)), modusPonens(stv(0.5, 0.9), stv(0.6, 0.7))));
});

test('duplicate conclusions sharing evidence are not revised: the more confident one stays', () => {
  const r = chain(t('(T a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('weak', '(S $x)', '(T $x)', 0.9, 0.3, [2]), rule('strong', '(S $x)', '(T $x)', 0.9, 0.8, [3])], { maxSteps: 50 });
  assert.equal(printAtom(r.answers[0]!.proof), '(rule-proof strong f1)');
  assert.deepEqual(r.answers[0]!.stamp, [1, 3]);
});

test('duplicate premises from disjoint evidence are revised on load', () => {
  const r = chain(t('(S a)'), [fact('f1', '(S a)', 1, 0.5, [1]), fact('f2', '(S a)', 0, 0.5, [2])], [], { maxSteps: 0 });
  assert.equal(printAtom(r.answers[0]!.proof), '(revision-proof f1 f2)');
  assert.deepEqual(r.answers[0]!.tv, revision(stv(1, 0.5), stv(0, 0.5)));
});

const budgets: Array<[string, number, boolean, number]> = [
  ['no steps: only premises', 0, true, 1],
  ['one step: one rule tried', 1, true, 2],
  ['enough steps', 100, false, 3],
];
for (const [name, maxSteps, exhausted, known] of budgets) {
  test(`step budget: ${name}`, () => {
    const r = chain(t('($p a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [2]), rule('r2', '(T $x)', '(U $x)', 0.9, 0.8, [3])], { maxSteps });
    assert.equal(r.budgetExhausted, exhausted);
    assert.equal(r.known, known);
    assert.ok(r.steps <= maxSteps);
  });
}

test('cycles end without the budget; generative rules stop at the budget or fact cap', () => {
  const cyclic = chain(t('($p a)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [2]), rule('r2', '(T $x)', '(S $x)', 0.9, 0.8, [3])], { maxSteps: 1000 });
  assert.equal(cyclic.budgetExhausted, false);
  // A rule's own stamp is in everything it derives, so it can never fire on its own output.
  const grown = chain(t('(S $y)'), [fact('f1', '(S a)', 0.8, 0.6, [1])], [rule('grow', '(S $x)', '(S (f $x))', 0.9, 0.8, [2])], { maxSteps: 1000 });
  assert.deepEqual(grown.answers.map((a) => printAtom(a.term)).sort(), ['(S (f a))', '(S a)']);
  assert.equal(grown.budgetExhausted, false);
});

test('many premises stop at the step budget or the fact cap', () => {
  const facts = Array.from({ length: 30 }, (_, i) => fact(`f${i}`, `(S a${i})`, 0.8, 0.6, [i + 10]));
  const rules = [rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [1])];
  const byBudget = chain(t('(T $y)'), facts, rules, { maxSteps: 12 });
  assert.equal(byBudget.budgetExhausted, true);
  assert.equal(byBudget.steps, 12);
  assert.equal(byBudget.answers.length, 12);
  const byCap = chain(t('(T $y)'), facts, rules, { maxSteps: 1000, maxFacts: 35 });
  assert.equal(byCap.budgetExhausted, true);
  assert.equal(byCap.known, 35);
});

test('facts must be ground and budgets non-negative integers', () => {
  assert.throws(() => chain(t('(S a)'), [fact('f1', '(S $x)', 0.8, 0.6, [1])], [], { maxSteps: 1 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => chain(t('(S a)'), [], [], { maxSteps: -1 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('two beliefs resting on one observation are not revised: the evidence would count twice', () => {
  const withEvidence = (f: ChainFact, evidence: string[]): ChainFact => ({ ...f, evidence });
  // Same term, disjoint belief stamps, but both EvidenceFor o-1: revision would turn c 0.5 into 0.667 from one observation.
  const shared = chain(t('(T a)'), [withEvidence(fact('b1', '(T a)', 0.9, 0.5, [1]), ['o-1']), withEvidence(fact('b2', '(T a)', 0.9, 0.4, [2]), ['o-1'])], [], { maxSteps: 0 });
  assert.equal(shared.answers.length, 1);
  assert.equal(printAtom(shared.answers[0]!.proof), 'b1');
  assert.deepEqual(shared.answers[0]!.tv, { s: 0.9, c: 0.5 });
  // Separate observations still revise (formulas.md: n = c·800/(1 - c), c = n/(n + 800) gives 1600/2400).
  const separate = chain(t('(T a)'), [withEvidence(fact('b1', '(T a)', 0.9, 0.5, [1]), ['o-1']), withEvidence(fact('b2', '(T a)', 0.9, 0.5, [2]), ['o-2'])], [], { maxSteps: 0 });
  assert.equal(printAtom(separate.answers[0]!.proof), '(revision-proof b1 b2)');
  assert.deepEqual(separate.answers[0]!.tv, { s: 0.9, c: 1600 / 2400 });
});

test('evidence travels through derivations: a conclusion is not revised with a premise from the same observation', () => {
  const r = chain(
    t('(T a)'),
    [{ ...fact('f1', '(S a)', 0.8, 0.6, [1]), evidence: ['o-1'] }, { ...fact('b2', '(T a)', 0.9, 0.3, [2]), evidence: ['o-1'] }],
    [{ ...rule('r1', '(S $x)', '(T $x)', 0.9, 0.8, [3]), evidence: ['o-2'] }],
    { maxSteps: 10 },
  );
  // (rule-proof r1 f1) has c 0.52 and rests on o-1 like b2: the more confident one stays, nothing is revised.
  assert.equal(printAtom(r.answers[0]!.proof), '(rule-proof r1 f1)');
  assert.deepEqual(r.answers[0]!.tv, { s: 0.7600000000000001, c: 0.52 });
});
