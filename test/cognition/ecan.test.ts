import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MnemosError } from '../../src/domain/errors.ts';
import { AttentionBank, ECAN_DEFAULTS, STI_MAX, rentFor, stiWageFor } from '../../src/cognition/ecan.ts';

const close = (actual: number, expected: number, what: string): void => assert.ok(Math.abs(actual - expected) < 1e-9, `${what}: ${actual} != ${expected}`);

test('defaults are the reference constants (formulas.md, ECAN)', () => {
  assert.deepEqual({ ...ECAN_DEFAULTS }, {
    stiWage: 10,
    ltiWage: 10,
    targetFunds: 10_000,
    fundsBuffer: 10_000,
    startingRent: 1,
    focusSize: 100,
    maxSpreadPercentage: 0.4,
    hebbianMaxAllocation: 0.05,
    ltiForgetThreshold: 0.05,
  });
  assert.deepEqual([STI_MAX], [32767]);
});

// STIWage = W + W·clamp((funds − targetSTI)/buffer, −1, 1), W 10, target 10000, buffer 10000.
const wages: Array<[number, number]> = [
  [10_000, 10],
  [15_000, 15],
  [20_000, 20],
  [50_000, 20],
  [5_000, 5],
  [0, 0],
  [-5_000, 0],
];
for (const [funds, wage] of wages) {
  test(`STI wage at funds ${funds} is ${wage}`, () => close(stiWageFor(funds), wage, 'wage'));
}

// Rent = R + R·clamp((targetSTI − funds)/buffer, −0.99, 1), R 1; zero at or above target.
const rents: Array<[number, number]> = [
  [10_000, 0],
  [25_000, 0],
  [9_999, 1.0001],
  [5_000, 1.5],
  [0, 2],
  [-20_000, 2],
];
for (const [funds, rent] of rents) {
  test(`rent at funds ${funds} is ${rent}`, () => close(rentFor(funds), rent, 'rent'));
}

test('stimulus pays wages out of the bank; STI plus funds is conserved', () => {
  const bank = new AttentionBank();
  assert.equal(bank.stimulate('a', 1), 10);
  assert.deepEqual(bank.get('a'), { sti: 10, lti: 10, vlti: false });
  assert.equal(bank.funds, 9_990);
  assert.equal(bank.total, 10_000);
});

test('STI stops at the 16-bit ceiling and only what fits is paid', () => {
  const bank = new AttentionBank({}, 40_000); // a rich bank pays 2W = 20 per unit
  bank.stimulate('a', 1_637); // 32740
  assert.equal(bank.get('a')!.sti, 32_740);
  assert.equal(bank.stimulate('a', 5), 27);
  assert.equal(bank.get('a')!.sti, STI_MAX);
  assert.equal(bank.total, 40_000);
});

test('rent never takes an atom below 0 STI and flows back to the bank', () => {
  const bank = new AttentionBank({}, 5_000); // rent 1.5
  bank.add('poor');
  bank.stimulate('rich', 1); // wage 5 at funds 5000
  bank.stimulate('poor', 0.1); // 0.4995...
  const poor = bank.get('poor')!.sti;
  const rent = rentFor(bank.funds);
  close(rent, 1 + (10_000 - bank.funds) / 10_000, 'rent just above 1.5');
  const collected = bank.collectRent();
  close(collected, rent + poor, 'collected: full rent from rich, all poor has');
  assert.equal(bank.get('poor')!.sti, 0);
  close(bank.total, 5_000, 'total');
});

test('spreading: 0.4 of STI, up to 0.05 of it along Hebbian links by strength·confidence, the rest equally', () => {
  const bank = new AttentionBank({}, 100_000);
  bank.stimulate('a', 5); // 20 per unit at a rich bank: 100
  bank.add('b');
  bank.add('c');
  bank.updateFocus();
  const moved = bank.spread([
    { source: 'a', target: 'b' },
    { source: 'a', target: 'c', hebbian: { strength: 1, confidence: 1 } },
  ]);
  // 100·0.4 = 40; c's Hebbian share 40·0.05·1/1 = 2; (40 − 2)/2 = 19 each.
  close(moved, 40, 'moved');
  close(bank.get('a')!.sti, 60, 'a');
  close(bank.get('b')!.sti, 19, 'b');
  close(bank.get('c')!.sti, 21, 'c');
  close(bank.total, 100_000, 'total');
});

test('focus keeps the top atoms; an equal newcomer does not replace a member', () => {
  const bank = new AttentionBank({ focusSize: 2 }, 100_000); // wage stays 2W = 20
  bank.stimulate('a', 3);
  bank.stimulate('b', 2);
  assert.deepEqual(bank.updateFocus(), ['a', 'b']);
  bank.stimulate('c', 2);
  close(bank.get('c')!.sti, bank.get('b')!.sti, 'tie');
  assert.deepEqual(bank.updateFocus(), ['a', 'b'], 'tie: b stays');
  bank.stimulate('c', 2); // 80 > a's 60
  assert.deepEqual(bank.updateFocus(), ['c', 'a']);
});

test('forgetting: LTI under 0.05 of the highest, VLTI atoms never', () => {
  const bank = new AttentionBank();
  bank.stimulate('top', 100);
  bank.stimulate('low', 4);
  bank.stimulate('edge', 5);
  bank.add('kept', { vlti: true });
  assert.deepEqual(bank.forgetCandidates(), ['low']);
  bank.remove('low');
  close(bank.total, 10_000, 'removal returns STI to the bank');
});

test('ticks are deterministic whatever order atoms and links arrive in', () => {
  const run = (reverse: boolean): unknown[] => {
    const bank = new AttentionBank({ focusSize: 3 });
    const links = [
      { source: 'mc-1', target: 'c-1' },
      { source: 'c-1', target: 'b-1', hebbian: { strength: 0.8, confidence: 0.5 } },
      { source: 'b-1', target: 'ev-1' },
    ];
    const stimuli: Record<string, number> = reverse ? { 'b-1': 2, 'c-1': 5, 'mc-1': 1 } : { 'mc-1': 1, 'c-1': 5, 'b-1': 2 };
    const out: unknown[] = [];
    for (let i = 0; i < 5; i++) out.push(bank.tick({ stimuli: i === 0 ? stimuli : {}, links: reverse ? [...links].reverse() : links }));
    out.push(['b-1', 'c-1', 'ev-1', 'mc-1'].map((id) => bank.get(id)));
    close(bank.total, 10_000, 'total');
    return out;
  };
  assert.deepEqual(run(false), run(true));
});

test('bad inputs are refused and change nothing', () => {
  const bank = new AttentionBank();
  for (const bad of [-1, NaN, Infinity]) assert.throws(() => bank.stimulate('a', bad), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.equal(bank.get('a'), undefined);
  assert.throws(() => bank.spread([{ source: 'a', target: 'b', hebbian: { strength: 2, confidence: 1 } }]), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => new AttentionBank({ fundsBuffer: 0 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => new AttentionBank({ maxSpreadPercentage: 1.5 }), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.equal(bank.total, 10_000);
});
