import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';

/**
 * A safety write is acknowledged only once its event is in the durable log.
 * Here the log refuses it: two handles on one store in one process share the
 * agent's log file, and a write through the handle the file has moved on
 * under fails with `conflict` (docs/COGNITION.md, "One writer"). The write was
 * acknowledged anyway, the event sat in memory only, and it was gone once the
 * process ended before a sleep.
 */
test(named('a safety write the durable log refuses is refused to its writer and leaves nothing behind; acknowledged ones survive'), async () => {
  const { dir, db, cleanup } = testStores();
  const back = process.cwd();
  process.chdir(dir); // a server database keeps the safety log in ./.mnemos here
  try {
    const m1 = await openMemory({ db });
    const m2 = await openMemory({ db });
    try {
      await m1.cycle().write('safety.one_blocked', { n: 1 });
      await m2.cycle().write('safety.two_blocked', { n: 2 }); // the file moves on under m1's handle
      await assert.rejects(m1.cycle().write('safety.three_blocked', { n: 3 }), (e: Error & { code?: string; details?: Record<string, unknown> }) => {
        assert.equal(e.code, 'unavailable');
        assert.equal(e.details?.['blackboardKey'], 'safety.three_blocked');
        assert.match(e.message, /durable/);
        return true;
      });
      assert.equal(await m1.cycle().read('safety.three_blocked'), null, 'the refused write is withdrawn from the blackboard');
      assert.equal((await m1.cycle().status()).consolidator.safetyInBuffer, 1, 'and from the buffer: only the acknowledged event waits');
    } finally {
      await m1.close();
      await m2.close();
    }

    // A later process: what was acknowledged is consolidated, what was refused is not.
    const m3 = await openMemory({ db });
    try {
      await m3.cycle().write('bio_inspired.cognitive_state', 'SLEEP');
      const tick = await m3.cycle().tick();
      assert.deepEqual(tick.errors, []);
      const keys = (await m3.cycle().recentEpisodes({ minSalience: 0 })).map((e) => e.blackboardKey).sort();
      assert.deepEqual(keys, ['safety.one_blocked', 'safety.two_blocked']);
    } finally {
      await m3.close();
    }
  } finally {
    process.chdir(back);
    await cleanup();
  }
});
