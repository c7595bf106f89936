import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Principal } from '../../src/index.ts';
import { consolidationStatus } from '../../src/surfaces/tools/consolidation-status.ts';
import { memoryGraph } from '../../src/surfaces/tools/memory-graph.ts';
import { memoryPin } from '../../src/surfaces/tools/memory-pin.ts';
import { runTool } from '../../src/surfaces/tools/run-tool.ts';
import { lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

const agent: Principal = { role: 'agent', namespace: 'default', id: 'agent-1', agentId: 'bot' };
const guest: Principal = { role: 'guest', namespace: 'default', id: 'guest-1', agentId: 'bot' };

test(named('tools: memory_pin, consolidation_status and memory_graph; guests get no owner ledger or graph data through any of them'), async () => {
  const s = await lifecycleStore();
  try {
    const as = (p: Principal | null) => ({ memory: p ? s.m.as(p) : s.m, surfaceParts: [] });
    await runTool(memoryPin, { action: 'pin', key: 'user.birthday', value: '1990-04-02', category: 'identity' }, as(null));
    await s.m.remember({ text: 'Dr. Okafor is the family doctor' });
    await runTool(consolidationStatus, {}, as(null)).then((r) => assert.equal((r as { last: unknown }).last, null));
    await s.m.consolidate();
    const st = (await runTool(consolidationStatus, {}, as(null))) as { last: { status: string } };
    assert.equal(st.last.status, 'done');

    const proposal = (await runTool(memoryPin, { action: 'pin', key: 'user.birthday', value: '1990-04-03' }, as(agent))) as { status: string; pending: { id: string } };
    assert.equal(proposal.status, 'pending_confirmation');
    await assert.rejects(runTool(memoryPin, { action: 'confirm', id: proposal.pending.id }, as(agent)), { code: 'forbidden' });
    const confirmed = (await runTool(memoryPin, { action: 'confirm', id: proposal.pending.id }, as(null))) as { status: string };
    assert.equal(confirmed.status, 'confirmed');
    // The owner can drop a pending change through the tool too (it could only from the CLI), and an agent cannot.
    const second = (await runTool(memoryPin, { action: 'pin', key: 'user.birthday', value: '1990-04-04' }, as(agent))) as { pending: { id: string } };
    await assert.rejects(runTool(memoryPin, { action: 'reject', id: second.pending.id }, as(agent)), { code: 'forbidden' });
    await runTool(memoryPin, { action: 'reject', id: second.pending.id }, as(null));
    assert.deepEqual(((await runTool(memoryPin, { action: 'list' }, as(null))) as { pending: unknown[] }).pending, []);
    assert.equal(((await runTool(memoryPin, { action: 'get', key: 'user.birthday' }, as(null))) as { value: string }).value, '1990-04-03');
    await assert.rejects(runTool(memoryPin, { action: 'reject' }, as(null)), { code: 'validation_failed' });
    await assert.rejects(runTool(memoryPin, { action: 'pin', key: 'Bad Key', value: 'x' }, as(null)), { code: 'validation_failed' });

    const g = as(guest);
    assert.deepEqual((await runTool(memoryPin, { action: 'list' }, g)) as unknown, { facts: [], pending: [] });
    await assert.rejects(runTool(memoryPin, { action: 'get', key: 'user.birthday' }, g), { code: 'not_found' });
    await assert.rejects(runTool(consolidationStatus, {}, g), { code: 'forbidden' });
    assert.deepEqual(((await runTool(memoryGraph, { name: 'Okafor' }, g)) as { entities: unknown[] }).entities, []);
    assert.equal(((await runTool(memoryGraph, { name: 'Okafor' }, as(null))) as { entities: unknown[] }).entities.length, 1);
  } finally {
    await s.close();
  }
});
