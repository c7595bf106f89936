import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  alwaysConsolidate,
  computeSalience,
  decayed,
  DEFAULT_SALIENCE_REGISTRY,
  SalienceModel,
} from '../../src/cognition/salience.ts';
import { MnemosError } from '../../src/domain/errors.ts';

const close = (a: number, b: number, msg: string) => assert.ok(Math.abs(a - b) < 1e-9, `${msg}: ${a} != ${b}`);

test('computeSalience: the seed registry, default 0.1, max over matches, linear decay', () => {
  const table: Array<[key: string, age: number, expected: number]> = [
    ['safety.weight_update_blocked', 0, 1.0],
    ['safety.verification_blocked', 0, 1.0],
    ['safety.verification_passed', 0, 0.8],
    ['goal.achieved', 0, 0.9],
    ['learning.new_association.cat_dog', 0, 0.7],
    ['stigmergy.coalition_accept.a7', 0, 0.75],
    ['stigmergy.handoff.x', 0, 0.65],
    ['perception.observation', 0, 0.1], // matches nothing
    ['goal.achieved.extra', 0, 0.1], // literal pattern: no prefix match
    ['learning.new_association', 0, 0.1], // `.*` needs the dot
    ['goal.achieved', 1, 0.85],
    ['goal.achieved', 4, 0.7],
    ['goal.achieved', 18, 0.0], // 0.9 - 0.9
    ['goal.achieved', 100, 0], // clamped at 0
    ['perception.observation', 2, 0.0],
    ['safety.verification_passed', -3, 0.8], // negative age counts as 0
  ];
  for (const [key, age, expected] of table) close(computeSalience(key, age), expected, `${key} @${age}`);
});

test('the default score is a floor, as in the seed (base = 0.1, then max over matches)', () => {
  // seed 000 compute_salience: `base = 0.1; for pattern, score in ...: base = max(base, score)`.
  const table: Array<[registry: Record<string, number>, defaultScore: number | undefined, key: string, base: number, buffered: boolean]> = [
    [{ ...DEFAULT_SALIENCE_REGISTRY, 'noise.*': 0.05 }, undefined, 'noise.tick', 0.1, false], // below the floor: no effect
    [{ ...DEFAULT_SALIENCE_REGISTRY, 'noise.*': 0.05 }, 0, 'noise.tick', 0.05, false],
    [{ 'chatter.*': 0.2, 'goal.achieved': 0.9 }, 0.8, 'chatter.x', 0.8, true],
    [{ 'chatter.*': 0.2, 'goal.achieved': 0.9 }, 0.8, 'goal.achieved', 0.9, true],
    [{ 'chatter.*': 0.2 }, 0.8, 'other', 0.8, true],
    [{ 'chatter.*': 0.2 }, 0.1, 'chatter.x', 0.2, false],
    [{}, undefined, 'anything', 0.1, false],
  ];
  for (const [registry, defaultScore, key, base, buffered] of table) {
    const m = new SalienceModel({ registry, ...(defaultScore !== undefined ? { defaultScore } : {}) });
    close(m.base(key), base, `${key} default ${defaultScore}`);
    assert.equal(m.shouldBuffer(key), buffered, `${key} default ${defaultScore}`);
  }
});

test('alwaysConsolidate: safety.*blocked* and safety.verification_blocked only', () => {
  const table: Array<[string, boolean]> = [
    ['safety.weight_update_blocked', true],
    ['safety.verification_blocked', true],
    ['safety.blocked', true],
    ['safety.tool.blocked_call', true],
    ['safety.verification_passed', false],
    ['goal.achieved', false],
    ['safetyblocked', false],
    ['audit.safety.blocked', false],
  ];
  for (const [key, expected] of table) assert.equal(alwaysConsolidate(key), expected, key);
});

