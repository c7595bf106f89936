import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';
import { TOOLS } from '../../src/surfaces/tools/index.ts';
import { findTool, runTool } from '../../src/surfaces/tools/run-tool.ts';

/**
 * Times as callers write them: every shape the published ISO pattern admits
 * is read as one instant, whatever the machine's zone, on every backend.
 */

async function withMemory<T>(run: (m: Awaited<ReturnType<typeof openMemory>>) => Promise<T>): Promise<T> {
  const t = testStores();
  const m = await openMemory({ db: t.db });
  try {
    return await run(m);
  } finally {
    await m.close();
    await t.cleanup();
  }
}

async function inZone<T>(zone: string, run: () => Promise<T>): Promise<T> {
  const kept = process.env.TZ;
  process.env.TZ = zone;
  try {
    return await run();
  } finally {
    if (kept === undefined) delete process.env.TZ;
    else process.env.TZ = kept;
  }
}

/** `ms` as a time of day without a zone, which the docs say is UTC. */
const zoneless = (ms: number) => new Date(ms).toISOString().slice(0, 19);

test(named('a zone-less asOf or knownAt keeps a fact pinned before it in the ledger, whatever the machine zone'), () =>
  withMemory(async (m) => {
    await m.lifecycle.pin({ key: 'dana.drink', value: 'tea', statement: 'Dana drinks tea' });
    // Three hours from now in UTC; read in Tokyo's zone it was six hours ago, before the pin.
    const later = zoneless(Date.now() + 3 * 3600_000);
    await inZone('Asia/Tokyo', async () => {
      for (const filter of [{ asOf: later }, { knownAt: later }]) {
        const r = await m.search({ query: 'Dana drinks tea', filter });
        assert.deepEqual(
          r.ledger.map((f) => f.key),
          ['dana.drink'],
          JSON.stringify(filter),
        );
      }
    });
  }),
);

test(named('a zone of hours alone and a date with a zone, both in the published pattern, are read, not refused'), () =>
  withMemory(async (m) => {
    const cases: [string, string][] = [
      ['2026-05-01T12:00+05', '2026-05-01T07:00:00.000Z'],
      ['2026-05-01T12:00-03', '2026-05-01T15:00:00.000Z'],
      ['2026-05-01+05:00', '2026-04-30T19:00:00.000Z'],
      ['2026-05-01-0230', '2026-05-01T02:30:00.000Z'],
      ['2026-05-01z', '2026-05-01T00:00:00.000Z'],
      ['2026-05-01 12:00:00.5+05:30', '2026-05-01T06:30:00.500Z'],
    ];
    for (const [given, stored] of cases) {
      const r = await m.remember({ text: `at ${given}`, validFrom: given });
      assert.equal((await m.get(r.id)).validFrom, stored, given);
    }
    // The same shapes bound a search on the store's filters and through the memory_search tool.
    const hit = await m.remember({ text: 'zone probe walnut', validFrom: '2026-05-01T07:00:00Z' });
    const bounded = await m.search({ query: 'walnut', filter: { since: '2026-05-01T12:00+05', until: '2026-05-01T12:00:00.001+05' } });
    assert.deepEqual(bounded.hits.map((h) => h.memory.id), [hit.id]);
    const tool = (await runTool(findTool(TOOLS, 'memory_search'), { query: 'walnut', since: '2026-05-01+05:00', until: '2026-05-01T13:00+05' }, { memory: m, surfaceParts: [] })) as { results: { id: string }[] };
    assert.ok(tool.results.some((r) => r.id === hit.id), 'from midnight +05:00 of May 1st to 08:00Z holds the memory at 07:00Z');
  }),
);

test(named('0000-02-29 is a leap day (proleptic Gregorian, as ISO-8601 and toISOString count) and round-trips'), () =>
  withMemory(async (m) => {
    const r = await m.remember({ text: 'year zero leap day', validFrom: '0000-02-29' });
    assert.equal((await m.get(r.id)).validFrom, '0000-02-29T00:00:00.000Z');
    for (const bad of ['0001-02-29', '0100-02-29', '1900-02-29']) {
      await assert.rejects(m.remember({ text: `at ${bad}`, validFrom: bad }), (err: unknown) => MnemosError.is(err) && err.code === 'validation_failed' && err.details?.field === 'validFrom', bad);
    }
    const r4 = await m.remember({ text: 'year four leap day', validFrom: '0004-02-29T12:00:00Z' });
    assert.equal((await m.get(r4.id)).validFrom, '0004-02-29T12:00:00.000Z');
  }),
);

test(named('bounds given the wrong way round are refused naming until, on list, search and memory_search; equal bounds select nothing'), () =>
  withMemory(async (m) => {
    await m.remember({ text: 'bounded pecan', validFrom: '2026-05-01T12:00:00Z' });
    const swapped = { since: '2026-05-02', until: '2026-05-01T12:00+00:00' };
    const namesUntil = (field: string) => (err: unknown) => MnemosError.is(err, 'validation_failed') && err.details?.field === field;
    await assert.rejects(m.list({ filter: swapped }), namesUntil('filter.until'));
    await assert.rejects(m.search({ query: 'pecan', filter: swapped }), namesUntil('filter.until'));
    await assert.rejects(m.list({ filter: { recordedSince: '2026-05-02', recordedUntil: '2026-05-01' } }), namesUntil('filter.recordedUntil'));
    await assert.rejects(runTool(findTool(TOOLS, 'memory_search'), { query: 'pecan', ...swapped }, { memory: m, surfaceParts: [] }), namesUntil('until'));
    // An empty range is a range: nothing in it, no error. One millisecond more holds the memory (until is exclusive).
    assert.equal((await m.list({ filter: { since: '2026-05-01T12:00:00Z', until: '2026-05-01T12:00:00Z' } })).total, 0);
    assert.equal((await m.list({ filter: { since: '2026-05-01T12:00:00Z', until: '2026-05-01T12:00:00.001Z' } })).total, 1);
  }),
);
