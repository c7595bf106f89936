import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
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

async function threeEvents(path: string): Promise<string> {
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('A', { why: 'first' }));
  await log.append(ev('B', { why: 'second' }));
  await log.append(ev('C', { why: 'third' }));
  await log.close();
  return readFileSync(path, 'utf8');
}

test('a pending event edited in the file is refused as corrupt, naming the line, and nothing changes', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const text = await threeEvents(path);
  const edited = text.replace('"why":"second"', '"why":"harmless"');
  assert.notEqual(edited, text);
  writeFileSync(path, edited);
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 2\b/.test(e.message) && /move it aside/.test(e.message));
  assert.equal(readFileSync(path, 'utf8'), edited, 'nothing was cut off or rewritten');
});

test('a line removed from the middle of the log is refused as corrupt at the line after it', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const lines = (await threeEvents(path)).split('\n');
  writeFileSync(path, [lines[0], lines[2], ''].join('\n'));
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 2\b/.test(e.message) && (e as MnemosError).details?.['line'] === 2);
});

test('an edited last line is corruption, not a torn tail to cut off', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const edited = (await threeEvents(path)).replace('"why":"third"', '"why":"other"');
  writeFileSync(path, edited);
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 3\b/.test(e.message));
  assert.equal(readFileSync(path, 'utf8'), edited);
});

test('a log written before the hash chain is still read, and the first chained line then covers it', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const old = (id: string) => JSON.stringify({ v: 1, type: 'event', event: ev(id) });
  writeFileSync(path, `${old('A')}\n${old('B')}\n${JSON.stringify({ v: 1, type: 'settled', outcome: 'consolidated', ids: ['A'], at: '2025-01-01T00:00:00.000Z' })}\n`);
  const log = await FileDurableEventLog.open(path);
  assert.deepEqual((await log.pending()).map((e) => e.eventId), ['B']);
  await log.append(ev('C'));
  await log.close();
  const again = await FileDurableEventLog.open(path);
  assert.deepEqual((await again.pending()).map((e) => e.eventId), ['B', 'C']);
  await again.close();
  // From now on an edit of the old lines is caught too.
  writeFileSync(path, readFileSync(path, 'utf8').replace(old('B'), old('X')));
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 4\b/.test(e.message));
});

test('an unchained line after chained ones is refused (a forged legacy record)', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  await threeEvents(path);
  appendFileSync(path, `${JSON.stringify({ v: 1, type: 'event', event: ev('FORGED') })}\n`);
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 4\b/.test(e.message));
});

test('lines removed from the end of the log are refused too: its .head file remembers where it ended', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  const lines = (await threeEvents(path)).split('\n');
  const cut = `${lines.slice(0, 2).join('\n')}\n`;
  writeFileSync(path, cut);
  await assert.rejects(FileDurableEventLog.open(path), (e) => MnemosError.is(e, 'corrupt') && /line 3\b/.test(e.message) && /removed from its end/.test(e.message));
  assert.equal(readFileSync(path, 'utf8'), cut, 'nothing was changed');
});

test('a head left one line behind by a crash is accepted, and a log moved aside starts afresh', async (t) => {
  const tmp = tempDir();
  t.after(tmp.cleanup);
  const path = join(tmp.dir, 'log.jsonl');
  await threeEvents(path);
  const head = readFileSync(`${path}.head`, 'utf8');
  const log = await FileDurableEventLog.open(path);
  await log.append(ev('D'));
  await log.close();
  writeFileSync(`${path}.head`, head); // the crash came between the log line and its head
  const again = await FileDurableEventLog.open(path);
  assert.deepEqual((await again.pending()).map((e) => e.eventId), ['A', 'B', 'C', 'D']);
  await again.close();
  renameSync(path, `${path}.aside`);
  const fresh = await FileDurableEventLog.open(path);
  assert.deepEqual(await fresh.pending(), []);
  await fresh.close();
});
