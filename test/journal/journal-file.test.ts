import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { Journal } from '../../src/journal/journal.ts';
import { parseCluster } from '../../src/journal/parse-clusters.ts';
import { REFERENCE_EXAMPLE, record, tempDir } from './fixtures/example.ts';

test('appends the reference example exactly and reads it back', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const journal = await Journal.open(path);
    assert.equal(existsSync(path), false, 'opening creates nothing');
    const result = await journal.append(REFERENCE_EXAMPLE);
    assert.deepEqual(result.clusterIds, ['mc-2026-11-29-standup']);
    assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE);
    assert.equal(existsSync(path + '.lock'), false, 'lock released');
    const again = await Journal.open(path);
    assert.equal(again.clusters().length, 1);
    assert.deepEqual(again.warnings, []);
  } finally {
    cleanup();
  }
});

test('appends a cluster given as atoms in canonical form', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const journal = await Journal.open(path);
    const messy = REFERENCE_EXAMPLE.replace('(About c-ship-parser parser)', '(  About   c-ship-parser\tparser )  ; topic');
    await journal.append(parseCluster(messy));
    assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE);
  } finally {
    cleanup();
  }
});

test('rejected clusters leave the file byte-identical', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const journal = await Journal.open(path, { parseCheck: (text) => { if (text.includes('forbidden')) throw new Error('runtime says no'); } });
    await journal.append(record('mc-a', 'c-1'));
    const before = readFileSync(path);
    const attempts: Array<[string, string, string]> = [
      ['invalid record', record('mc-b', 'c-2').replace('medium-memory-v1', 'v0'), 'validation_failed'],
      ['cluster id already in the journal', record('mc-a', 'c-9'), 'conflict'],
      ['declared id already in the journal', record('mc-c', 'c-1'), 'conflict'],
      ['parse-check hook refuses', record('mc-d', 'c-4', ['(About c-4 forbidden)']), 'validation_failed'],
      ['syntax error', ';;; BEGIN MemoryCluster mc-e\n(MemoryCluster "mc-e\n;;; END MemoryCluster mc-e\n', 'validation_failed'],
      ['batch with one bad cluster', record('mc-f', 'c-6') + record('mc-g', 'c-6'), 'validation_failed'],
    ];
    for (const [name, text, code] of attempts) {
      await assert.rejects(journal.append(text), (e: unknown) => MnemosError.is(e, code as never), name);
      assert.deepEqual(readFileSync(path), before, name);
    }
    await assert.rejects(journal.appendMany([record('mc-f', 'c-6'), record('mc-g', 'c-6')]), (e: unknown) => MnemosError.is(e, 'validation_failed'));
    assert.deepEqual(readFileSync(path), before);
    assert.equal(journal.clusters().length, 1);
  } finally {
    cleanup();
  }
});

test('a cut at every byte of an append is repaired on open, with a warning', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const committed = REFERENCE_EXAMPLE;
    const next = record('mc-next', 'c-next', ['(CommitmentText c-next "multi-byte é中😀 text")']);
    const bytes = Buffer.from(next, 'utf8');
    // Every cut short of the END line's newline; without only that newline the record is complete (next test).
    for (let cut = 1; cut < bytes.length - 1; cut++) {
      const path = join(dir, `cut-${cut}.metta`);
      writeFileSync(path, Buffer.concat([Buffer.from(committed), bytes.subarray(0, cut)]));
      const journal = await Journal.open(path);
      assert.equal(journal.clusters().length, 1, `cut ${cut}`);
      assert.equal(journal.warnings.length, 1, `cut ${cut}`);
      assert.match(journal.warnings[0]!, /removed a torn tail/);
      assert.equal(readFileSync(path, 'utf8'), committed, `cut ${cut}`);
      if (cut % 25 === 0) {
        await journal.append(next);
        assert.equal(readFileSync(path, 'utf8'), committed + next, `append after repair, cut ${cut}`);
      }
    }
  } finally {
    cleanup();
  }
});

