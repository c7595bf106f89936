/**
 * The knowledge graph for text in scripts without letter case (Thai,
 * Chinese...), in the store: a name introduced between quoting brackets or as
 * a gloss of a Latin name is an entity, a later memory naming it without
 * brackets is evidence for it, and a query written without spaces finds both
 * through the graph list. Before, such text made no entities at all.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lifecycleStore } from './helpers.ts';
import { named, rawSql } from '../helpers/backend.ts';

test(named('a Thai or Chinese name in brackets or a gloss becomes an entity that later unbracketed mentions and queries find'), async () => {
  const s = await lifecycleStore();
  try {
    // Introduced: a quoted shop name, a gloss of a Latin name. The ordinary sentence names nothing that can be told.
    const shop = await s.m.remember({ text: 'ฉันชอบร้าน "ครัวคุณยาย" มาก ข้าวมันไก่อร่อยที่สุด' });
    const met = await s.m.remember({ text: 'I met Wang Xiaoming (王小明) at the robotics conference' });
    await s.m.remember({ text: 'วันนี้อากาศดีมาก เราไปเดินเล่นที่สวนสาธารณะ' });
    await s.m.remember({ text: '今天天气很好，我们去公园散步了。' });
    await s.m.consolidate({ force: true });
    // Named again without brackets, inside runs of text with no spaces.
    const again = await s.m.remember({ text: 'เมื่อวานไปครัวคุณยายกับแม่ คนเยอะมาก' });
    const visit = await s.m.remember({ text: '王小明下周来上海参加会议' });
    await s.m.consolidate({ force: true });

    const names = (await rawSql(s.db, 'SELECT name FROM graph_entities')).map((r) => String(r.name)).sort();
    assert.deepEqual(names, ['Wang Xiaoming', 'ครัวคุณยาย'], 'the ordinary sentences made no entities');

    const kitchen = await s.m.lifecycle.entity('ครัวคุณยาย');
    assert.equal(kitchen.entities.length, 1);
    assert.deepEqual([...kitchen.entities[0]!.memoryIds].sort(), [shop.id, again.id].sort());

    // The gloss is the Latin name's other spelling: one entity, found by either.
    const wang = await s.m.lifecycle.entity('王小明');
    assert.equal(wang.entities.length, 1);
    assert.equal(wang.entities[0]!.entity.name, 'Wang Xiaoming');
    assert.ok(wang.entities[0]!.entity.aliases.includes('王小明'), JSON.stringify(wang.entities[0]!.entity));
    assert.deepEqual([...wang.entities[0]!.memoryIds].sort(), [met.id, visit.id].sort());
    assert.equal((await s.m.lifecycle.entity('Wang Xiaoming')).entities[0]!.entity.id, wang.entities[0]!.entity.id);

    // Queries written without spaces: where a word starts is not written, the names inside are found.
    assert.deepEqual((await s.m.lifecycle.graphCandidates('ครัวคุณยายเปิดกี่โมง', 10)).sort(), [shop.id, again.id].sort());
    assert.deepEqual((await s.m.lifecycle.graphCandidates('王小明在哪里工作？', 10)).sort(), [met.id, visit.id].sort());
    // And the hybrid search fuses that graph list.
    const hits = (await s.m.search({ query: 'ครัวคุณยายเปิดกี่โมง' })).hits;
    for (const id of [shop.id, again.id]) {
      const hit = hits.find((h) => h.memory.id === id);
      assert.ok(hit?.why.ranks.graph, `${id} found through the graph: ${JSON.stringify(hits.map((h) => [h.memory.text, h.why.ranks]))}`);
    }
  } finally {
    await s.close();
  }
});