test('a safety key no registry pattern names still scores 1.0 (seed: safety entries always have salience 1.0)', () => {
  const table: Array<[key: string, age: number, expected: number]> = [
    ['safety.tool_call_blocked', 0, 1.0], // matches safety.*blocked* only: was the 0.1 default
    ['safety.blocked', 0, 1.0],
    ['safety.tool.blocked_call', 2, 0.9], // decays like any score
    ['safety.verification_passed', 0, 0.8], // not an always-consolidate key: its registry score
    ['safety.unrelated', 0, 0.1],
  ];
  for (const [key, age, expected] of table) close(computeSalience(key, age), expected, `${key} @${age}`);
  // Configurable, and never lowers a higher registry score or default.
  const low = new SalienceModel({ alwaysConsolidate: ['audit.*'], alwaysScore: 0.5, registry: { 'audit.root.*': 0.95 } });
  close(low.score('audit.login'), 0.5, 'alwaysScore 0.5');
  close(low.score('audit.root.sudo'), 0.95, 'registry above alwaysScore');
  close(new SalienceModel({ alwaysScore: 0.05, defaultScore: 0.3 }).score('safety.x_blocked'), 0.3, 'default above alwaysScore');
  assert.throws(() => new SalienceModel({ alwaysScore: 1.5 }), (e) => MnemosError.is(e, 'validation_failed'));
});

test('the maximum wins whatever the registry order', () => {
  const a = new SalienceModel({ registry: { 'x.*': 0.3, 'x.y.*': 0.9, 'x.y.z': 0.5 } });
  const b = new SalienceModel({ registry: { 'x.y.z': 0.5, 'x.y.*': 0.9, 'x.*': 0.3 } });
  for (const m of [a, b]) {
    close(m.score('x.y.z'), 0.9, 'x.y.z');
    close(m.score('x.q'), 0.3, 'x.q');
    close(m.score('other'), 0.1, 'other');
  }
});

test('config replaces the registry, default, decay, threshold and always patterns', () => {
  const m = new SalienceModel({
    registry: { ...DEFAULT_SALIENCE_REGISTRY, 'tool.result.*': 0.72 },
    defaultScore: 0.2,
    decayPerTick: 0.1,
    alwaysConsolidate: ['audit.*'],
    threshold: 0.5,
  });
  close(m.score('tool.result.ok'), 0.72, 'extended');
  close(m.score('plain'), 0.2, 'default');
  close(m.score('goal.achieved', 2), 0.7, 'decay 0.1');
  assert.equal(m.alwaysConsolidate('audit.login'), true);
  assert.equal(m.alwaysConsolidate('safety.weight_update_blocked'), false);
  assert.equal(m.shouldBuffer('stigmergy.handoff.x'), true); // 0.65 >= 0.5
  assert.equal(m.shouldBuffer('plain'), false);
  assert.equal(m.shouldBuffer('audit.login', 50), true); // always, whatever the age
});

test('shouldBuffer uses the decayed score against the 0.7 threshold', () => {
  const m = new SalienceModel();
  const table: Array<[string, number, boolean]> = [
    ['learning.new_association.x', 0, true], // exactly 0.7
    ['learning.new_association.x', 1, false],
    ['stigmergy.handoff.x', 0, false],
    // 0.75 - 0.05 is 0.7000000000000001 in floating point: it passes.
    ['stigmergy.coalition_accept.x', 1, true],
    ['goal.achieved', 4, true],
    ['goal.achieved', 5, false],
    ['safety.verification_blocked', 1000, true],
  ];
  for (const [key, age, expected] of table) assert.equal(m.shouldBuffer(key, age), expected, `${key} @${age}`);
});

test('decayed is the pure formula', () => {
  close(decayed(0.9, 2, 0.05), 0.8, 'decay');
  assert.equal(decayed(0.1, 3, 0.05), 0);
});

test('invalid config is refused with validation_failed', () => {
  assert.throws(() => new SalienceModel({ registry: { 'a.*': 1.5 } }), (e) => MnemosError.is(e, 'validation_failed') && /salience/.test(e.message));
  assert.throws(() => new SalienceModel({ decayPerTick: -1 }), (e) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => new SalienceModel({ unknown: 1 } as never), (e) => MnemosError.is(e, 'validation_failed'));
});