test('a last record missing only its final newline is complete: kept, and the newline added before the next append', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const next = record('mc-next', 'c-next', ['(CommitmentText c-next "multi-byte é中😀 text")']);
    const third = record('mc-third', 'c-third');
    for (const ending of ['', '\r']) {
      const path = join(dir, `no-newline${ending ? '-crlf' : ''}.metta`);
      // An editor that drops the final newline leaves exactly this; it used to read as a torn tail and the next append deleted mc-next.
      const edited = REFERENCE_EXAMPLE + next.slice(0, -1) + ending;
      writeFileSync(path, edited);
      const reader = await Journal.open(path, { readOnly: true });
      assert.deepEqual(reader.clusters().map((c) => c.id), ['mc-2026-11-29-standup', 'mc-next']);
      assert.deepEqual(reader.warnings, []);
      assert.equal(readFileSync(path, 'utf8'), edited, 'a read changes nothing');
      const writer = await Journal.open(path);
      assert.equal(writer.clusters().length, 2);
      assert.match(writer.warnings.join(' '), /mc-next\) had no final newline; added it/);
      const result = await writer.append(third);
      assert.deepEqual(result.clusterIds, ['mc-third']);
      assert.equal(readFileSync(path, 'utf8'), edited + '\n' + third);
      const again = await Journal.open(path);
      assert.deepEqual(again.clusters().map((c) => c.id), ['mc-2026-11-29-standup', 'mc-next', 'mc-third']);
      assert.deepEqual(again.warnings, []);
      assert.deepEqual(again.clusters()[2]!.lines?.[0], (edited + '\n').split('\n').length + 1, 'line numbers stay right');
    }
  } finally {
    cleanup();
  }
});

test('a newline owed by a record read without the lock is written before the next append', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const journal = await Journal.open(path);
    await journal.append(REFERENCE_EXAMPLE);
    // Hand-edited behind the open handle: the final newline goes; refresh (no lock) reads the file again.
    writeFileSync(path, REFERENCE_EXAMPLE.slice(0, -1));
    journal.refresh();
    assert.equal(journal.clusters().length, 1);
    const next = record('mc-next', 'c-next');
    await journal.append(next);
    assert.equal(readFileSync(path, 'utf8'), REFERENCE_EXAMPLE + next);
    assert.equal((await Journal.open(path)).clusters().length, 2);
  } finally {
    cleanup();
  }
});

test('a batch cut off at any byte is removed whole, records that landed included; a whole one is kept', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const batch = record('mc-b1', 'c-b1') + record('mc-b2', 'c-b2') + record('mc-b3', 'c-b3');
    const bytes = Buffer.from(batch, 'utf8');
    const from = Buffer.byteLength(REFERENCE_EXAMPLE);
    // What a killed `appendMany` leaves: its intent, fsynced first, and any prefix of its bytes.
    for (const cut of [0, 10, Buffer.byteLength(record('mc-b1', 'c-b1')), bytes.length - 1, bytes.length]) {
      const path = join(dir, `batch-${cut}.metta`);
      writeFileSync(path, Buffer.concat([Buffer.from(REFERENCE_EXAMPLE), bytes.subarray(0, cut)]));
      writeFileSync(`${path}.batch`, JSON.stringify({ from, bytes: bytes.length, records: 3 }));
      const reader = await Journal.open(path, { readOnly: true });
      assert.equal(reader.clusters().length, cut === bytes.length ? 4 : 1, `read-only, cut ${cut}: no part of an unfinished batch is seen`);
      const journal = await Journal.open(path);
      const whole = cut === bytes.length;
      assert.equal(journal.clusters().length, whole ? 4 : 1, `cut ${cut}`);
      assert.equal(readFileSync(path, 'utf8'), whole ? REFERENCE_EXAMPLE + batch : REFERENCE_EXAMPLE, `cut ${cut}`);
      if (cut > 0 && !whole) assert.match(journal.warnings.join('\n'), /batch of 3 records whose append was interrupted/);
      assert.equal(existsSync(`${path}.batch`), false, 'the intent is settled');
      // The same batch can be appended again after the repair.
      if (!whole) assert.equal((await journal.appendMany([batch])).clusterIds.length, 3);
      assert.equal(existsSync(`${path}.batch`), false, 'a finished batch leaves no intent');
    }
  } finally {
    cleanup();
  }
});

