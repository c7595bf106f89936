/**
 * The store contract: one suite every MemoryStore adapter must pass, run
 * against a real database of the backend the pass selects (a SQLite file, a PostgreSQL
 * schema). Adapter files only say how to open a fresh store and how to count
 * raw rows that hold a memory's text; everything else goes through the port.
 */
import assert from 'node:assert/strict';
import { claimsHash } from '../../src/domain/memory-claims.ts';
import { after, before, describe, test } from 'node:test';
import { CONTENT_WRITES, verifyChainSegment, type AuditEntry } from '../../src/domain/audit.ts';
import { contentHash, sha256Hex } from '../../src/domain/hash.ts';
import { newId } from '../../src/domain/ids.ts';
import type { Memory } from '../../src/domain/memory.ts';
import type { Principal } from '../../src/domain/principal.ts';
import { toIso } from '../../src/domain/time.ts';
import type { MemoryContent, MemoryStore, WriteOp } from '../../src/ports/store.ts';
import { LEDGER_CATEGORIES } from '../../src/lifecycle/ledger-rules.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { named } from '../helpers/backend.ts';
import { buildMemory } from '../../src/services/build-memory.ts';
import { rememberSchema, type RememberInput } from '../../src/services/inputs.ts';
import { vectorContractTests } from './contract-vectors.ts';

export interface ContractStore {
  store: MemoryStore;
  /** Raw rows, per place, that still hold a memory: its lineage's rows and full-text postings of a unique term, its pending changes. */
  rawCounts(lineageId: string, uniqueTerm: string): Promise<{ memories: number; fullText: number; pending: number }>;
  /** Every stored vector row, whatever its memory or model. */
  rawVectorRows(): Promise<number>;
  /** Entries left in the vector change log. */
  rawVectorLogRows(): Promise<number>;
  /** Another store instance on the same database, as a second process would open it; the caller closes it. */
  reopen(): Promise<MemoryStore>;
  cleanup(): Promise<void>;
}

export type StoreFactory = () => Promise<ContractStore>;

export const owner: Principal = { role: 'owner', namespace: 'contract', id: 'owner' };
export const agent: Principal = { role: 'agent', namespace: 'contract', id: 'agent-1', agentId: 'a1' };
export const guest: Principal = { role: 'guest', namespace: 'contract', id: 'guest-1', agentId: 'a1' };
const otherNs: Principal = { role: 'owner', namespace: 'elsewhere', id: 'owner' };

const HOUR = 3_600_000;
const LEDGER_CATEGORY = LEDGER_CATEGORIES[0];
const actorOfAgent = `${agent.role}:${agent.id}`;

export function mem(p: Principal, input: RememberInput, now = Date.now()): Memory {
  return buildMemory(p, rememberSchema.parse(input), now);
}

function insert(m: Memory, onExistingSource: 'skip_if_same' | 'supersede' | 'conflict' = 'conflict'): WriteOp {
  return { kind: 'insert', memory: m, onExistingSource };
}

function nextVersion(prev: Memory, text: string, now = Date.now()): Memory {
  return { ...prev, id: newId(now), version: prev.version + 1, text, contentHash: contentHash(text), recordedAt: toIso(now), supersededAt: null, supersededBy: null };
}

/** The whole audit chain, read in small pages (paging is part of what is checked). */
export async function wholeChain(s: MemoryStore): Promise<AuditEntry[]> {
  const out: AuditEntry[] = [];
  for (;;) {
    const page = await s.audit.range(owner, out.length ? out[out.length - 1]!.seq : 0, 7);
    if (page.length === 0) return out;
    out.push(...page);
  }
}

