import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { CycleRegistry } from '../../src/services/cycle/cycle-registry.ts';
import { safetyLogName } from '../../src/services/cycle/safety-log.ts';
import { storeIdentity } from '../../src/services/state-dir.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { named, testStores } from '../helpers/backend.ts';

const guest = (id: string): Principal => ({ role: 'guest', namespace: 'default', id });

test(named('the cycle timer ticks every agent when one of them fails, and a failed agent is retried once its cause is gone'), async () => {
  const { dir, db, cleanup } = testStores();
  const m = await openMemory({ db });
  const registry = new CycleRegistry(m.store, { logDir: dir });
  try {
    // Agent a's durable safety log is unreadable: its cycle cannot be created.
    const badLog = join(dir, safetyLogName(storeIdentity(m.store)!, CycleRegistry.keyOf(guest('a'))));
    writeFileSync(badLog, 'not json\n{"v":1,"type":"settled","outcome":"consolidated","ids":[],"at":"2025-01-01T00:00:00.000Z"}\n');
    // a's cycle is still being created (and will fail) when the timer's round starts; b comes after it.
    const pendingA = registry.get(guest('a'));
    const pendingB = registry.get(guest('b'));
    const failures: string[] = [];
    await registry.tickAll((err, agent) => failures.push(`${agent}: ${(err as { code?: string }).code}`));
    await assert.rejects(pendingA, { code: 'corrupt' });
    const b = await pendingB;
    assert.equal(b.ticks, 1, 'agent b ticks although agent a, listed before it, failed');
    assert.deepEqual(failures, ['default/guest:a: corrupt']);
    await assert.rejects(registry.get(guest('a')), { code: 'corrupt' }, 'still unreadable: the same clear error');

    // A tick of b already running (a tool call) is not a failure of the timer's round: b is skipped this time.
    const running = b.cycle.tick();
    await registry.tickAll(() => assert.fail('nothing fails'));
    await running;
    assert.equal(b.ticks, 1);

    // The file is moved aside: the next use creates agent a's cycle instead of repeating the old failure.
    rmSync(badLog);
    const a = await registry.get(guest('a'));
    await registry.tickAll(() => assert.fail('nothing fails now'));
    assert.equal(a.ticks, 1);
    assert.equal(b.ticks, 2);
  } finally {
    await registry.close();
    await m.close();
    await cleanup();
  }
});