test('read-only open skips an incomplete tail without touching the file', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const torn = REFERENCE_EXAMPLE + ';;; BEGIN MemoryCluster mc-x\n(MemoryCluster mc-x)\n';
    writeFileSync(path, torn);
    const journal = await Journal.open(path, { readOnly: true });
    assert.equal(journal.clusters().length, 1);
    assert.match(journal.warnings[0]!, /skipped an incomplete tail/);
    assert.equal(readFileSync(path, 'utf8'), torn);
    await assert.rejects(journal.append(record('mc-y', 'c-y')), (e: unknown) => MnemosError.is(e, 'read_only'));
  } finally {
    cleanup();
  }
});

test('damage that an append cannot cause is reported as corrupt, not repaired', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const cases: Array<[string, string | Buffer]> = [
      ['garbage tail', REFERENCE_EXAMPLE + 'hello'],
      ['edited record', REFERENCE_EXAMPLE.replace('medium-memory-v1', 'medium-memory-v9')],
      ['record in the middle cut short', REFERENCE_EXAMPLE.replace(';;; END MemoryCluster mc-2026-11-29-standup\n', '') + record('mc-b', 'c-b')],
      ['invalid UTF-8 in a complete line', Buffer.concat([Buffer.from(REFERENCE_EXAMPLE.slice(0, 60)), Buffer.from([0xff]), Buffer.from(REFERENCE_EXAMPLE.slice(60))])],
      ['duplicate id across records', REFERENCE_EXAMPLE + REFERENCE_EXAMPLE],
    ];
    for (const [name, content] of cases) {
      const path = join(dir, name.replace(/ /g, '-') + '.metta');
      writeFileSync(path, content);
      await assert.rejects(Journal.open(path), (e: unknown) => MnemosError.is(e, 'corrupt'), name);
      assert.deepEqual(readFileSync(path), Buffer.from(content), name);
    }
  } finally {
    cleanup();
  }
});

test('refresh picks up clusters appended through another handle', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const a = await Journal.open(path);
    const b = await Journal.open(path, { readOnly: true });
    await a.append(record('mc-1', 'c-1'));
    await a.append(record('mc-2', 'c-2'));
    assert.equal(b.clusters().length, 0);
    assert.deepEqual(b.refresh(), []);
    assert.deepEqual(b.clusters().map((c) => c.id), ['mc-1', 'mc-2']);
    assert.equal(b.clusters()[1]!.lines?.[0], 11, 'line numbers continue across reads (mc-1 has 9 lines)');
    // A second writer handle sees the first one's appends before checking ids.
    const c = await Journal.open(path);
    await a.append(record('mc-3', 'c-3'));
    await assert.rejects(c.append(record('mc-3b', 'c-3')), (e: unknown) => MnemosError.is(e, 'conflict'));
    appendFileSync(path, ''); // no-op write keeps the file identical
    assert.equal(c.clusters().length, 3);
  } finally {
    cleanup();
  }
});

test('a journal replaced behind our back is reloaded from the start', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'j.metta');
    const a = await Journal.open(path);
    await a.append(record('mc-1', 'c-1'));
    await a.append(record('mc-2', 'c-2'));
    writeFileSync(path + '.new', record('mc-9', 'c-9'));
    (await import('node:fs')).renameSync(path + '.new', path);
    const warnings = a.refresh();
    assert.match(warnings[0]!, /replaced or shortened/);
    assert.deepEqual(a.clusters().map((c) => c.id), ['mc-9']);
  } finally {
    cleanup();
  }
});

test('file-system failures surface as MnemosErrors naming the journal', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'missing-dir', 'j.metta');
    await assert.rejects(Journal.open(path), (e: unknown) => MnemosError.is(e, 'unavailable') && e.message.includes('missing-dir'));
    const ro = await Journal.open(path, { readOnly: true });
    assert.equal(ro.clusters().length, 0);
  } finally {
    cleanup();
  }
});
