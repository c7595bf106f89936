import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createBioStateSource, SignalBioState, SleepDriveModel, sleepDrive } from '../../src/cognition/bio-state.ts';
import { Blackboard } from '../../src/cognition/blackboard.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { seededRng } from './helpers.ts';

const DAY = 86_400_000;
const ctx = (now: number) => ({ blackboard: new Blackboard(), now, tick: 0 });

test('sleepDrive = pressure + 0.5·sin(2π·phase)', () => {
  const table: Array<[number, number, number]> = [
    [0, 0, 0],
    [0, 0.25, 0.5],
    [0.3, 0.25, 0.8],
    [0.3, 0.75, -0.2],
    [1, 0.5, 1],
  ];
  for (const [p, phase, expected] of table) assert.ok(Math.abs(sleepDrive(p, phase) - expected) < 1e-12, `${p},${phase}`);
});

test('signal source: SLEEP on the blackboard key means sleep, anything else awake', () => {
  const bb = new Blackboard();
  const s = new SignalBioState();
  assert.deepEqual(s.sample({ blackboard: bb, now: 0, tick: 1 }), { sleeping: false, state: 'AWAKE', source: 'signal' });
  bb.write('bio_inspired.cognitive_state', 'SLEEP');
  assert.equal(s.sample({ blackboard: bb, now: 0, tick: 1 }).sleeping, true);
  bb.write('bio_inspired.cognitive_state', 'sleep');
  assert.equal(s.sample({ blackboard: bb, now: 0, tick: 1 }).sleeping, false, 'case-sensitive like the seed');
  const custom = new SignalBioState({ key: 'me.state', sleepValues: ['nrem_sleep', 'rem_sleep'] });
  bb.write('me.state', 'rem_sleep');
  assert.equal(custom.sample({ blackboard: bb, now: 0, tick: 1 }).sleeping, true);
});

test('model: falls asleep above 0.8, NREM or REM by the injected RNG, wakes below 0.2', () => {
  // Pressure 0.35 at the circadian peak (phase 0.25 = 6 h): drive 0.85 > 0.8.
  const nrem = new SleepDriveModel({ initialPressure: 0.35 }, () => 0.5);
  const s1 = nrem.sample(ctx(DAY / 4));
  assert.equal(s1.state, 'nrem_sleep');
  assert.equal(s1.sleeping, true);
  assert.equal(s1.consolidationStrength, 0.9);
  const rem = new SleepDriveModel({ initialPressure: 0.35 }, () => 0.9);
  assert.equal(rem.sample(ctx(DAY / 4)).state, 'rem_sleep');
  // Between the thresholds the sleeper stays asleep (hysteresis).
  assert.equal(nrem.sample(ctx(0)).state, 'nrem_sleep');
  // At the circadian trough (18 h) the drive drops below 0.2: awake and active.
  const woke = nrem.sample(ctx((3 * DAY) / 4));
  assert.equal(woke.state, 'awake_active');
  assert.equal(woke.sleeping, false);
});

test('model: pressure rises 1e-4 per awake tick and falls 1e-3 per sleeping tick', () => {
  const m = new SleepDriveModel({ initialPressure: 0.5 }, seededRng(1));
  const s = m.sample(ctx(0)); // phase 0: drive = pressure
  assert.ok(Math.abs(s.pressure! - 0.5001) < 1e-12);
  assert.equal(s.state, 'awake_resting');
  const high = new SleepDriveModel({ initialPressure: 0.9 }, () => 0.1);
  assert.equal(high.sample(ctx(0)).sleeping, true); // 0.9001 > 0.8
  assert.ok(Math.abs(high.sample(ctx(0)).pressure! - 0.8991) < 1e-12);
});

test('model: a full simulated day cycles through sleep and wake deterministically', () => {
  const run = () => {
    const m = new SleepDriveModel({ initialPressure: 0.4, pressureRise: 1e-3, pressureFall: 1e-3 }, seededRng(7));
    const states: string[] = [];
    for (let minute = 0; minute < 24 * 60; minute++) states.push(m.sample(ctx(minute * 60_000)).state);
    return states;
  };
  const a = run();
  assert.deepEqual(a, run());
  assert.ok(a.some((s) => s.endsWith('_sleep')));
  assert.ok(a.includes('awake_active'));
});

test('createBioStateSource selects by config and validates it', () => {
  assert.ok(createBioStateSource() instanceof SignalBioState);
  assert.ok(createBioStateSource({ mode: 'signal', key: 'x.y' }) instanceof SignalBioState);
  assert.ok(createBioStateSource({ mode: 'model', model: { sleepThreshold: 0.9 } }, () => 0) instanceof SleepDriveModel);
  assert.throws(() => createBioStateSource({ mode: 'dream' } as never), (e) => MnemosError.is(e, 'validation_failed'));
  assert.throws(() => new SleepDriveModel({ wakeThreshold: 0.9, sleepThreshold: 0.8 }), /below sleepThreshold/);
});
