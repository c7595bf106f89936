import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openMemory } from '../../src/index.ts';
import { contentHash } from '../../src/domain/hash.ts';
import { named, testStores } from '../helpers/backend.ts';

/** An export's lines, one of them changed by `edit`; the other lines are good records. */
async function exportWith(db: string, edit: (r: Record<string, unknown>) => void): Promise<string> {
  const a = await openMemory({ db });
  try {
    const x = await a.remember({ text: 'Dana moved to Porto', validFrom: '2024-02-01T00:00:00Z' });
    await a.update(x.id, { text: 'Dana moved to Lisbon' });
    await a.remember({ text: 'prefers tea' });
    const lines: string[] = [];
    await a.export((l) => void lines.push(l));
    const last = JSON.parse(lines[lines.length - 1]!) as Record<string, unknown>;
    edit(last);
    last.contentHash = contentHash(last.text as string);
    lines[lines.length - 1] = `${JSON.stringify(last)}\n`;
    return lines.join('');
  } finally {
    await a.close();
  }
}

const BAD: { name: string; field: string; edit: (r: Record<string, unknown>) => void }[] = [
  { name: 'a successor named while current', field: 'supersededBy', edit: (r) => void (r.supersededBy = 'm-nowhere') },
  { name: 'a version number its lineage already has', field: 'version', edit: (r) => void ((r.lineageId = 'PLACEHOLDER'), (r.version = 1)) },
];

/** States earlier versions wrote (README: an export of any store restores): restored exactly, not refused. */
const KEPT: { name: string; edit: (r: Record<string, unknown>) => void }[] = [
  { name: 'a text over 200,000 characters (a correction before 2026-12-01)', edit: (r) => void (r.text = '🚀'.repeat(200_001)) },
  { name: 'a blank text (before 2026-11-30)', edit: (r) => void (r.text = '   \n ') },
  { name: 'validTo before validFrom (before 2026-12-01)', edit: (r) => void (r.validTo = '2000-01-01T00:00:00.000Z') },
];

for (const kept of KEPT) {
  test(named(`restoring an export keeps a memory record with ${kept.name} exactly`), async () => {
    const { dir, store, cleanup } = testStores();
    try {
      const text = await exportWith(store('a.db'), kept.edit);
      const file = join(dir, 'export.jsonl');
      writeFileSync(file, text);
      const b = await openMemory({ db: store('b.db') });
      try {
        await b.import(file);
        const again: string[] = [];
        await b.export((l) => void again.push(l));
        assert.equal(again.join(''), text, 'export, import, export gives the same lines');
      } finally {
        await b.close();
      }
    } finally {
      await cleanup();
    }
  });
}

for (const bad of BAD) {
  test(named(`restoring an export refuses a memory record with ${bad.name}, naming field and line, writing nothing`), async () => {
    const { dir, store, cleanup } = testStores();
    try {
      let text = await exportWith(store('a.db'), bad.edit);
      // The lineage of the file's first record, so two records of it claim version 1.
      if (text.includes('PLACEHOLDER')) text = text.replace('PLACEHOLDER', (JSON.parse(text.split('\n')[0]!) as { lineageId: string }).lineageId);
      const file = join(dir, 'export.jsonl');
      writeFileSync(file, text);
      const b = await openMemory({ db: store('b.db') });
      try {
        const line = text.trimEnd().split('\n').length;
        await assert.rejects(b.import(file), (err: Error & { code?: string; details?: { field?: string; line?: number } }) => {
          assert.equal(err.code, 'validation_failed');
          assert.equal(err.details?.field, bad.field);
          assert.equal(err.details?.line, line);
          assert.ok(err.message.includes(`${file}:${line}`) && err.message.includes(bad.field), err.message);
          return true;
        });
        assert.equal((await b.status()).memories.total, 0, 'nothing of the file was written');
      } finally {
        await b.close();
      }
    } finally {
      await cleanup();
    }
  });
}

test(named('restoring a MeTTa export keeps a record whose validity ends before it begins, or whose text is blank (earlier versions wrote both)'), async () => {
  const { dir, store, cleanup } = testStores();
  try {
    const a = await openMemory({ db: store('a.db') });
    await a.remember({ text: 'valid thing', validFrom: '2020-01-01T00:00:00Z', validTo: '2021-01-01T00:00:00Z' });
    let text = '';
    await a.exportMetta((t) => void (text += t));
    await a.close();
    for (const [i, [edited, check]] of ([
      [text.replace('"2021-01-01T00:00:00.000Z"', '"2019-01-01T00:00:00.000Z"'), (m: { validTo: string | null }) => assert.equal(m.validTo, '2019-01-01T00:00:00.000Z')],
      [text.replace('"valid thing"', '"   "'), (m: { text: string }) => assert.equal(m.text, '   ')],
    ] as const).entries()) {
      assert.notEqual(edited, text);
      const b = await openMemory({ db: store(`b${i}.db`) });
      try {
        const file = join(dir, `x${i}.metta`);
        writeFileSync(file, edited);
        await b.import(file);
        const items = (await b.list({})).items;
        assert.equal(items.length, 1);
        check(items[0] as never);
      } finally {
        await b.close();
      }
    }
  } finally {
    await cleanup();
  }
});
