import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FileDurableEventLog } from '../../src/cognition/durable-log-file.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { MnemosError } from '../../src/domain/errors.ts';
import { tempDir } from './helpers.ts';

function ev(id: string, value: unknown = { id }): EpisodicEvent {
  return {
    eventId: id,
    blackboardKey: 'safety.verification_blocked',
    valueSnapshot: value as never,
    salience: 1,
    tick: 3,
    timestamp: '2025-01-01T00:00:00.000Z',
    sourceModule: 'safety',
    tags: ['t'],
    alwaysConsolidate: true,
    consolidated: false,
  };
}

test('append, settle and reload: pending survives a reopen, settled does not', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'nested', 'safety.jsonl');
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('A'));
  await log.append(ev('B', { deep: [1, { x: 'y' }] }));
  await log.append(ev('C'));
  await log.append(ev('A')); // idempotent
  await log.markConsolidated(['A'], 'consolidated');
  await log.markConsolidated(['C', 'unknown'], 'blocked');
  await log.close();

  const again = await FileDurableEventLog.open(path);
  const pending = await again.pending();
  assert.deepEqual(pending.map((e) => e.eventId), ['B']);
  assert.deepEqual(pending[0]!.valueSnapshot, { deep: [1, { x: 'y' }] });
  assert.ok(Object.isFrozen(pending[0]!.valueSnapshot));
  await again.close();

  const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.type), ['event', 'event', 'event', 'settled', 'settled']);
  assert.equal(lines[4].outcome, 'blocked');
  assert.deepEqual(lines[4].ids, ['C']);
});

test('a torn tail is cut off on open and later appends land on a clean line', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('A'));
  await log.close();
  appendFileSync(path, '{"v":1,"type":"event","event":{"eventId":"TORN"');

  const reopened = await FileDurableEventLog.open(path);
  assert.ok(reopened.repairedBytes > 0);
  assert.deepEqual((await reopened.pending()).map((e) => e.eventId), ['A']);
  await reopened.append(ev('B'));
  await reopened.close();
  const third = await FileDurableEventLog.open(path);
  assert.deepEqual((await third.pending()).map((e) => e.eventId), ['A', 'B']);
  assert.equal(third.repairedBytes, 0);
  await third.close();
});

test('zero bytes left by a power cut at the tail are treated as torn', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('A'));
  await log.close();
  appendFileSync(path, Buffer.alloc(64));
  appendFileSync(path, '\n\0\0\0');
  const reopened = await FileDurableEventLog.open(path);
  assert.deepEqual((await reopened.pending()).map((e) => e.eventId), ['A']);
  await reopened.close();
});

test('garbage followed by valid records is corruption, refused with a clear error', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const good = JSON.stringify({ v: 1, type: 'event', event: ev('A') });
  writeFileSync(path, `${good}\nnot json\n${good}\n`);
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 2/.test(e.message));
});

test('a whole record of a form this version does not know is refused, never cut off as a torn tail', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('A'));
  await log.close();
  // A newer version's record (or a hand-edited one) last in the file: complete JSON, so no torn write.
  appendFileSync(path, `${JSON.stringify({ v: 2, type: 'event', event: { eventId: 'B', blackboardKey: 'safety.verification_blocked' } })}\n`);
  const before = readFileSync(path, 'utf8');
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 2/.test(e.message) && /does not know/.test(e.message));
  assert.equal(readFileSync(path, 'utf8'), before, 'nothing was cut off');
});

test('a closed log refuses appends', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const log = await FileDurableEventLog.open(join(tmp.dir, 'x.jsonl'));
  await log.close();
  await assert.rejects(log.append(ev('A')), (e) => MnemosError.is(e, 'unavailable'));
});