export function runStoreContract(factory: StoreFactory): void {
  describe('store contract', () => {
    let cs: ContractStore;
    let s: MemoryStore;
    before(async () => {
      cs = await factory();
      s = cs.store;
    });
    after(async () => {
      await cs?.cleanup();
    });

    test(named('declares capabilities and a schema version'), async () => {
      assert.equal(typeof s.capabilities.keywordSearch, 'boolean');
      assert.equal(s.capabilities.multiProcess, true);
      assert.ok((await s.schemaVersion()) >= 1);
    });

    test(named('insert, get, getMany, list and count with filters'), async () => {
      const t0 = Date.parse('2026-01-01T00:00:00Z');
      const a = mem(owner, { text: 'alpha fact about rivers', type: 'fact', tags: ['geo', 'water'], validFrom: '2025-01-01T00:00:00Z', sessionId: 's1', salience: 0.9, key: 'file:a.md#1' }, t0);
      const b = mem(owner, { text: 'beta preference for tea', type: 'preference', tags: ['food'], validFrom: '2025-06-01T00:00:00Z', validTo: '2025-07-01T00:00:00Z', salience: 0.1, key: 'file:b.md#1' }, t0 + HOUR);
      const c = mem(owner, { text: 'gamma archived note', type: 'general', validFrom: '2025-09-01T00:00:00Z' }, t0 + 2 * HOUR);
      const res = await s.apply(owner, [insert(a), insert(b), insert(c)]);
      assert.deepEqual(res.map((r) => r.kind === 'insert' && r.status), ['created', 'created', 'created']);
      await s.apply(owner, [{ kind: 'lifecycle', id: c.id, from: 'generated', to: 'archived', reason: 'owner' }]);

      assert.deepEqual(await s.get(owner, a.id), a);
      assert.deepEqual((await s.getMany(owner, [b.id, a.id, 'missing'])).map((m) => m.id), [b.id, a.id]);
      const f = { sourceKeyPrefix: 'file:' };
      assert.equal(await s.count(owner, f), 2);
      assert.equal(await s.count(owner, f, 1), 1, 'counting stops at atMost');
      assert.equal(await s.count(owner, f, 5), 2, 'fewer than atMost: the exact count');
      assert.deepEqual((await s.list(owner, f, { limit: 10 }, 'recorded_asc')).map((m) => m.id), [a.id, b.id]);
      assert.deepEqual((await s.list(owner, { ...f, types: ['preference'] }, { limit: 10 })).map((m) => m.id), [b.id]);
      assert.deepEqual((await s.list(owner, { tags: ['water', 'nothing'] }, { limit: 10 })).map((m) => m.id), [a.id]);
      assert.deepEqual((await s.list(owner, { ...f, minSalience: 0.5 }, { limit: 10 })).map((m) => m.id), [a.id]);
      assert.deepEqual((await s.list(owner, { ...f, sessionId: 's1' }, { limit: 10 })).map((m) => m.id), [a.id]);
      assert.deepEqual((await s.list(owner, { valid: { from: '2025-05-01T00:00:00Z', to: '2025-08-01T00:00:00Z' } }, { limit: 10 })).map((m) => m.id), [b.id]);
      assert.deepEqual((await s.list(owner, { ...f, recorded: { from: toIso(t0 + 1) } }, { limit: 10 })).map((m) => m.id), [b.id]);
      assert.deepEqual((await s.list(owner, { ...f, asOf: '2025-06-15T00:00:00Z' }, { limit: 10 }, 'valid_asc')).map((m) => m.id), [a.id, b.id]);
      assert.deepEqual((await s.list(owner, { ...f, asOf: '2025-08-15T00:00:00Z' }, { limit: 10 })).map((m) => m.id), [a.id]);
      assert.deepEqual((await s.list(owner, { lifecycles: ['archived'] }, { limit: 10 })).map((m) => m.id), [c.id]);
      assert.deepEqual((await s.list(owner, f, { limit: 1, offset: 1 }, 'recorded_asc')).map((m) => m.id), [b.id]);
      assert.deepEqual((await s.list(owner, f, { limit: 10 }, 'salience_desc')).map((m) => m.id), [a.id, b.id]);
      assert.equal((await s.findBySourceKey(owner, 'file:b.md#1'))?.id, b.id);
      assert.equal(await s.findBySourceKey(owner, 'file:none'), null);
      assert.equal(await s.get(otherNs, a.id), null, 'another namespace sees nothing');
    });

    test(named('a source-key prefix matches exactly the keys that start with it, next to keys that sort beside it; pages in key order'), async () => {
      const keys = ['pk:/a#L1', 'pk:/a#', 'pk:/a#\u{1F600}', 'pk:/a#\uffff', 'pk:/a#L10', 'pk:/a#L2', 'pk:/a$', 'pk:/a"', 'pk:/a', 'pk:/a#b#c', 'pk:/ab#L1'];
      const written = keys.map((key, i) => mem(owner, { text: `prefix case ${i}`, key }));
      await s.apply(owner, written.map((m) => insert(m)));
      const want = keys.filter((k) => k.startsWith('pk:/a#'));
      const found = await s.list(owner, { sourceKeyPrefix: 'pk:/a#' }, { limit: 50 }, 'source_key_asc');
      assert.deepEqual(new Set(found.map((m) => m.sourceKey)), new Set(want));
      // Key order is byte (code point) order on both backends; pages continue after the last key and id seen.
      const paged: string[] = [];
      for (let after: { sourceKey: string; id: string } | undefined; ; ) {
        const page = await s.list(owner, { sourceKeyPrefix: 'pk:/a#', ...(after ? { sourceKeyAfter: after } : {}) }, { limit: 2 }, 'source_key_asc');
        paged.push(...page.map((m) => m.sourceKey!));
        if (page.length < 2) break;
        after = { sourceKey: page[1]!.sourceKey!, id: page[1]!.id };
      }
      const byCodePoint = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
      assert.deepEqual(paged, [...want].sort(byCodePoint));
      // listKeys: the same rows in the same order, with only their identity and content hash.
      const keyRows = await s.listKeys(owner, { sourceKeyPrefix: 'pk:/a#' }, { limit: 50 }, 'source_key_asc');
      const full = await s.list(owner, { sourceKeyPrefix: 'pk:/a#' }, { limit: 50 }, 'source_key_asc');
      assert.deepEqual(keyRows, full.map((m) => ({ id: m.id, ownerId: m.ownerId, sourceKey: m.sourceKey, contentHash: m.contentHash })));
      assert.deepEqual(await s.listKeys(guest, { sourceKeyPrefix: 'pk:/a#' }, { limit: 50 }), [], 'scoped like list: owner-only rows stay hidden');
      // A prefix whose last character has no successor still matches exactly, and so does one with a character
      // outside the BMP (a file name with an emoji).
      assert.deepEqual((await s.list(owner, { sourceKeyPrefix: 'pk:/a#\uffff' }, { limit: 50 })).map((m) => m.sourceKey), ['pk:/a#\uffff']);
      assert.deepEqual((await s.list(owner, { sourceKeyPrefix: 'pk:/a#\u{1F600}' }, { limit: 50 })).map((m) => m.sourceKey), ['pk:/a#\u{1F600}']);
      const emoji = mem(owner, { text: 'a note from a file with an emoji in its name', key: 'pk:/\u{1F600}.md#L1' });
      await s.apply(owner, [insert(emoji)]);
      assert.deepEqual((await s.list(owner, { sourceKeyPrefix: 'pk:/\u{1F600}.md#' }, { limit: 50 })).map((m) => m.id), [emoji.id]);
    });

    test(named('scope: guests never see owner-only memories; agents see their own and shared'), async () => {
      const priv = mem(owner, { text: 'owner secret scope', visibility: 'owner', key: 'scope:1' });
      const shared = mem(owner, { text: 'shared for everyone scope', visibility: 'shared', key: 'scope:2' });
      const sharedOther = mem(owner, { text: 'shared with agent a2 scope', visibility: 'shared', agentId: 'a2', key: 'scope:3' });
      const pub = mem(owner, { text: 'public scope note', visibility: 'public', key: 'scope:4' });
      const own = mem(agent, { text: 'agent private scope', visibility: 'owner', key: 'scope:5' });
      await s.apply(owner, [insert(priv), insert(shared), insert(sharedOther), insert(pub)]);
      await s.apply(agent, [insert(own)]);
      const f = { sourceKeyPrefix: 'scope:' };
      const ids = async (p: Principal) => new Set((await s.list(p, f, { limit: 50 })).map((m) => m.id));
      assert.deepEqual(await ids(owner), new Set([priv.id, shared.id, sharedOther.id, pub.id, own.id]));
      assert.deepEqual(await ids(agent), new Set([shared.id, pub.id, own.id]));
      assert.deepEqual(await ids(guest), new Set([shared.id, pub.id]));
      assert.equal(await s.get(guest, priv.id), null);
      assert.equal(await s.count(guest, f), 2);
      assert.equal(await s.count(guest, f, 2), 2, 'the cap counts only what the guest may see');
      assert.deepEqual(await s.getMany(guest, [priv.id, own.id]), []);
      assert.equal(await s.forgetFootprint(guest, priv.id), null);
      const hits = await s.keywordCandidates(guest, { terms: analyze('scope'), filter: {}, limit: 50 });
      assert.deepEqual(new Set(hits.map((h) => h.id)), new Set([shared.id, pub.id]));
      await assert.rejects(s.apply(agent, [{ kind: 'retire', id: priv.id, reason: 'x' }]), { code: 'forbidden' });
      await assert.rejects(s.audit.range(guest, 0, 10), { code: 'forbidden' });
    });

    test(named('idempotent source keys: skip_if_same, supersede, conflict'), async () => {
      const first = mem(owner, { text: 'idempotent v1', key: 'idem:1' });
      const [r1] = await s.apply(owner, [insert(first)]);
      assert.equal(r1?.kind === 'insert' && r1.status, 'created');
      const same = mem(owner, { text: 'idempotent v1', key: 'idem:1' });
      const [r2] = await s.apply(owner, [insert(same, 'skip_if_same')]);
      assert.deepEqual(r2, { kind: 'insert', id: first.id, status: 'unchanged' });
      const changed = mem(owner, { text: 'idempotent v2', key: 'idem:1' });
      await assert.rejects(s.apply(owner, [insert(changed, 'conflict')]), { code: 'conflict' });
      const [r3] = await s.apply(owner, [insert(changed, 'supersede')]);
      assert.deepEqual(r3, { kind: 'insert', id: changed.id, status: 'superseded', previousId: first.id });
      const cur = await s.findBySourceKey(owner, 'idem:1');
      assert.equal(cur?.text, 'idempotent v2');
      assert.equal(cur?.lineageId, first.id);
      assert.equal(cur?.version, 2);
      assert.equal((await s.lineage(owner, first.id)).length, 2);
      // A failed batch leaves nothing behind: all or nothing.
      const before = await s.audit.head();
      await assert.rejects(s.apply(owner, [insert(mem(owner, { text: 'batch ok', key: 'idem:2' })), insert(mem(owner, { text: 'other', key: 'idem:1' }), 'conflict')]), { code: 'conflict' });
      assert.equal(await s.findBySourceKey(owner, 'idem:2'), null);
      assert.deepEqual(await s.audit.head(), before);
    });

    test(named('one batch of keyed inserts sees its own earlier writes: unchanged, superseded twice, created then unchanged, a retire between'), async () => {
      const kept = mem(owner, { text: 'batch kept', key: 'bk:1' });
      const moved = mem(owner, { text: 'batch moved v1', key: 'bk:2' });
      const gone = mem(owner, { text: 'batch gone', key: 'bk:4' });
      await s.apply(owner, [insert(kept), insert(moved), insert(gone)]);
      const v2 = mem(owner, { text: 'batch moved v2', key: 'bk:2' });
      const v3 = mem(owner, { text: 'batch moved v3', key: 'bk:2' });
      const fresh = mem(owner, { text: 'batch fresh', key: 'bk:3' });
      const freshAgain = mem(owner, { text: 'batch fresh', key: 'bk:3' });
      const goneAgain = mem(owner, { text: 'batch gone', key: 'bk:4' });
      const results = await s.apply(owner, [
        insert(mem(owner, { text: 'batch kept', key: 'bk:1' }), 'supersede'),
        insert(v2, 'supersede'),
        insert(v3, 'supersede'),
        insert(fresh, 'supersede'),
        insert(freshAgain, 'supersede'),
        insert({ ...kept }, 'conflict'),
        { kind: 'retire', id: gone.id, reason: 'test' },
        insert(goneAgain, 'supersede'),
      ]);
      assert.deepEqual(results, [
        { kind: 'insert', id: kept.id, status: 'unchanged' },
        { kind: 'insert', id: v2.id, status: 'superseded', previousId: moved.id },
        { kind: 'insert', id: v3.id, status: 'superseded', previousId: v2.id },
        { kind: 'insert', id: fresh.id, status: 'created' },
        { kind: 'insert', id: fresh.id, status: 'unchanged' },
        { kind: 'insert', id: kept.id, status: 'unchanged' },
        { kind: 'retire', id: gone.id },
        { kind: 'insert', id: goneAgain.id, status: 'created' },
      ]);
      assert.deepEqual((await s.lineage(owner, moved.id)).map((m) => [m.version, m.text]), [[1, 'batch moved v1'], [2, 'batch moved v2'], [3, 'batch moved v3']]);
      assert.deepEqual((await s.list(owner, { sourceKeyPrefix: 'bk:' }, { limit: 10 }, 'recorded_asc')).map((m) => m.text).sort(), ['batch fresh', 'batch gone', 'batch kept', 'batch moved v3']);
      // The source-key filter: the owner's current memories under exactly these keys.
      const byKeys = await s.list(owner, { sourceKeys: { ownerId: owner.id, keys: ['bk:2', 'bk:3', 'bk:9'] } }, { limit: 10 }, 'recorded_asc');
      assert.deepEqual(byKeys.map((m) => m.text).sort(), ['batch fresh', 'batch moved v3']);
      assert.deepEqual(await s.list(owner, { sourceKeys: { ownerId: agent.id, keys: ['bk:2'] } }, { limit: 10 }), []);
      assert.deepEqual(await s.list(owner, { sourceKeys: { ownerId: owner.id, keys: [] } }, { limit: 10 }), []);
    });

    test(named('update keeps the old version (bi-temporal); knownAt returns it'), async () => {
      const t0 = Date.now() - 10_000;
      const v1 = mem(owner, { text: 'bitemporal original', key: 'bt:1' }, t0);
      await s.apply(owner, [insert(v1)]);
      const v2 = nextVersion(v1, 'bitemporal edited');
      const [r] = await s.apply(owner, [{ kind: 'update', previousId: v1.id, next: v2, action: 'update', reason: 'typo' }]);
      assert.deepEqual(r, { kind: 'update', id: v2.id, previousId: v1.id });
      const old = await s.get(owner, v1.id);
      assert.ok(old?.supersededAt, 'the old version is kept and closed');
      assert.equal(old?.supersededBy, v2.id);
      const f = { sourceKeyPrefix: 'bt:' };
      assert.deepEqual((await s.list(owner, f, { limit: 5 })).map((m) => m.id), [v2.id]);
      assert.deepEqual((await s.list(owner, { ...f, knownAt: toIso(t0 + 1) }, { limit: 5 })).map((m) => m.id), [v1.id]);
      assert.deepEqual((await s.lineage(owner, v1.id)).map((m) => m.version), [1, 2]);
      await assert.rejects(s.apply(owner, [{ kind: 'update', previousId: v1.id, next: nextVersion(v1, 'stale edit'), action: 'update' }]), { code: 'conflict' });
      const ro = mem(owner, { text: 'read only fact', readOnly: true, labels: ['SafetyAudit'] });
      await s.apply(owner, [insert(ro)]);
      await assert.rejects(s.apply(owner, [{ kind: 'update', previousId: ro.id, next: nextVersion(ro, 'x'), action: 'update' }]), { code: 'read_only' });
    });

    test(named('lifecycle, retire and touch'), async () => {
      const m = mem(owner, { text: 'lifecycle subject', key: 'lc:1' });
      await s.apply(owner, [insert(m)]);
      await s.apply(owner, [{ kind: 'lifecycle', id: m.id, from: 'generated', to: 'activated', reason: 'recall', importance: 0.8 }]);
      const got = await s.get(owner, m.id);
      assert.equal(got?.lifecycle, 'activated');
      assert.equal(got?.importance, 0.8);
      await assert.rejects(s.apply(owner, [{ kind: 'lifecycle', id: m.id, from: 'generated', to: 'archived', reason: 'x' }]), { code: 'conflict' });
      const at = '2026-03-01T10:00:00.000Z';
      const [t] = await s.apply(owner, [{ kind: 'touch', ids: [m.id, 'missing'], at }]);
      assert.deepEqual(t, { kind: 'touch', count: 1 });
      const touched = await s.get(owner, m.id);
      assert.equal(touched?.accessCount, 1);
      assert.equal(touched?.lastAccessedAt, at);
      await s.apply(owner, [{ kind: 'retire', id: m.id, reason: 'source removed' }]);
      assert.equal(await s.findBySourceKey(owner, 'lc:1'), null);
      assert.ok((await s.get(owner, m.id))?.supersededAt);
      await assert.rejects(s.apply(owner, [{ kind: 'retire', id: 'nope', reason: 'x' }]), { code: 'not_found' });
    });

    test(named('forget removes every place and leaves a tombstone'), async () => {
      const v1 = mem(owner, { text: 'forgettable zqxjkv secret', key: 'fg:1' });
      await s.apply(owner, [insert(v1)]);
      const v2 = nextVersion(v1, 'forgettable zqxjkv secret edited');
      await s.apply(owner, [{ kind: 'update', previousId: v1.id, next: v2, action: 'update' }]);
      await s.pending.put(owner, { token: 'tok-forget', kind: 'edit', expiresAt: toIso(Date.now() + HOUR), payload: { lineageId: v1.id, text: 'zqxjkv proposed' } });
      const fp = await s.forgetFootprint(owner, v1.id);
      assert.deepEqual(fp?.versionIds, [v1.id, v2.id]);
      assert.equal(fp?.places.memories, 2);
      assert.equal(fp?.places.pending_changes, 1);
      assert.equal(fp?.places.full_text_index, 2);
      const raw = await cs.rawCounts(v1.id, 'zqxjkv');
      assert.deepEqual(raw, { memories: 2, fullText: 2, pending: 1 });
      const [r] = await s.apply(owner, [{ kind: 'forget', lineageId: v1.id, reason: 'user asked' }]);
      assert.equal(r?.kind, 'forget');
      assert.deepEqual(await cs.rawCounts(v1.id, 'zqxjkv'), { memories: 0, fullText: 0, pending: 0 });
      assert.equal(await s.get(owner, v1.id), null);
      assert.equal(await s.get(owner, v2.id), null);
      assert.equal(await s.forgetFootprint(owner, v1.id), null);
      const tomb = await s.tombstone(owner, v2.id);
      assert.deepEqual(tomb?.versionIds, [v1.id, v2.id]);
      assert.equal(tomb?.reason, 'user asked');
      assert.equal(tomb?.contentHash, v2.contentHash);
      assert.deepEqual(await s.keywordCandidates(owner, { terms: ['zqxjkv'], filter: {}, limit: 5 }), []);
      const ro = mem(owner, { text: 'cannot forget me', readOnly: true });
      await s.apply(owner, [insert(ro)]);
      await assert.rejects(s.apply(owner, [{ kind: 'forget', lineageId: ro.id, reason: 'x' }]), { code: 'read_only' });
    });

    test(named('audit chain is continuous and verifies; forMemories and head agree'), async () => {
      const chain = await wholeChain(s);
      assert.ok(chain.length > 10);
      assert.deepEqual(verifyChainSegment(null, chain), []);
      const last = chain[chain.length - 1]!;
      assert.deepEqual(await s.audit.head(), { seq: last.seq, hash: last.hash });
      const m = mem(owner, { text: 'audited thing' });
      await s.apply(owner, [insert(m), { kind: 'lifecycle', id: m.id, from: 'generated', to: 'activated', reason: 'recall' }]);
      const about = await s.audit.forMemories(owner, [m.id]);
      assert.deepEqual(about.map((e) => e.action), ['create', 'lifecycle']);
      assert.equal(about[0]?.afterHash, m.contentHash);
      assert.equal(JSON.stringify(about).includes('audited thing'), false, 'the log never holds text');
      // recordedHashes: the hash of each version's last content write, none for a lifecycle move, none for an unknown id.
      const next = nextVersion(m, 'audited thing, edited');
      await s.apply(owner, [{ kind: 'update', previousId: m.id, next, action: 'update' }]);
      const recorded = await s.audit.recordedHashes(owner, [m.id, next.id, 'no-such-memory']);
      assert.deepEqual(new Map([...recorded].map(([id, w]) => [id, w.hash])), new Map(
        (await s.audit.forMemories(owner, [m.id, next.id])).filter((e) => CONTENT_WRITES.includes(e.action)).map((e) => [e.memoryId!, e.afterHash]),
      ));
      assert.equal(recorded.get(next.id)?.hash, next.contentHash);
      // Each writing entry commits to what the version claims besides its text (domain/memory-claims.ts).
      assert.equal(recorded.get(m.id)?.claims, claimsHash(m));
      assert.equal(recorded.get(next.id)?.claims, claimsHash(next));
      assert.ok(recorded.has(m.id) && !recorded.has('no-such-memory'));
      assert.deepEqual(await s.audit.recordedHashes({ ...owner, namespace: 'elsewhere' }, [m.id]), new Map(), 'scoped by namespace');
      // A retirement (its chunk left the file) closes the version without changing its text: what it was written with stands.
      await s.apply(owner, [{ kind: 'retire', id: next.id, reason: 'contract' }]);
      assert.deepEqual((await s.audit.recordedHashes(owner, [next.id])).get(next.id), { hash: next.contentHash, claims: claimsHash(next) });
      // unstoredWrites: written versions with no row, in id order, paged; here only forgotten ones (a forget removed them).
      const gone = mem(owner, { text: 'written then forgotten' });
      await s.apply(owner, [insert(gone)]);
      await s.apply(owner, [{ kind: 'forget', lineageId: gone.id, reason: 'contract' }]);
      const unstored: string[] = [];
      for (let after: string | null = null; ; ) {
        const page = await s.audit.unstoredWrites(owner, after, 2);
        unstored.push(...page);
        if (page.length < 2) break;
        after = page[page.length - 1]!;
      }
      assert.ok(unstored.includes(gone.id) && !unstored.includes(m.id) && !unstored.includes(next.id));
      assert.deepEqual(unstored, [...unstored].sort(), 'id order');
      for (const id of unstored) assert.equal(await s.get(owner, id), null);
      assert.deepEqual(await s.audit.unstoredWrites({ ...owner, namespace: 'elsewhere' }, null, 100), []);
      await assert.rejects(s.audit.unstoredWrites(agent, null, 10), { code: 'forbidden' });
      assert.deepEqual(verifyChainSegment({ seq: last.seq, hash: last.hash }, await s.audit.range(owner, last.seq, 100)), []);
    });

    test(named('pending changes: taken once, not after expiry, not by another principal'), async () => {
      const exp = toIso(Date.now() + HOUR);
      await s.pending.put(owner, { token: 't-1', kind: 'edit', expiresAt: exp, payload: { a: 1 } });
      assert.equal(await s.pending.take(agent, 't-1', 'edit'), null, 'another principal cannot use it');
      assert.equal(await s.pending.take(owner, 't-1', 'forget'), null, 'wrong kind');
      const got = await s.pending.take(owner, 't-1', 'edit');
      assert.deepEqual(got?.payload, { a: 1 });
      assert.equal(got?.actor, 'owner:owner');
      assert.equal(await s.pending.take(owner, 't-1', 'edit'), null, 'only once');
      await s.pending.put(owner, { token: 't-2', kind: 'edit', expiresAt: toIso(Date.now() - 1000), payload: {} });
      assert.equal(await s.pending.take(owner, 't-2', 'edit'), null, 'expired');
    });

    test(named('keyword candidates rank the matching memory first and respect filters'), async () => {
      const target = mem(owner, { text: 'The lighthouse keeper polished the brass lantern every evening', type: 'fact', tags: ['sea'], key: 'kw:1' });
      const partial = mem(owner, { text: 'A keeper of bees sold honey at the market', type: 'fact', key: 'kw:2' });
      const noise = mem(owner, { text: 'Completely unrelated sentence about trains', type: 'fact', key: 'kw:3' });
      const other = mem(owner, { text: 'lighthouse lantern brass keeper as a preference', type: 'preference', key: 'kw:4' });
      await s.apply(owner, [insert(target), insert(partial), insert(noise), insert(other)]);
      const terms = analyze('lighthouse lantern brass keeper');
      const hits = await s.keywordCandidates(owner, { terms, filter: { types: ['fact'] }, limit: 10 });
      assert.equal(hits[0]?.id, target.id);
      assert.ok(hits.some((h) => h.id === partial.id));
      assert.ok(!hits.some((h) => h.id === noise.id || h.id === other.id));
      assert.ok(hits[0]!.score > hits[hits.length - 1]!.score);
      assert.deepEqual((await s.keywordCandidates(owner, { terms, filter: { tags: ['sea'] }, limit: 10 })).map((h) => h.id), [target.id]);
      assert.equal((await s.keywordCandidates(owner, { terms, filter: {}, limit: 1 })).length, 1);
      assert.deepEqual(await s.keywordCandidates(owner, { terms: [], filter: {}, limit: 10 }), []);
      const ts = await s.termStats(owner, ['lighthous', 'keeper', 'zzznone']);
      assert.ok(ts.stats.documents > 0 && ts.stats.averageLength > 0);
      assert.equal(ts.df.lighthous, 2);
      assert.equal(ts.df.zzznone, 0);
    });

    test(named('keyword candidates reach admitted rows ranked below many rows the caller may not see'), async () => {
      // Owner-only rows that repeat the word rank above the shared ones: an
      // adapter that cuts the ranking before applying scope would return nothing.
      const hidden = Array.from({ length: 30 }, (_, i) => mem(owner, { text: `quokka quokka quokka private note ${i}`, visibility: 'owner', key: `deep:o${i}` }));
      const shared = Array.from({ length: 3 }, (_, i) => mem(owner, { text: `a long shared note that mentions one quokka among many other words number ${i}`, visibility: 'shared', key: `deep:s${i}` }));
      await s.apply(owner, [...hidden, ...shared].map((m) => insert(m)));
      const terms = analyze('quokka');
      const forGuest = await s.keywordCandidates(guest, { terms, filter: {}, limit: 2 });
      assert.equal(forGuest.length, 2);
      for (const h of forGuest) assert.ok(shared.some((m) => m.id === h.id), 'a guest only gets shared rows');
      const forOwner = await s.keywordCandidates(owner, { terms, filter: {}, limit: 2 });
      for (const h of forOwner) assert.ok(hidden.some((m) => m.id === h.id), 'the owner gets the best-ranked rows');
    });

    test(named('keyword candidates reach the rows a filter admits below many better-ranked rows of the owner'), async () => {
      // The owner sees every row, so the first look checks only a little over the page; here all of those
      // (and four times as many) are facts the filter rejects, and only the exact query finds the preferences.
      const facts = Array.from({ length: 80 }, (_, i) => mem(owner, { text: `walrus walrus walrus fact ${i}`, type: 'fact', key: `wide:f${i}` }));
      const prefs = Array.from({ length: 3 }, (_, i) => mem(owner, { text: `a preference that names one walrus among many other words, number ${i}`, type: 'preference', key: `wide:p${i}` }));
      await s.apply(owner, [...facts, ...prefs].map((m) => insert(m)));
      const terms = analyze('walrus');
      for (const limit of [1, 2, 3]) {
        const hits = await s.keywordCandidates(owner, { terms, filter: { types: ['preference'] }, limit });
        assert.equal(hits.length, limit, `limit ${limit}`);
        for (const h of hits) assert.ok(prefs.some((m) => m.id === h.id), 'only the admitted rows, found below the facts');
      }
      const unfiltered = await s.keywordCandidates(owner, { terms, filter: {}, limit: 5 });
      for (const h of unfiltered) assert.ok(facts.some((m) => m.id === h.id), 'without the filter the facts rank first');
    });

    test(named('scan pages through every version in id order; stats count them'), async () => {
      const seen: Memory[] = [];
      let afterId: string | null = null;
      for (;;) {
        const page: Memory[] = await s.scan(owner, afterId, 3);
        if (page.length === 0) break;
        seen.push(...page);
        afterId = page[page.length - 1]!.id;
      }
      const ids = seen.map((m) => m.id);
      assert.deepEqual(ids, [...ids].sort());
      assert.ok(seen.some((m) => m.supersededAt !== null), 'superseded versions too');
      assert.ok(seen.some((m) => m.lifecycle === 'archived'), 'any lifecycle');
      assert.equal(new Set(ids).size, ids.length);
      const st = await s.stats(owner);
      assert.equal(st.total + st.superseded, seen.length);
      // Types and lifecycles count current versions, exactly as the scan shows them.
      const current = seen.filter((m) => m.supersededAt === null);
      const tally = (key: (m: (typeof seen)[number]) => string) => current.reduce<Record<string, number>>((acc, m) => ((acc[key(m)] = (acc[key(m)] ?? 0) + 1), acc), {});
      assert.deepEqual([st.total, st.superseded, st.byType, st.byLifecycle], [current.length, seen.length - current.length, tally((m) => m.type), tally((m) => m.lifecycle)]);
      const guestSeen = await s.scan(guest, null, 1000);
      assert.equal((await s.stats(guest)).total, guestSeen.filter((m) => m.supersededAt === null).length, 'stats respect scope');
      assert.equal(st.schemaVersion, await s.schemaVersion());
      assert.ok(st.auditEntries > 0);
      assert.ok((await s.scan(guest, null, 1000)).length < seen.length, 'scan respects scope');
      const guestPaged: string[] = [];
      for (let after: string | null = null; ; ) {
        const page: Memory[] = await s.scan(guest, after, 2);
        if (page.length === 0) break;
        guestPaged.push(...page.map((m) => m.id));
        after = page[page.length - 1]!.id;
      }
      assert.deepEqual(guestPaged, guestSeen.map((m) => m.id), 'pages of two give the one long page');
      // scanContent: the same rows in the same pages, with only id, text and content hash; scoped the same way.
      const content = async (who: Principal, size: number) => {
        const out: MemoryContent[] = [];
        for (let after: string | null = null; ; ) {
          const page = await s.scanContent(who, after, size);
          if (page.length === 0) return out;
          assert.ok(page.length <= size);
          out.push(...page);
          after = page[page.length - 1]!.id;
        }
      };
      assert.deepEqual(await content(owner, 3), seen.map((m) => ({ id: m.id, text: m.text, contentHash: m.contentHash })));
      assert.deepEqual(await content(guest, 2), guestSeen.map((m) => ({ id: m.id, text: m.text, contentHash: m.contentHash })));
    });

    test(named('snapshot: every page of one read sees the store as it was when the read began, whatever is written meanwhile'), async () => {
      const p: Principal = { role: 'owner', namespace: 'snapshot', id: 'owner' };
      const g: Principal = { role: 'guest', namespace: 'snapshot', id: 'visitor' };
      const first = Array.from({ length: 6 }, (_, i) => mem(p, { text: `snapshot row ${i}`, key: `snap:${i}`, visibility: i % 2 ? 'shared' : 'owner' }));
      await s.apply(p, first.map((m) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const })));
      const read = async (scan: (who: Principal, after: string | null, limit: number) => Promise<Memory[]>, who: Principal, during?: () => Promise<void>) => {
        const out: Memory[] = [];
        for (let after: string | null = null; ; ) {
          const page = await scan(who, after, 2);
          if (page.length === 0) return out;
          out.push(...page);
          after = page[page.length - 1]!.id;
          if (out.length === 2) await during?.();
        }
      };
      const seen = await s.snapshot(async (scan) =>
        read(scan, p, async () => {
          // Between pages: the last row is replaced by a new version, and a new row comes.
          await s.apply(p, [{ kind: 'insert', memory: mem(p, { text: 'snapshot row 5, changed', key: 'snap:5' }), onExistingSource: 'supersede' }]);
          await s.apply(p, [{ kind: 'insert', memory: mem(p, { text: 'snapshot row 6', key: 'snap:6' }), onExistingSource: 'conflict' }]);
        }),
      );
      assert.deepEqual(seen.map((m) => [m.text, m.supersededAt]), first.map((m) => [m.text, null]), 'the state the read began with: no new row, the old row still current');
      const after = await read((who, a, l) => s.scan(who, a, l), p);
      assert.equal(after.length, 8, 'the writes are there once the read is over');
      // Scoped like scan, and a store that is read again is read afresh.
      assert.deepEqual((await s.snapshot((scan) => read(scan, g))).map((m) => m.text), (await read((who, a, l) => s.scan(who, a, l), g)).map((m) => m.text));
      await assert.rejects(s.snapshot(async () => { throw new Error('the read failed'); }), /the read failed/);
      assert.equal((await s.snapshot((scan) => read(scan, p))).length, 8, 'a failed read leaves nothing open');
    });

    test(named('scan pages past the id chunks it reads, skipping what the caller may not see'), async () => {
      const p: Principal = { role: 'owner', namespace: 'scan-chunks', id: 'owner' };
      const g: Principal = { role: 'guest', namespace: 'scan-chunks', id: 'visitor' };
      // More rows than one chunk of the id walk (1,000), a seventh shared with guests.
      const ms = Array.from({ length: 2500 }, (_, i) => mem(p, { text: `row ${i}`, key: `sc:${i}`, visibility: i % 7 === 0 ? 'shared' : 'owner' }));
      for (let i = 0; i < ms.length; i += 500) await s.apply(p, ms.slice(i, i + 500).map((m) => ({ kind: 'insert' as const, memory: m, onExistingSource: 'conflict' as const })));
      const pages = async (who: Principal, size: number) => {
        const out: string[] = [];
        for (let after: string | null = null; ; ) {
          const page: Memory[] = await s.scan(who, after, size);
          if (page.length === 0) return out;
          assert.ok(page.length <= size);
          out.push(...page.map((m) => m.id));
          after = page[page.length - 1]!.id;
        }
      };
      const all = ms.map((m) => m.id).sort();
      assert.deepEqual(await pages(p, 700), all);
      const shared = ms.filter((_, i) => i % 7 === 0).map((m) => m.id).sort();
      assert.deepEqual(await pages(g, 50), shared, 'a guest pages through its rows only, none missed at a chunk edge');
      // One page larger than what one chunk of ids holds for the guest: the walk goes on to the next chunks.
      assert.deepEqual((await s.scan(g, null, 400)).map((m) => m.id), shared);
    });

    test(named('jobs: one runner per name, lease take-over, checkpoint, finish audited, expiry ledger'), async (t) => {
      const jobs = s.jobs;
      if (!jobs) return t.skip('this adapter has no job store');
      const now = Date.now();
      const alive = () => false;
      await assert.rejects(jobs.claim(agent, 'cycle', 'h0', 1000, now, alive), { code: 'forbidden' });
      const claims = await Promise.all(['h1', 'h2', 'h3', 'h4'].map((h) => jobs.claim(owner, 'cycle', h, 60_000, now, alive)));
      const won = claims.filter((c) => 'claimed' in c);
      assert.equal(won.length, 1, 'exactly one concurrent claimer wins');
      const first = (won[0] as { claimed: { id: string; holder: string } }).claimed;
      assert.ok(claims.filter((c) => 'busy' in c).every((c) => 'busy' in c && c.busy.id === first.id));
      await jobs.checkpoint(owner, first.id, first.holder, 'phase-1', { cursor: 5 }, 60_000, now);
      const later = now + 120_000;
      const taken = await jobs.claim(owner, 'cycle', 'h9', 60_000, later, alive);
      assert.ok('claimed' in taken && taken.resumed && taken.claimed.id === first.id && taken.claimed.phase === 'phase-1');
      assert.deepEqual('claimed' in taken && taken.claimed.state, { cursor: 5 });
      await assert.rejects(jobs.checkpoint(owner, first.id, first.holder, 'phase-2', {}, 60_000, later), { code: 'conflict' });
      const done = await jobs.finish(owner, first.id, 'h9', 'done', { counts: { merged: 2 } }, later + 1);
      assert.equal(done.status, 'done');
      assert.deepEqual(done.report, { counts: { merged: 2 } });
      assert.equal(done.watermark, (await s.audit.head())?.seq);
      assert.equal((await jobs.last(owner, 'cycle'))?.id, first.id);
      const chain = await wholeChain(s);
      assert.equal(chain[chain.length - 1]?.action, 'consolidate');
      assert.deepEqual(verifyChainSegment(null, chain), []);
      assert.ok('claimed' in (await jobs.claim(owner, 'cycle', 'h10', 1000, later + 2, alive)), 'a new run after the last finished');
      const m = mem(owner, { text: 'expiring memory' });
      await s.apply(owner, [insert(m)]);
      await jobs.markExpired(owner, [m.lineageId], 1000);
      assert.deepEqual(await jobs.dueForPurge(owner, 2000, 10), [m.lineageId]);
      assert.deepEqual(await jobs.dueForPurge(owner, 500, 10), []);
      assert.equal((await s.forgetFootprint(owner, m.lineageId))?.places.expiry_ledger, 1);
      await s.apply(owner, [{ kind: 'forget', lineageId: m.lineageId, reason: 'purge' }]);
      assert.deepEqual(await jobs.dueForPurge(owner, 2000, 10), []);
    });

    test(named('graph: entities, aliases, relations, scope, and forget takes what only it evidenced'), async (t) => {
      const g = s.graph;
      if (!g) return t.skip('this adapter has no graph store');
      const a = mem(owner, { text: 'Ada Lovelace worked with Charles Babbage', visibility: 'owner' });
      const b = mem(owner, { text: 'Countess Lovelace wrote notes', visibility: 'owner' });
      await s.apply(owner, [insert(a), insert(b)]);
      assert.ok((await g.unindexed(owner, 1000)).includes(a.id));
      const scope = { namespace: owner.namespace, ownerId: owner.id, agentId: null, visibility: 'owner' as const };
      const at = toIso(Date.now());
      const ada = { ...scope, id: newId(), name: 'Ada Lovelace', norm: 'ada lovelace', type: 'person', aliases: [], firstSeen: at, lastSeen: at, mentions: 2 };
      const cb = { ...scope, id: newId(), name: 'Charles Babbage', norm: 'charles babbage', type: 'person', aliases: [], firstSeen: at, lastSeen: at, mentions: 1 };
      const rel = { ...scope, id: newId(), subjectId: ada.id, predicate: 'worked_with', objectId: cb.id, validFrom: at, validTo: null, recordedAt: at, supersededBy: null, confidence: 0.9 };
      await g.write(owner, {
        upsertEntities: [ada, cb],
        insertRelations: [rel],
        closeRelations: [],
        evidence: [
          { entityId: ada.id, relationId: null, lineageId: a.lineageId, memoryId: a.id, mention: 'Ada Lovelace', norm: 'ada lovelace' },
          { entityId: ada.id, relationId: null, lineageId: b.lineageId, memoryId: b.id, mention: 'Countess Lovelace', norm: 'countess lovelace' },
          { entityId: cb.id, relationId: null, lineageId: a.lineageId, memoryId: a.id, mention: 'Charles Babbage', norm: 'charles babbage' },
          { entityId: null, relationId: rel.id, lineageId: a.lineageId, memoryId: a.id, mention: null, norm: null },
        ],
        indexed: [{ memoryId: a.id, lineageId: a.lineageId }, { memoryId: b.id, lineageId: b.lineageId }],
        rulesVersion: 1,
      });
      assert.ok(!(await g.unindexed(owner, 1000)).includes(a.id));
      const found = await g.findEntities(owner, ['countess lovelace']);
      assert.deepEqual(found.map((e) => [e.id, e.aliases]), [[ada.id, ['Countess Lovelace']]]);
      assert.equal((await g.entity(owner, cb.id))?.name, 'Charles Babbage');
      assert.equal(await g.entity(guest, ada.id), null, 'guests never see owner-only entities');
      assert.deepEqual(await g.findEntities(guest, ['ada lovelace']), []);
      assert.deepEqual((await g.relationsOf(owner, [cb.id])).map((r) => r.id), [rel.id]);
      assert.deepEqual(new Set(await g.evidenceLineages(owner, [ada.id])), new Set([a.lineageId, b.lineageId]));
      assert.ok((await g.allEntities(owner)).some((e) => e.id === cb.id));
      assert.equal((await s.forgetFootprint(owner, a.lineageId))?.places.knowledge_graph, 4, "3 evidence rows + 1 indexed row");
      await s.apply(owner, [{ kind: 'forget', lineageId: a.lineageId, reason: 'graph test' }]);
      assert.equal(await g.entity(owner, cb.id), null, 'an entity only the forgotten memory evidenced goes');
      assert.deepEqual(await g.relationsOf(owner, [ada.id, cb.id]), []);
      const left = await g.entity(owner, ada.id);
      assert.equal(left?.name, 'Countess Lovelace', 'a surviving entity is renamed from the evidence left');
      assert.equal(left?.mentions, 1);
      assert.deepEqual(await g.evidenceLineages(owner, [ada.id]), [b.lineageId]);
    });

    test(named('graph: stale memories by rules version, paged by id; a write replacing a memory takes what only it held up'), async (t) => {
      const g = s.graph;
      if (!g) return t.skip('this adapter has no graph store');
      const c = mem(owner, { text: 'Team Grace Hopper wrote compilers', visibility: 'owner' });
      const d = mem(owner, { text: 'Grace Hopper found a moth', visibility: 'owner' });
      await s.apply(owner, [insert(c), insert(d)]);
      const scope = { namespace: owner.namespace, ownerId: owner.id, agentId: null, visibility: 'owner' as const };
      const at = toIso(Date.now());
      const entity = (name: string, mentions: number) => ({ ...scope, id: newId(), name, norm: name.toLowerCase(), type: 'name', aliases: [], firstSeen: at, lastSeen: at, mentions });
      const junk = entity('Team Grace Hopper', 1);
      const grace = entity('Grace Hopper', 1);
      const ev = (e: { id: string; name: string; norm: string }, m: Memory) => ({ entityId: e.id, relationId: null, lineageId: m.lineageId, memoryId: m.id, mention: e.name, norm: e.norm });
      await g.write(owner, { upsertEntities: [junk], insertRelations: [], closeRelations: [], evidence: [ev(junk, c)], indexed: [{ memoryId: c.id, lineageId: c.lineageId }], rulesVersion: 1 });
      await g.write(owner, { upsertEntities: [grace], insertRelations: [], closeRelations: [], evidence: [ev(grace, d)], indexed: [{ memoryId: d.id, lineageId: d.lineageId }], rulesVersion: 2 });
      const stale = await g.staleIndexed(owner, { rulesVersion: 2, all: false, after: null, limit: 1000 });
      assert.ok(stale.includes(c.id) && !stale.includes(d.id), 'below the version is stale, at it is not');
      assert.equal(await g.staleIndexedCount(owner, { rulesVersion: 2, all: false }), stale.length);
      const every = await g.staleIndexed(owner, { rulesVersion: 2, all: true, after: null, limit: 1000 });
      assert.ok(every.includes(c.id) && every.includes(d.id));
      assert.deepEqual(every, [...every].sort(), 'in id order');
      assert.deepEqual(await g.staleIndexed(owner, { rulesVersion: 2, all: true, after: every[0]!, limit: 1 }), every.slice(1, 2), 'paged after an id');
      assert.deepEqual(await g.staleIndexed(guest, { rulesVersion: 2, all: true, after: null, limit: 1000 }), [], 'a guest lists no owner memory');
      // c again under version 2: its junk goes, it evidences Grace Hopper, and d's evidence stays.
      assert.deepEqual(await g.evidenceSplit(owner, [{ memoryId: c.id, lineageId: c.lineageId }]), [{ entityId: junk.id, here: 1, elsewhere: 0 }]);
      const r = await g.write(owner, {
        upsertEntities: [{ ...grace, mentions: 2 }],
        insertRelations: [],
        closeRelations: [],
        evidence: [ev(grace, c)],
        indexed: [{ memoryId: c.id, lineageId: c.lineageId }],
        rulesVersion: 2,
        replaces: [{ memoryId: c.id, lineageId: c.lineageId }],
      });
      assert.deepEqual(r, { mentionsRemoved: 1, entitiesRemoved: 1, relationsRemoved: 0 });
      assert.equal(await g.entity(owner, junk.id), null);
      assert.equal((await g.entity(owner, grace.id))?.mentions, 2);
      assert.deepEqual(new Set(await g.evidenceLineages(owner, [grace.id])), new Set([c.lineageId, d.lineageId]));
      assert.ok(!(await g.staleIndexed(owner, { rulesVersion: 2, all: false, after: null, limit: 1000 })).includes(c.id), 'recorded under the version it was indexed under');
    });

    test(named('graph: a rebuild pages through every current memory in the order unindexed lists them, past one forgotten meanwhile, and writes entities as given'), async (t) => {
      const g = s.graph;
      if (!g) return t.skip('this adapter has no graph store');
      // Ids minted in the reverse of the order the memories are stored and recorded in (an import, say): the
      // page follows storage, as a fresh index does, not ids.
      const base = Date.now();
      const h = mem(owner, { text: 'rebuild page three', visibility: 'owner' }, base + 5);
      const f = mem(owner, { text: 'rebuild page two', visibility: 'owner' }, base + 4);
      const e = mem(owner, { text: 'rebuild page one', visibility: 'owner' }, base + 3);
      assert.ok(h.id < f.id && f.id < e.id);
      await s.apply(owner, [insert(e)]);
      await s.apply(owner, [insert(f)]);
      await s.apply(owner, [insert(h)]);
      const all = await g.livePage(owner, null, 100_000);
      assert.equal(await g.liveCount(owner), all.ids.length);
      assert.deepEqual(all.ids.slice(-3), [e.id, f.id, h.id], 'the newest last, in storage order');
      const paged: string[] = [];
      for (let cursor: string | null = null, page; (page = await g.livePage(owner, cursor, 2)).ids.length > 0; cursor = page.cursor) paged.push(...page.ids);
      assert.deepEqual(paged, all.ids, 'paged by the cursor, the same list');
      const atE = all.ids.indexOf(e.id);
      const before = await g.livePage(owner, null, atE + 1);
      await s.apply(owner, [{ kind: 'forget', lineageId: e.lineageId, reason: 'contract' }]);
      assert.deepEqual((await g.livePage(owner, before.cursor, 5)).ids, [f.id, h.id], 'the page after a forgotten memory');
      assert.ok(!(await g.livePage(guest, null, 100_000)).ids.includes(f.id), 'a guest lists no owner memory');

      // A rebuild's slice writes an entity as it found it (name key and sightings too), and does not recount one
      // the replaced evidence leaves with evidence; a plain write widens the sightings.
      const scope = { namespace: owner.namespace, ownerId: owner.id, agentId: null, visibility: 'owner' as const };
      const ent = { ...scope, id: newId(), name: 'Rebuild Person', norm: 'rebuild person', type: 'name', aliases: [], firstSeen: toIso(base), lastSeen: toIso(base + 9), mentions: 2 };
      const ev = (m: Memory) => ({ entityId: ent.id, relationId: null, lineageId: m.lineageId, memoryId: m.id, mention: ent.name, norm: ent.norm });
      const plain = { insertRelations: [], closeRelations: [], rulesVersion: 2 };
      await g.write(owner, { ...plain, upsertEntities: [ent], evidence: [ev(f), ev(h)], indexed: [] });
      await g.write(owner, { ...plain, upsertEntities: [{ ...ent, firstSeen: toIso(base + 5), lastSeen: toIso(base + 6) }], evidence: [], indexed: [] });
      assert.deepEqual([(await g.entity(owner, ent.id))?.firstSeen, (await g.entity(owner, ent.id))?.lastSeen], [toIso(base), toIso(base + 9)]);
      const r = await g.write(owner, {
        ...plain,
        upsertEntities: [{ ...ent, name: 'R. Person', norm: 'r person', firstSeen: toIso(base + 5), lastSeen: toIso(base + 6), mentions: 7 }],
        evidence: [],
        indexed: [],
        replaces: [{ memoryId: f.id, lineageId: f.lineageId }],
        rebuild: true,
      });
      assert.deepEqual(r, { mentionsRemoved: 1, entitiesRemoved: 0, relationsRemoved: 0 });
      const got = await g.entity(owner, ent.id);
      assert.deepEqual([got?.name, got?.norm, got?.firstSeen, got?.lastSeen, got?.mentions], ['R. Person', 'r person', toIso(base + 5), toIso(base + 6), 7], 'as given, not recounted to 1');

      // markStale (a rebuild's first step): a memory indexed under the current rules counts as stale until indexed again.
      await g.write(owner, { ...plain, upsertEntities: [], evidence: [], indexed: [{ memoryId: h.id, lineageId: h.lineageId }] });
      const stale = async () => g.staleIndexed(owner, { rulesVersion: 2, all: false, after: null, limit: 100_000 });
      assert.ok(!(await stale()).includes(h.id));
      assert.ok((await g.markStale(owner)) >= 1);
      assert.ok((await stale()).includes(h.id));
      assert.equal(await g.markStale(owner), 0, 'marked once: nothing left to mark');
    });

    test(named('ledger: one active fact per key, scoped reads, patches and proposals audited'), async (t) => {
      const l = s.ledger;
      if (!l) return t.skip('this adapter has no ledger');
      const at = toIso(Date.now());
      const fact = (key: string, value: string, visibility: 'owner' | 'shared') => ({
        id: newId(), key, value, statement: `${key} is ${value}`, category: LEDGER_CATEGORY, confidence: 0.9, mentions: 1, source: 'owner pin' as const, status: 'active' as const,
        validFrom: at, validUntil: null, supersededBy: null, updatedAt: at, namespace: owner.namespace, ownerId: owner.id, agentId: null, visibility,
      });
      const tz = fact('user.timezone', 'Europe/Paris', 'owner');
      const lang = fact('user.language', 'French', 'shared');
      await l.write(owner, [{ kind: 'insert', fact: tz }, { kind: 'insert', fact: lang }]);
      assert.deepEqual(await l.get(owner, tz.id), tz);
      assert.equal(await l.get(guest, tz.id), null, 'guests never see owner-only facts');
      assert.deepEqual((await l.list(guest, {})).map((f) => f.id), [lang.id]);
      assert.deepEqual(await l.keyHolder(guest, 'user.timezone'), { id: tz.id, source: 'owner pin' });
      await assert.rejects(l.write(owner, [{ kind: 'insert', fact: fact('user.timezone', 'UTC', 'owner') }]), { code: 'conflict' });
      await l.write(owner, [{ kind: 'patch', id: tz.id, set: { status: 'superseded', updatedAt: toIso(Date.now() + 1) }, op: 'supersede' }]);
      assert.equal((await l.get(owner, tz.id))?.status, 'superseded');
      assert.equal(await l.keyHolder(owner, 'user.timezone'), null);
      const proposal = { id: newId(), key: 'user.language', targetId: lang.id, proposer: actorOfAgent, createdAt: at, status: 'pending' as const,
        proposed: { value: 'German', statement: 'user.language is German', category: 'preference', source: 'agent pin', confidence: 0.7, agentId: 'a1', ownerId: agent.id, visibility: 'shared' } };
      await l.write(agent, [{ kind: 'pending', pending: proposal }]);
      assert.deepEqual((await l.pending(owner)).map((x) => x.id), [proposal.id]);
      assert.deepEqual((await l.pending(agent)).map((x) => x.id), [proposal.id]);
      assert.deepEqual(await l.pending(guest), []);
      await l.write(owner, [{ kind: 'resolve', pendingId: proposal.id, status: 'rejected' }]);
      await assert.rejects(l.write(owner, [{ kind: 'resolve', pendingId: proposal.id, status: 'confirmed' }]), { code: 'conflict' });
      assert.equal((await l.pending(owner, proposal.id))[0]?.status, 'rejected');
      const chain = await wholeChain(s);
      assert.deepEqual(chain.filter((e) => e.action === 'pin').map((e) => e.details.op), ['add', 'add', 'supersede', 'propose', 'reject']);
      assert.deepEqual(verifyChainSegment(null, chain), []);
    });

    test(named('tokens: create, find by hash, list, revoke, all audited'), async () => {
      if (!s.tokens) return;
      const secret = 'mnemos_test_secret';
      const hash = sha256Hex(secret);
      const rec = { id: newId(), role: 'agent' as const, namespace: owner.namespace, principalId: 'agent-9', agentId: 'a9', label: 'ci', createdAt: toIso(Date.now()), revokedAt: null };
      await assert.rejects(s.tokens.create(agent, { ...rec, hash }), { code: 'forbidden' });
      const made = await s.tokens.create(owner, { ...rec, hash });
      assert.deepEqual(made, rec);
      assert.deepEqual(await s.tokens.findByHash(hash), rec);
      assert.deepEqual((await s.tokens.list(owner)).map((t) => t.id), [rec.id]);
      const revoked = await s.tokens.revoke(owner, rec.id);
      assert.ok(revoked?.revokedAt);
      assert.equal(await s.tokens.findByHash(hash), null);
      assert.equal(await s.tokens.revoke(owner, 'nope'), null);
      const chain = await wholeChain(s);
      assert.deepEqual(chain.filter((e) => e.action === 'token').map((e) => e.details.op), ['create', 'revoke']);
      assert.deepEqual(verifyChainSegment(null, chain), []);
    });

    vectorContractTests({ cs: () => cs, owner, agent, guest, otherNs, mem: (p, input) => mem(p, input) });
  });
}
