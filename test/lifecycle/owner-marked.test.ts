import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerMarkedRanges } from '../../src/lifecycle/owner-marked.ts';
import { lifecycleStore } from './helpers.ts';
import { named } from '../helpers/backend.ts';

test(named('owner-marked ranges: closed by <!-- /owner --> or the next marker; unclosed runs to the end'), () => {
  const src = ['# Me', '<!-- owner -->', 'I am vegetarian.', '<!-- /owner -->', 'agent text', '<!-- owner -->', 'tail'].join('\n');
  assert.deepEqual(ownerMarkedRanges(src), [
    { lineStart: 2, lineEnd: 4 },
    { lineStart: 6, lineEnd: 7 },
  ]);
});

test(named('imported owner-marked Markdown is labelled and never merged or corrected by an agent'), async () => {
  const s = await lifecycleStore();
  try {
    const text = 'The owner is vegetarian and never eats fish or meat at any dinner party';
    const file = join(s.dir, 'MEMORY.md');
    writeFileSync(file, ['# Self', '', '<!-- owner -->', text, '<!-- /owner -->', '', '## Notes', '', `${text}.`, ''].join('\n'));
    await s.m.import(file);
    const all = (await s.m.list()).items;
    const owned = all.filter((m) => m.labels.includes('owner-marked'));
    assert.equal(owned.length, 1);
    assert.match(owned[0]!.text, /<!-- owner -->/);
    await s.m.remember({ text });
    const r = await s.m.consolidate();
    assert.ok(!r.merges.some((x) => x.loserId === owned[0]!.id || x.survivorId === owned[0]!.id));
    assert.equal((await s.m.get(owned[0]!.id)).version, 1);
    const agent = s.m.as({ role: 'agent', namespace: 'default', id: 'a', agentId: 'bot' });
    await assert.rejects(agent.lifecycle.correct(owned[0]!.id, 'rewritten'), { code: /not_found|read_only/ });
  } finally {
    await s.close();
  }
});
