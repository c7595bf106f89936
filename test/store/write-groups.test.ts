/**
 * Writes that arrive together: on PostgreSQL they share one transaction
 * (group commit, adapters/postgres/write-groups.ts), on SQLite they run one
 * after another. Either way every caller gets its own results, a caller's
 * error reaches only that caller and undoes only its ops, and the audit
 * chain stays whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore } from '../../src/adapters/open-store.ts';
import { WriteGroups } from '../../src/adapters/postgres/write-groups.ts';
import { verifyChainSegment } from '../../src/domain/audit.ts';
import type { Principal } from '../../src/domain/principal.ts';
import type { WriteOp } from '../../src/ports/store.ts';
import { analyze } from '../../src/retrieval/text/analyze.ts';
import { BACKEND, named, testStores } from '../helpers/backend.ts';
import { mem, wholeChain } from './contract.ts';

const owner: Principal = { role: 'owner', namespace: 'wg', id: 'owner' };
const agents: Principal[] = Array.from({ length: 4 }, (_, i) => ({ role: 'agent', namespace: 'wg', id: `agent-${i}`, agentId: `a${i}` }));

/**
 * A runner that records each group it is given and holds the first until
 * `release()`, so that what is submitted meanwhile queues behind it;
 * `outcome` answers each group (the call's number starts at 1).
 */
function heldRunner<R>(outcome: (items: number[], call: number) => ({ ok: R } | { error: unknown })[]) {
  const seen: number[][] = [];
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  const run = async (items: number[]) => {
    seen.push(items);
    if (seen.length === 1) await held;
    return outcome(items, seen.length);
  };
  return { run, seen, release: () => release() };
}

test('a group forms from what arrives while one runs, weighs at most maxWeight (one heavy member alone), and settles each member with its own outcome', async () => {
  const { run, seen, release } = heldRunner<string>((items) => items.map((n) => (n === 13 ? { error: new Error('thirteen') } : { ok: `done ${n}` })));
  const groups = new WriteGroups<number, string>(run, (n) => n, 20);
  const first = groups.submit(1);
  const rest = [5, 13, 4, 30, 2].map((n) => groups.submit(n).then((r) => r, (e: Error) => `failed: ${e.message}`));
  release();
  assert.equal(await first, 'done 1');
  assert.deepEqual(await Promise.all(rest), ['done 5', 'failed: thirteen', 'done 4', 'done 30', 'done 2']);
  assert.deepEqual(seen[0], [1], 'the first write runs alone');
  assert.deepEqual(seen[1], [5, 13], 'the next group takes what waited, up to the weight: 5 + 13 + 4 > 20');
  assert.deepEqual(seen.slice(2), [[4], [30], [2]], 'a member heavier than the limit still runs, alone');
  assert.deepEqual(groups.stats, { groups: 5, members: 6 });
});

test('a group takes at most maxMembers writes (each is a savepoint: a subtransaction)', async () => {
  const { run, seen, release } = heldRunner<number>((items) => items.map((n) => ({ ok: n })));
  const groups = new WriteGroups<number, number>(run, () => 1, 5_000, 3);
  const all = Array.from({ length: 8 }, (_, i) => groups.submit(i));
  release();
  assert.deepEqual(await Promise.all(all), [0, 1, 2, 3, 4, 5, 6, 7]);
  assert.deepEqual(seen, [[0], [1, 2, 3], [4, 5, 6], [7]]);
});

test('a runner that throws fails every member of its group, and the next group still runs', async () => {
  const { run, release } = heldRunner<number>((items, call) => {
    if (call === 2) throw new Error('connection lost');
    return items.map((n) => ({ ok: n * 2 }));
  });
  const groups = new WriteGroups<number, number>(run, () => 1);
  const a = groups.submit(1);
  const b = groups.submit(2).catch((e: Error) => e.message);
  const c = groups.submit(3).catch((e: Error) => e.message);
  release();
  assert.equal(await a, 2);
  assert.deepEqual(await Promise.all([b, c]), ['connection lost', 'connection lost']);
  assert.equal(await groups.submit(4), 8);
});

test(named('concurrent writes from several principals each get their own results; a failing one changes nothing of the others'), async () => {
  const st = testStores('mnemos-write-groups-');
  const s = await openStore(st.db, { analyze });
  try {
    const taken = mem(owner, { text: 'the first word on the harbour', key: 'wg:taken' });
    await s.apply(owner, [{ kind: 'insert', memory: taken, onExistingSource: 'conflict' }]);
    const writes: { p: Principal; ops: WriteOp[]; ids: string[] }[] = [];
    for (let i = 0; i < 40; i++) {
      const p = i % 5 === 0 ? owner : agents[i % agents.length]!;
      const memories = Array.from({ length: 1 + (i % 3) }, (_, j) => mem(p, { text: `harbour note ${i}.${j} about the tide`, key: `wg:${i}:${j}` }));
      writes.push({ p, ops: memories.map((memory) => ({ kind: 'insert', memory, onExistingSource: 'conflict' })), ids: memories.map((m) => m.id) });
    }
    // One caller reuses an id with other content (a conflict inside the transaction), one agent edits the owner's memory (forbidden).
    const clash = { ...mem(owner, { text: 'a different text under a taken id' }), id: taken.id };
    const bad: { p: Principal; ops: WriteOp[]; code: string }[] = [
      { p: owner, ops: [{ kind: 'insert', memory: mem(owner, { text: 'would be written with the clash', key: 'wg:clash:ok' }), onExistingSource: 'conflict' }, { kind: 'insert', memory: clash, onExistingSource: 'conflict' }], code: 'conflict' },
      { p: agents[1]!, ops: [{ kind: 'retire', id: taken.id, reason: 'not mine' }], code: 'forbidden' },
    ];
    const good = writes.map((w) => s.apply(w.p, w.ops));
    const failing = bad.map((b) => s.apply(b.p, b.ops).then(() => 'written', (e: { code?: string }) => e.code));
    const results = await Promise.all(good);
    results.forEach((r, i) => assert.deepEqual(r.map((x) => (x.kind === 'insert' ? [x.id, x.status] : x.kind)), writes[i]!.ids.map((id) => [id, 'created']), `write ${i}`));
    assert.deepEqual(await Promise.all(failing), bad.map((b) => b.code));
    const expected = 1 + writes.reduce((n, w) => n + w.ids.length, 0);
    assert.equal(await s.count(owner, {}), expected, 'every good write is stored; nothing of the failed ones (the clash batch wrote its first memory too, undone)');
    assert.ok(!(await s.findBySourceKey(owner, 'wg:clash:ok')), 'the failed batch left nothing');
    assert.equal((await s.get(owner, taken.id))?.text, taken.text);
    const chain = await wholeChain(s);
    assert.deepEqual(verifyChainSegment(null, chain), [], 'the audit chain is whole');
    assert.equal(chain.filter((e) => e.action === 'create').length, expected, 'one create entry per stored memory, none for the failed');
    const grouped = (s as unknown as { groups?: WriteGroups<unknown, unknown> }).groups;
    if (BACKEND === 'postgres') {
      assert.ok(grouped, 'the PostgreSQL store groups its writes');
      assert.ok(grouped.stats.groups < grouped.stats.members, `writes that arrived together shared transactions (${grouped.stats.groups} for ${grouped.stats.members})`);
    }
  } finally {
    await s.close();
    await st.cleanup();
  }
});
