import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentHash } from '../../src/domain/hash.ts';
import type { Memory } from '../../src/domain/memory.ts';
import { DEFAULT_LIFECYCLE_CONFIG } from '../../src/lifecycle/config.ts';
import { mergeOps, planAllMerges, planLifecycle, planOrphanRescue, planPurge, surfaceWords } from '../../src/lifecycle/consolidation-phases.ts';
import { coversValidTime, outlives } from '../../src/lifecycle/merge-plan.ts';
import { factTerms } from '../../src/lifecycle/similarity.ts';

/** Pure rules of merging: which pairs merge, and how merge losers live, get purged and get rescued. */

const DAY = 86_400_000;
const NOW = Date.parse('2026-06-01T00:00:00.000Z');
const TEXT = 'The quarterly planning meeting moved to the large room on the third floor next to the kitchen';

function memory(id: string, over: Partial<Memory> = {}): Memory {
  const text = over.text ?? TEXT;
  return {
    id, lineageId: id, version: 1, text, contentHash: contentHash(text), type: 'fact', importance: 0.5, accessCount: 0, lastAccessedAt: null,
    emotionalValence: 0, salience: 0.5, lifecycle: 'generated', validFrom: '2026-01-01T00:00:00.000Z', validTo: null,
    recordedAt: '2026-01-01T00:00:00.000Z', supersededAt: null, supersededBy: null, origin: 'user_input', source: {}, sourceKey: null,
    namespace: 'default', ownerId: 'owner', agentId: null, sessionId: null, visibility: 'owner', labels: [], readOnly: false, tags: [],
    metadata: {}, expiresAt: null, ...over,
  };
}

const pairs = (ms: Memory[]) => planAllMerges(ms, DEFAULT_LIFECYCLE_CONFIG).map((p) => `${p.survivorId}>${p.loserId}`);

test('fact terms: digits, date words and negations, in text order', () => {
  const rows: [string, string[]][] = [
    ['The meeting is in room 12', ['12']],
    ['Monday at 3pm, room 12 of building A', ['monday', '3pm', '12']],
    ['valid from 2020-01-01', ['2020', '01', '01']],
    ['Bob is not allergic to peanuts', ['not']],
    ['see you tomorrow in March', ['tomorrow', 'march']],
    ['room ٣', ['٣']], // any script's digits
    ['nothing here at all', []],
  ];
  for (const [text, want] of rows) assert.deepEqual(factTerms(surfaceWords(text)), want, text);
});

test('TTL: the survivor must outlive the loser', () => {
  const at = (d: string | null) => ({ expiresAt: d && `${d}T00:00:00.000Z` });
  const rows: [string, ReturnType<typeof at>, ReturnType<typeof at>, boolean][] = [
    ['neither expires', at(null), at(null), true],
    ['only the loser expires', at(null), at('2026-07-01'), true],
    ['only the survivor expires', at('2026-07-01'), at(null), false],
    ['the survivor expires later', at('2026-08-01'), at('2026-07-01'), true],
    ['the same instant', at('2026-07-01'), at('2026-07-01'), true],
    ['the survivor expires first', at('2026-07-01'), at('2026-08-01'), false],
  ];
  for (const [name, s, l, want] of rows) assert.equal(outlives(s, l), want, name);
});

test('valid time: the survivor must cover the loser (from no later, to no earlier)', () => {
  const iv = (validFrom: string, validTo: string | null) => ({ validFrom: `${validFrom}T00:00:00.000Z`, validTo: validTo && `${validTo}T00:00:00.000Z` });
  const rows: [string, ReturnType<typeof iv>, ReturnType<typeof iv>, boolean][] = [
    ['same open interval', iv('2026-01-01', null), iv('2026-01-01', null), true],
    ['older open covers younger open', iv('2026-01-01', null), iv('2026-02-01', null), true],
    ['younger open does not cover older', iv('2026-02-01', null), iv('2026-01-01', null), false],
    ['disjoint: January 2020 vs since November 2026', iv('2020-01-01', '2020-02-01'), iv('2026-11-01', null), false],
    ['disjoint the other way', iv('2026-11-01', null), iv('2020-01-01', '2020-02-01'), false],
    ['closed does not cover open', iv('2020-01-01', '2030-01-01'), iv('2021-01-01', null), false],
    ['closed covers a closed inside it', iv('2020-01-01', '2030-01-01'), iv('2021-01-01', '2022-01-01'), true],
    ['partial overlap', iv('2020-01-01', '2021-06-01'), iv('2021-01-01', '2022-01-01'), false],
    ['touching ends (validTo exclusive)', iv('2020-01-01', '2020-02-01'), iv('2020-02-01', '2020-03-01'), false],
  ];
  for (const [name, s, l, want] of rows) assert.equal(coversValidTime(s, l), want, name);
});

