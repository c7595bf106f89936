import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Blackboard } from '../../src/cognition/blackboard.ts';
import { CognitiveCycle, type CyclePhase, type CycleModule } from '../../src/cognition/cycle.ts';
import { BIO_STATE_KEY } from '../../src/cognition/keys.ts';
import { MnemosError } from '../../src/domain/errors.ts';

function recorder(name: string, log: string[], phases: CyclePhase[]): CycleModule {
  return { name, phases: Object.fromEntries(phases.map((p) => [p, () => void log.push(`${name}:${p}`)])) };
}

const AWAKE: CyclePhase[] = ['PERCEPTION', 'REASONING', 'ACTION', 'LEARNING', 'EVALUATION', 'INTEGRATION'];

test('a tick runs the six awake phases in order, modules in registration order', async () => {
  const log: string[] = [];
  const cycle = new CognitiveCycle({ blackboard: new Blackboard(), modules: [recorder('a', log, [...AWAKE, 'SLEEP_PHASE']), recorder('b', log, ['ACTION'])] });
  const r = await cycle.tick();
  assert.deepEqual(log, ['a:PERCEPTION', 'a:REASONING', 'a:ACTION', 'b:ACTION', 'a:LEARNING', 'a:EVALUATION', 'a:INTEGRATION']);
  assert.equal(r.tick, 1);
  assert.equal(r.sleeping, false);
  assert.deepEqual(r.phases.map((p) => p.phase), AWAKE);
});

test('SLEEP_PHASE follows INTEGRATION only while bio_inspired.cognitive_state is SLEEP', async () => {
  const log: string[] = [];
  const bb = new Blackboard();
  const cycle = new CognitiveCycle({ blackboard: bb, modules: [recorder('m', log, ['INTEGRATION', 'SLEEP_PHASE'])] });
  await cycle.tick();
  bb.write(BIO_STATE_KEY, 'SLEEP');
  const asleep = await cycle.tick();
  bb.write(BIO_STATE_KEY, 'AWAKE');
  await cycle.tick();
  assert.deepEqual(log, ['m:INTEGRATION', 'm:INTEGRATION', 'm:SLEEP_PHASE', 'm:INTEGRATION']);
  assert.equal(asleep.sleeping, true);
  assert.equal(asleep.bio.state, 'SLEEP');
  assert.equal(asleep.phases.at(-1)!.phase, 'SLEEP_PHASE');
  assert.equal(cycle.stats().sleepTicks, 1);
});

test('module error isolation: a throwing module is recorded, the others and later phases still run', async () => {
  const log: string[] = [];
  const broken: CycleModule = {
    name: 'broken',
    phases: {
      REASONING: () => {
        throw new MnemosError('unavailable', 'llm down');
      },
      ACTION: async () => {
        throw new Error('async failure');
      },
    },
  };
  const cycle = new CognitiveCycle({ blackboard: new Blackboard(), modules: [broken, recorder('ok', log, AWAKE)] });
  const r = await cycle.tick();
  assert.equal(log.length, 6);
  assert.deepEqual(
    r.errors.map((e) => [e.module, e.phase, e.code, e.message]),
    [
      ['broken', 'REASONING', 'unavailable', 'llm down'],
      ['broken', 'ACTION', 'internal', 'async failure'],
    ],
  );
  const reasoning = r.phases.find((p) => p.phase === 'REASONING')!;
  assert.deepEqual(reasoning.modules.map((m) => [m.module, m.ok]), [['broken', false], ['ok', true]]);
  assert.equal(cycle.stats().moduleErrors, 2);
});

test('per-phase timings are kept per tick and accumulated', async () => {
  let t = 0;
  const timer = () => t;
  const slow: CycleModule = { name: 'slow', phases: { LEARNING: () => void (t += 5) } };
  const cycle = new CognitiveCycle({ blackboard: new Blackboard(), timer, modules: [slow] });
  const r1 = await cycle.tick();
  await cycle.tick();
  assert.equal(r1.phases.find((p) => p.phase === 'LEARNING')!.durationMs, 5);
  assert.equal(r1.phases.find((p) => p.phase === 'LEARNING')!.modules[0]!.durationMs, 5);
  assert.equal(r1.durationMs, 5);
  const s = cycle.stats().phases.LEARNING!;
  assert.deepEqual(s, { runs: 2, totalMs: 10, maxMs: 5, lastMs: 5 });
});

test('handlers see the tick, the phase, the clock time and the blackboard stamps writes with the tick', async () => {
  const bb = new Blackboard();
  const seen: Array<[number, string, number]> = [];
  const m: CycleModule = {
    name: 'w',
    phases: {
      ACTION: (ctx) => {
        seen.push([ctx.tick, ctx.phase, ctx.now]);
        ctx.blackboard.write('action.done', ctx.tick);
      },
    },
  };
  const cycle = new CognitiveCycle({ blackboard: bb, clock: () => 42, modules: [m] });
  await cycle.tick();
  await cycle.tick();
  assert.deepEqual(seen, [[1, 'ACTION', 42], [2, 'ACTION', 42]]);
  assert.equal(bb.read('action.done')!.tick, 2);
});

test('module names are unique; unregister works; overlapping ticks are refused', async () => {
  const cycle = new CognitiveCycle({ blackboard: new Blackboard() });
  const off = cycle.register({ name: 'x', phases: {} });
  assert.throws(() => cycle.register({ name: 'x', phases: {} }), (e) => MnemosError.is(e, 'conflict'));
  off();
  cycle.register({ name: 'x', phases: { PERCEPTION: () => new Promise((r) => setTimeout(r, 5)) } });
  const first = cycle.tick();
  await assert.rejects(cycle.tick(), (e) => MnemosError.is(e, 'conflict'));
  await first;
});

test('a failing bio source is recorded and the tick runs awake', async () => {
  const cycle = new CognitiveCycle({
    blackboard: new Blackboard(),
    bio: {
      sample: () => {
        throw new Error('sensor gone');
      },
    },
  });
  const r = await cycle.tick();
  assert.equal(r.sleeping, false);
  assert.deepEqual(r.errors.map((e) => e.module), ['bio']);
});
