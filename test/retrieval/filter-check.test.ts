import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Memory } from '../../src/domain/memory.ts';
import type { MemoryFilter } from '../../src/ports/store.ts';
import { admitsFilter } from '../../src/services/filter-check.ts';

const NOW = Date.parse('2026-06-01T00:00:00Z');

function memory(over: Partial<Memory> = {}): Memory {
  return {
    id: 'm2', lineageId: 'm1', version: 2, text: 'Dana lives in Lisbon', contentHash: 'h', type: 'fact', importance: 0.5, accessCount: 0, lastAccessedAt: null,
    emotionalValence: 0, salience: 0.5, lifecycle: 'activated', validFrom: '2020-01-01T00:00:00.000Z', validTo: '2022-01-01T00:00:00.000Z',
    recordedAt: '2024-01-01T00:00:00.000Z', supersededAt: null, supersededBy: null, origin: 'user_input', source: {}, sourceKey: 'file:/a.md#L1-L2',
    namespace: 'default', ownerId: 'owner', agentId: 'bot', sessionId: 's1', visibility: 'private', labels: ['Episode'], readOnly: false, tags: ['home'],
    metadata: {}, expiresAt: null, ...over,
  } as Memory;
}

test('a memory in hand is admitted exactly when the store filter would admit it', () => {
  const cases: [string, MemoryFilter, Partial<Memory>, boolean][] = [
    ['no filter', {}, {}, true],
    ['as of a time inside its validity', { asOf: '2021-06-01' }, {}, true],
    ['as of before it held', { asOf: '2019-01-01' }, {}, false],
    ['as of after it ended (validTo is exclusive)', { asOf: '2022-01-01T00:00:00Z' }, {}, false],
    ['as of with no end', { asOf: '2030-01-01' }, { validTo: null }, true],
    ['known at before it was recorded', { knownAt: '2000-01-01' }, {}, false],
    ['known at after it was recorded', { knownAt: '2025-01-01' }, {}, true],
    ['known at while it was current, replaced since', { knownAt: '2024-06-01' }, { supersededAt: '2025-01-01T00:00:00.000Z' }, true],
    ['known at after it was replaced', { knownAt: '2025-06-01' }, { supersededAt: '2025-01-01T00:00:00.000Z' }, false],
    ['a replaced version without known at', {}, { supersededAt: '2025-01-01T00:00:00.000Z' }, false],
    ['archived, default lifecycles', {}, { lifecycle: 'archived' }, false],
    ['archived, asked for', { lifecycles: ['archived'] }, { lifecycle: 'archived' }, true],
    ['past its expiresAt', {}, { expiresAt: '2026-01-01T00:00:00.000Z' }, false],
    ['before its expiresAt', {}, { expiresAt: '2027-01-01T00:00:00.000Z' }, true],
    ['recorded range, inside', { recorded: { from: '2023-01-01', to: '2025-01-01' } }, {}, true],
    ['recorded range, outside', { recorded: { from: '2024-06-01' } }, {}, false],
    ['valid range on validFrom', { valid: { from: '2020-01-01', to: '2020-01-02' } }, {}, true],
    ['valid range missed', { valid: { to: '2020-01-01' } }, {}, false],
    ['type', { types: ['preference'] }, {}, false],
    ['tag', { tags: ['home', 'x'] }, {}, true],
    ['label', { labels: ['SafetyAudit'] }, {}, false],
    ['session', { sessionId: 's2' }, {}, false],
    ['agent', { agentId: 'bot' }, {}, true],
    ['agent, another', { agentId: 'other' }, {}, false],
    ['salience', { minSalience: 0.6 }, {}, false],
    ['source prefix', { sourceKeyPrefix: 'file:/a.md#' }, {}, true],
    ['source prefix, no key', { sourceKeyPrefix: 'file:' }, { sourceKey: null }, false],
    ['source keys of an owner', { sourceKeys: { ownerId: 'someone', keys: ['file:/a.md#L1-L2'] } }, {}, false],
  ];
  for (const [name, filter, over, want] of cases) assert.equal(admitsFilter(filter, memory(over), NOW), want, name);
});
