import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openMemory, MnemosError } from '../../src/index.ts';
import { named, testStores } from '../helpers/backend.ts';
import { createToken, request, spawnServe, type SpawnedServer } from './serve-helpers.ts';

/**
 * A transcript turn posted again with its text but another speaker (role or
 * name) is a conflict naming that field, as another text is; the identical
 * post stays `unchanged`. It answered `unchanged` and kept the old role.
 */

describe('a re-posted turn keeps its speaker or is refused (POST /v1/transcripts)', () => {
  const tmp = testStores('mnemos-transcript-role-');
  let server: SpawnedServer;
  let owner: string;

  before(async () => {
    owner = (await createToken(tmp.db, 'owner')).token;
    server = await spawnServe(tmp.db, ['--consolidate-every-ms', '0']);
  });
  after(async () => {
    await server?.stop();
    await tmp.cleanup();
  });

  it(named('another role for a turn is 409 naming role; nothing is written; the same post is unchanged'), async () => {
    const post = (messages: unknown[]) => request(server.url, 'POST', '/v1/transcripts', owner, { sessionId: 'chat-1', messages });
    const first = await post([{ role: 'user', content: 'Where is my parcel?' }, { role: 'assistant', content: 'It ships Monday.' }]);
    assert.ok(first.status === 200 || first.status === 201, JSON.stringify(first.body));
    const ids = first.body.results.map((r: { id: string }) => r.id);

    // The second turn says it was the user's, plus a new third turn: refused whole.
    const swapped = await post([{ role: 'user', content: 'Where is my parcel?' }, { role: 'user', content: 'It ships Monday.' }, { role: 'user', content: 'Thanks' }]);
    assert.equal(swapped.status, 409, JSON.stringify(swapped.body));
    assert.equal(swapped.body.error.code, 'conflict');
    assert.equal(swapped.body.error.details.field, 'role');
    assert.equal(swapped.body.error.details.turn, 2);
    assert.match(swapped.body.error.message, /turn 2 of session "chat-1" already holds this message with role "assistant", not "user"/);
    const range = await request(server.url, 'POST', '/v1/tools/recall_range', owner, { sessionId: 'chat-1' });
    assert.deepEqual(
      range.body.turns.map((t: { role: string }) => t.role),
      ['user', 'assistant'],
      'nothing was written: no third turn, the role kept',
    );

    const again = await post([{ role: 'user', content: 'Where is my parcel?' }, { role: 'assistant', content: 'It ships Monday.' }]);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body.results.map((r: { status: string }) => r.status), ['unchanged', 'unchanged']);
    assert.deepEqual(again.body.results.map((r: { id: string }) => r.id), ids);

    // Another text under the turn stays the turn conflict it was.
    const text = await post([{ role: 'user', content: 'Where is my order?' }]);
    assert.equal(text.status, 409);
    assert.equal(text.body.error.details.field, 'turn');
  });
});

describe('a re-posted turn keeps its speaker or is refused (library)', () => {
  it(named('ingestTranscript refuses another role or name of a turn and writes nothing'), async () => {
    const t = testStores();
    const m = await openMemory({ db: t.db });
    try {
      const conflictOn = (field: string) => (err: unknown) => {
        assert.ok(MnemosError.is(err), String(err));
        assert.equal(err.code, 'conflict', err.message);
        assert.equal(err.details?.field, field);
        return true;
      };
      await m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello', name: 'dana' }, { role: 'tool', content: '{"ok":true}' }] });
      await assert.rejects(m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello', name: 'dana' }, { role: 'assistant', content: '{"ok":true}' }] }), conflictOn('role'));
      await assert.rejects(m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello', name: 'eli' }] }), conflictOn('name'));
      await assert.rejects(m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello' }] }), conflictOn('name'));
      // Another agent for the same message: the store's conflict keeps naming agentId, not a taken turn.
      await m.ingestTranscript({ sessionId: 's2', agentId: 'a1', messages: [{ role: 'user', content: 'plan the trip' }] });
      await assert.rejects(
        m.ingestTranscript({ sessionId: 's2', agentId: 'a2', messages: [{ role: 'user', content: 'plan the trip' }] }),
        (err: unknown) => conflictOn('agentId')(err) && /turn 1 of session "s2": .*agentId "a1", not "a2"/.test((err as Error).message),
      );
      const same = await m.ingestTranscript({ sessionId: 's1', messages: [{ role: 'user', content: 'hello', name: 'dana' }, { role: 'tool', content: '{"ok":true}' }] });
      assert.deepEqual(same.results.map((r) => r.status), ['unchanged', 'unchanged']);
      const listed = (await m.list({ filter: { sessionId: 's1' }, limit: 10 })).items;
      assert.deepEqual(listed.map((x) => x.metadata.role).sort(), ['tool', 'user']);
      assert.equal(listed.length, 2, 'no new version was written');
    } finally {
      await m.close();
      await t.cleanup();
    }
  });
});
