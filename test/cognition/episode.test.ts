import { test } from 'node:test';
import assert from 'node:assert/strict';
import { episodeFromMemory, episodeToMemoryDraft, renderEpisodeText, toEpisodeDraft } from '../../src/cognition/episode.ts';
import type { EpisodicEvent } from '../../src/cognition/episodic-event.ts';
import { contentHash } from '../../src/domain/hash.ts';
import { agent, owner } from './helpers.ts';

const base: EpisodicEvent = {
  eventId: '01JGFJJZ0059F68Z2YMXP7FMX6',
  blackboardKey: 'goal.achieved',
  valueSnapshot: { goal: 'ship', notes: 'x'.repeat(5000) },
  salience: 0.9,
  tick: 12,
  timestamp: '2025-01-01T00:00:00.000Z',
  sourceModule: 'goal',
  tags: ['t'],
  alwaysConsolidate: false,
  consolidated: false,
};
const now = new Date('2025-01-01T08:00:00.000Z');

test('episodeToMemoryDraft: an episode memory of origin cycle keyed on the event id', () => {
  const m = episodeToMemoryDraft(base, owner, now);
  assert.equal(m.type, 'episode');
  assert.equal(m.origin, 'cycle');
  assert.equal(m.sourceKey, 'cycle:01JGFJJZ0059F68Z2YMXP7FMX6');
  assert.equal(m.text, `goal.achieved = ${JSON.stringify(base.valueSnapshot)}`, 'full value, never truncated');
  assert.equal(m.contentHash, contentHash(m.text));
  assert.equal(m.validFrom, '2025-01-01T00:00:00.000Z');
  assert.equal(m.recordedAt, '2025-01-01T08:00:00.000Z');
  assert.equal(m.salience, 0.9);
  assert.deepEqual(m.labels, ['Episode']);
  assert.equal(m.readOnly, false);
  assert.deepEqual(m.source, { key: 'goal.achieved' });
  assert.deepEqual(m.metadata, { eventId: base.eventId, blackboardKey: 'goal.achieved', valueSnapshot: base.valueSnapshot, tick: 12, sourceModule: 'goal', salience: 0.9 });
  assert.equal(m.namespace, 'test');
  assert.equal(m.ownerId, 'owner');
  assert.equal(m.visibility, 'owner');
});

test('safety episodes are labelled SafetyAudit and read-only; agents share by default', () => {
  const m = episodeToMemoryDraft({ ...base, alwaysConsolidate: true, blackboardKey: 'safety.verification_blocked', sourceModule: 'safety' }, agent, now);
  assert.deepEqual(m.labels, ['Episode', 'SafetyAudit']);
  assert.equal(m.readOnly, true);
  assert.equal(m.agentId, 'a1');
  assert.equal(m.visibility, 'shared');
});

test('renderEpisodeText renders scalars and strings as JSON', () => {
  const table: Array<[string, unknown, string]> = [
    ['a.b', 'text', 'a.b = "text"'],
    ['a.b', 3, 'a.b = 3'],
    ['a.b', null, 'a.b = null'],
    ['a.b', [1, { c: true }], 'a.b = [1,{"c":true}]'],
  ];
  for (const [k, v, expected] of table) assert.equal(renderEpisodeText(k, v as never), expected);
});

test('episodeFromMemory reads back what episodeToMemoryDraft wrote', () => {
  const m = { ...episodeToMemoryDraft(base, owner, now), id: 'M1', lineageId: 'M1', version: 1 };
  assert.deepEqual(episodeFromMemory(m), { ...toEpisodeDraft(base, now), labels: ['Episode'], tags: ['t'], memoryId: 'M1' });
  assert.equal(episodeFromMemory({ ...m, type: 'fact' }), null);
});
