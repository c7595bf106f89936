import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canonicalJson, sha256Hex } from '../../src/domain/hash.ts';
import type { Memory } from '../../src/domain/memory.ts';
import { claimsHash } from '../../src/domain/memory-claims.ts';

const base = {
  id: 'v2', lineageId: 'l1', version: 2, text: 'x', contentHash: 'h'.repeat(64), type: 'fact', importance: 0.5, accessCount: 3, lastAccessedAt: null, emotionalValence: -0.25,
  salience: 0.9, lifecycle: 'activated', validFrom: '2024-01-01T00:00:00.000Z', validTo: null, recordedAt: '2024-02-01T10:00:00.000Z', supersededAt: null, supersededBy: null,
  origin: 'cycle', source: { key: 'goal.achieved' }, sourceKey: 'cycle:e1', namespace: 'default', ownerId: 'owner', agentId: null, sessionId: null, visibility: 'private',
  labels: ['Episode', 'SafetyAudit'], readOnly: true, tags: ['t'], metadata: { valueSnapshot: { z: 1, a: [true, null] } }, expiresAt: null,
} as unknown as Memory;

test('the claims hash is the canonical JSON of the claimed fields, written out by hand', () => {
  const { id, text, importance, accessCount, lastAccessedAt, lifecycle, supersededAt, supersededBy, ...claimed } = base;
  void [id, text, importance, accessCount, lastAccessedAt, lifecycle, supersededAt, supersededBy];
  assert.equal(claimsHash(base), sha256Hex(canonicalJson(claimed)));
});

test('the claims hash moves with every claimed field and only with them; a time in another spelling is the same time', () => {
  const h = claimsHash(base);
  const changed: Partial<Memory>[] = [
    { labels: ['Episode'] }, { readOnly: false }, { metadata: { valueSnapshot: 'edited' } }, { visibility: 'public' }, { tags: [] }, { validTo: '2030-01-01T00:00:00.000Z' },
    { expiresAt: '2030-01-01T00:00:00.000Z' }, { ownerId: 'other' }, { agentId: 'a' }, { sessionId: 's' }, { source: {} }, { sourceKey: null }, { type: 'general' },
    { salience: 0.1 }, { emotionalValence: 0 }, { version: 3 }, { lineageId: 'l2' }, { contentHash: 'g'.repeat(64) }, { origin: 'user_input' }, { namespace: 'n2' },
  ];
  for (const c of changed) assert.notEqual(claimsHash({ ...base, ...c }), h, JSON.stringify(c));
  const same: Partial<Memory>[] = [{ lifecycle: 'archived' }, { importance: 1 }, { accessCount: 9 }, { supersededAt: '2025-01-01T00:00:00.000Z' }, { text: 'kept apart: the content hash covers it' }, { validFrom: '2024-01-01T00:00:00Z' }, { recordedAt: '2024-02-01T11:00:00+01:00' }];
  for (const c of same) assert.equal(claimsHash({ ...base, ...c }), h, JSON.stringify(c));
});
