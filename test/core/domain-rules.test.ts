import { test } from 'node:test';
import assert from 'node:assert/strict';
import { canTransition, initialLifecycle, onRecall } from '../../src/domain/lifecycle.ts';
import { canRead, canWrite, withArticle } from '../../src/domain/principal.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { chainEntry, verifyChainSegment, type AuditEntry } from '../../src/domain/audit.ts';

test('lifecycle transitions follow the table', () => {
  const cases: [Parameters<typeof canTransition>, boolean][] = [
    [['generated', 'activated', 'recall'], true],
    [['activated', 'consolidated', 'strong'], true],
    [['consolidated', 'archived', 'weak'], true],
    [['archived', 'expired', 'weak'], true],
    [['archived', 'activated', 'rescue'], true],
    [['expired', 'activated', 'rescue'], false],
    [['expired', 'generated', 'owner'], false],
    [['generated', 'frozen', 'owner'], false],
    [['frozen', 'archived', 'weak'], false],
    [['frozen', 'expired', 'forgotten'], false],
    [['frozen', 'archived', 'owner'], true],
  ];
  for (const [args, expected] of cases) assert.equal(canTransition(...args), expected, args.join(' -> '));
  assert.equal(initialLifecycle('skill'), 'frozen');
  assert.equal(initialLifecycle('fact'), 'generated');
  assert.equal(onRecall('generated'), 'activated');
  assert.equal(onRecall('consolidated'), 'consolidated');
});

test('read rule: owners see all, guests never see owner-only memories of others', () => {
  const owner: Principal = { role: 'owner', namespace: 'n', id: 'o' };
  const guest: Principal = { role: 'guest', namespace: 'n', id: 'g', agentId: 'a1' };
  const otherNs: Principal = { role: 'owner', namespace: 'm', id: 'o' };
  const mem = (visibility: 'owner' | 'shared' | 'public', ownerId = 'o', agentId: string | null = null) => ({ namespace: 'n', visibility, ownerId, agentId });
  const cases: [Principal, ReturnType<typeof mem>, boolean][] = [
    [owner, mem('owner'), true],
    [guest, mem('owner'), false],
    [guest, mem('owner', 'g'), true],
    [guest, mem('shared'), true],
    [guest, mem('shared', 'o', 'a1'), true],
    [guest, mem('shared', 'o', 'a2'), false],
    [guest, mem('public', 'o', 'a2'), true],
    [otherNs, mem('public'), false],
  ];
  for (const [p, m, expected] of cases) assert.equal(canRead(p, m), expected, `${p.role}/${p.namespace} reading ${JSON.stringify(m)}`);
  assert.equal(canWrite(guest, { namespace: 'n', ownerId: 'o' }), false);
  assert.equal(canWrite(guest, { namespace: 'n', ownerId: 'g' }), true);
  assert.equal(canWrite(owner, { namespace: 'n', ownerId: 'g' }), true);
});

test('audit chain detects edits, deletions and reordering', () => {
  const meta = { at: '2026-01-01T00:00:00.000Z', actor: 'owner:o', namespace: 'n' };
  const entries: AuditEntry[] = [];
  for (let i = 0; i < 5; i++) entries.push(chainEntry(entries[i - 1] ?? null, { action: 'create', memoryId: `m${i}`, beforeHash: null, afterHash: `h${i}`, details: {} }, meta));
  assert.deepEqual(verifyChainSegment(null, entries), []);
  const edited = entries.map((e, i) => (i === 2 ? { ...e, afterHash: 'forged' } : e));
  assert.equal(verifyChainSegment(null, edited)[0]?.problem, 'hash_mismatch');
  const deleted = entries.filter((_, i) => i !== 1);
  assert.ok(verifyChainSegment(null, deleted).some((p) => p.problem === 'sequence_gap'));
  const swapped = [entries[0]!, entries[2]!, entries[1]!, entries[3]!, entries[4]!];
  assert.ok(verifyChainSegment(null, swapped).length > 0);
});

test('roles in messages take the right article ("this token is an agent token", not "a agent")', () => {
  const cases = [
    ['owner', 'an owner'],
    ['agent', 'an agent'],
    ['guest', 'a guest'],
  ] as const;
  for (const [role, want] of cases) assert.equal(withArticle(role), want);
});

test('fileOfKey reads the file out of a chunk or line key, and nothing else', async () => {
  const { fileOfKey, isFileKey } = await import('../../src/domain/source-keys.ts');
  const cases: [string, string | null][] = [
    ['file:/n/x.md#L3-L9', '/n/x.md'],
    ['file:/n/x.jsonl#L3', '/n/x.jsonl'],
    ['file:/n/x.md#2.md#L1-L3', '/n/x.md#2.md'],
    ['file:/n/x.md#intro', null],
    ['file:#L3', null],
    ['transcript:s1#3', null],
    ['client-key-7', null],
  ];
  for (const [key, file] of cases) {
    assert.equal(fileOfKey(key), file, key);
    if (file !== null) assert.ok(isFileKey(file, key), key);
  }
});