test('planMerges: near-duplicates only when numbers, dates and valid time agree and the owner did not take them apart', () => {
  const room = (n: number) => `The quarterly budget review with Bob is on Monday at 3pm in room ${n}`;
  const pref = (how: string) => `The user prefers to be contacted by ${how} on weekdays about Project Falcon status updates and the release notes for the whole team`;
  const sync = (from: string, to: string) => `Sync the database from the ${from} server to the ${to} server every night`;
  const lead = (what: string) => `Dana is the ${what} of the platform group in the Lisbon office for the next quarter`;
  const deploy = (how: string) => `Running the deploy-terraform skill against the production cluster with the usual flags and the shared state backend ${how}`;
  const apart = (other: Memory, own: Memory) => ({ keptApartFrom: [{ lineageId: other.lineageId, hash: other.contentHash, ownHash: own.contentHash, at: '2026-01-02T00:00:00.000Z' }] });
  const a = memory('a', { importance: 0.9 });
  const b = memory('b', { text: `${TEXT}.` });
  const rows: [string, Memory[], string[]][] = [
    ['same words, the stronger survives', [a, b], ['a>b']],
    ['a number differs (room 12 vs room 14, Jaccard 0.87)', [memory('a', { text: room(12), importance: 0.9 }), memory('b', { text: room(14) })], []],
    ['the same numbers', [memory('a', { text: room(12), importance: 0.9 }), memory('b', { text: `${room(12)}.` })], ['a>b']],
    ['a weekday differs', [memory('a', { text: `${TEXT} on Monday` }), memory('b', { text: `${TEXT} on Tuesday` })], []],
    ['a negation differs', [memory('a', { text: `${TEXT} and it is not quiet` }), memory('b', { text: `${TEXT} and it is quiet` })], []],
    [
      'disjoint valid times, same text',
      [memory('a', { validFrom: '2020-01-01T00:00:00.000Z', validTo: '2020-02-01T00:00:00.000Z', importance: 0.9 }), memory('b', { validFrom: '2026-11-01T00:00:00.000Z' })],
      [],
    ],
    ['the stronger one is younger: merging would hide the older one before it began', [memory('a', { validFrom: '2026-03-01T00:00:00.000Z', importance: 0.9 }), b], []],
    ['equal strength: the older survives and covers', [memory('a', { validFrom: '2026-03-01T00:00:00.000Z', id: 'z', lineageId: 'z' }), b], ['b>z']],
    ['taken apart by the owner, texts unchanged', [memory('a', { importance: 0.9, metadata: apart(b, a) }), b], []],
    ['taken apart, recorded on the other side only', [a, memory('b', { text: `${TEXT}.`, metadata: apart(a, memory('b', { text: `${TEXT}.` })) })], []],
    ['taken apart, then a text changed', [memory('a', { importance: 0.9, metadata: apart(memory('b', { text: `${TEXT}!` }), a) }), b], ['a>b']],
    ['episodes never merge', [memory('a', { type: 'episode' }), memory('b', { type: 'episode', text: `${TEXT}.` })], []],
    // A one-word change in a long sentence scores above the threshold; each side then says something the other does not.
    ['one word replaced (email / phone)', [memory('a', { text: `${pref('email')}`, importance: 0.9 }), memory('b', { text: pref('phone') })], []],
    ['one word replaced (succeeded / failed)', [memory('a', { text: deploy('succeeded') }), memory('b', { text: deploy('failed') })], []],
    // One text adding a word can reverse it ("former", "disabled"): the newer, shorter one vanished from search.
    ['one word added (the former team lead / the team lead)', [memory('a', { text: lead('former team lead'), importance: 0.9 }), memory('b', { text: lead('team lead') })], []],
    ['one word added, the longer one newer', [memory('a', { text: lead('team lead'), importance: 0.9 }), memory('b', { text: lead('acting team lead') })], []],
    // A survivor whose TTL ends first took its TTL-free duplicate out of search when it expired.
    ['the stronger one expires, the other does not', [memory('a', { importance: 0.9, expiresAt: '2026-06-03T00:00:00.000Z' }), b], []],
    ['the stronger one expires later than the other', [memory('a', { importance: 0.9, expiresAt: '2026-09-01T00:00:00.000Z' }), memory('b', { text: `${TEXT}.`, expiresAt: '2026-07-01T00:00:00.000Z' })], ['a>b']],
    ['the same words, other case and punctuation: the stronger survives', [memory('a', { text: `${TEXT} today` }), memory('b', { text: `${TEXT.toUpperCase()}, today!`, importance: 0.9 })], ['b>a']],
    // The same words in another order can say the opposite.
    [
      'the same words in another order (staging to production / production to staging)',
      [memory('a', { text: sync('staging', 'production'), importance: 0.9 }), memory('b', { text: sync('production', 'staging') })],
      [],
    ],
  ];
  for (const [name, ms, want] of rows) assert.deepEqual(pairs(ms), want, name);
});

