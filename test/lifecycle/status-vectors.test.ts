import { test } from 'node:test';
import assert from 'node:assert/strict';
import { statusCmd } from '../../src/surfaces/cli/commands/admin-commands.ts';
import { lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

/**
 * `mnemos status` says how many memories carry the model's vectors out of
 * how many. A merge archives its loser without a vector, and a backfill
 * embeds only what searches consider, so comparing with every current
 * memory showed a gap ("2 of 3") that `embed --backfill` never closed.
 */
test(named('status counts vectors out of the memories searches consider, so a merge leaves no gap to fill'), async () => {
  const s = await lifecycleStore();
  try {
    await s.m.remember({ text: 'Bob lives in Porto.', type: 'fact' });
    await s.m.remember({ text: 'bob lives in porto', type: 'fact' });
    await s.m.remember({ text: 'Dana prefers green tea', type: 'preference' });
    assert.equal((await s.m.consolidate({ force: true })).merges.length, 1);
    await s.m.embedBackfill();

    const st = await s.m.status();
    assert.equal(st.memories.total, 3, 'the archived loser is still a current memory');
    assert.equal(st.memories.byLifecycle['archived'], 1);
    assert.equal(st.embeddings.searchable, 2, 'the archived loser is not searched');
    assert.equal(st.embeddings.vectors, st.embeddings.searchable, 'every searchable memory carries a vector after a backfill');
    const line = statusCmd.human!(st, {} as never).split('\n').find((l) => l.startsWith('vectors'))!;
    assert.match(line, /^vectors +2 of 2 memories searches consider \(archived and expired ones need none\), /);

    const guest = await s.m.as({ role: 'guest', namespace: 'default', id: 'visitor' }).status();
    assert.deepEqual([guest.embeddings.vectors, guest.embeddings.searchable], [0, 0], 'a guest counts only what it can see');
  } finally {
    await s.close();
  }
});