test('mergeOps records each side\'s lifecycle before the merge', () => {
  const [s, l] = mergeOps(memory('a', { lifecycle: 'activated' }), memory('b', { lifecycle: 'generated' }), { survivorId: 'a', loserId: 'b', similarity: 1, method: 'jaccard' }, NOW);
  assert.ok(s?.kind === 'update' && l?.kind === 'update');
  assert.equal(s.next.lifecycle, 'consolidated');
  assert.equal((s.next.metadata.mergedFrom as { survivorLifecycle: string }[])[0]!.survivorLifecycle, 'activated');
  assert.equal(l.next.lifecycle, 'archived');
  assert.equal((l.next.metadata.mergedInto as { lifecycle: string }).lifecycle, 'generated');
});

const into = (lineageId: string) => ({ mergedInto: { id: `${lineageId}2`, lineageId, similarity: 1, method: 'jaccard', at: '2026-01-02T00:00:00.000Z' } });
const longAgo = { recordedAt: '2025-01-01T00:00:00.000Z', importance: 0.5 };

test('planLifecycle: a merge loser is not scored while its survivor exists (any lifecycle); alone, or with a TTL run out, it is', () => {
  const survivor = (lifecycle: Memory['lifecycle']) => memory('s', { lifecycle, ...longAgo });
  const loser = (over: Partial<Memory> = {}) => memory('l', { lifecycle: 'archived', metadata: into('s'), ...longAgo, ...over });
  const rows: [string, Memory[], string | null][] = [
    ['survivor consolidated', [survivor('consolidated'), loser()], null],
    ['survivor archived', [survivor('archived'), loser()], null],
    ['survivor expired (not yet purged)', [survivor('expired'), loser()], null],
    ['survivor gone', [loser()], 'expired'],
    ['loser TTL ran out', [survivor('consolidated'), loser({ expiresAt: '2026-05-01T00:00:00.000Z' })], 'expired'],
    ['rescued, no longer a loser', [survivor('consolidated'), loser({ lifecycle: 'activated', metadata: {} })], 'expired'],
  ];
  for (const [name, ms, want] of rows) {
    const plan = planLifecycle(ms, NOW);
    const op = plan.ops.find((o) => o.kind === 'lifecycle' && o.id === 'l');
    assert.equal(op?.kind === 'lifecycle' ? op.to : null, want, name);
  }
});

test('planPurge: held merge losers and memories no longer expired are spared', () => {
  const loser = (over: Partial<Memory> = {}) => memory('l', { lifecycle: 'expired', metadata: into('s'), ...over });
  const rows: [string, Memory[], string[]][] = [
    ['loser expired by an older build, survivor lives', [memory('s'), loser()], []],
    ['loser, survivor gone', [loser()], ['l']],
    ['loser whose own TTL ran out', [memory('s'), loser({ expiresAt: '2026-05-01T00:00:00.000Z' })], ['l']],
    ['ordinary expired memory', [memory('s'), memory('l', { lifecycle: 'expired' })], ['l']],
    ['no longer expired', [memory('l', { lifecycle: 'activated' })], []],
    ['no current version (left to forget)', [], ['l']],
  ];
  for (const [name, ms, want] of rows) assert.deepEqual(planPurge(['l'], ms, NOW), want, name);
});

test('planOrphanRescue: only when the survivor has no current version; the rescued memory stops being a loser', () => {
  const cfg = DEFAULT_LIFECYCLE_CONFIG;
  const loser = (over: Partial<Memory> = {}) => memory('l', { lifecycle: 'archived', metadata: into('s'), ...longAgo, ...over });
  const rows: [string, Memory[], boolean][] = [
    ['survivor consolidated', [memory('s', { lifecycle: 'consolidated' }), loser()], false],
    ['survivor archived by decay: it still exists', [memory('s', { lifecycle: 'archived' }), loser()], false],
    ['survivor expired, not yet purged', [memory('s', { lifecycle: 'expired' }), loser()], false],
    ['survivor gone', [loser()], true],
    ['survivor gone, loser weak', [loser({ importance: 0.4 })], false],
    ['survivor gone, loser used lately', [loser({ lastAccessedAt: new Date(NOW - DAY).toISOString() })], false],
  ];
  for (const [name, ms, want] of rows) assert.equal(planOrphanRescue(ms, NOW, cfg).ops.length, want ? 1 : 0, name);
  const [op] = planOrphanRescue([loser()], NOW, cfg).ops;
  assert.ok(op?.kind === 'update');
  assert.equal(op.next.lifecycle, 'activated');
  assert.equal(op.next.metadata.mergedInto, undefined);
  assert.equal((op.next.metadata.rescuedFrom as { lineageId: string }).lineageId, 's');
  // Archived again later by decay, it is not rescued again.
  assert.equal(planOrphanRescue([{ ...op.next, lifecycle: 'archived' }], NOW + 30 * DAY, cfg).ops.length, 0);
});
