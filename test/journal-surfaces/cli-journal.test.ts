import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { run as cliRun, runJson, PLN_CLUSTER, record, REFERENCE_EXAMPLE, tempDir } from './helpers.ts';

// Detailed checks run the CLI in-process (helpers.ts); cli-spawn.test.ts spawns the real binary.
const cli = cliRun;
const cliJson = runJson;

test('journal validate: the reference example is valid; an invalid file lists every problem with its line and exits 2', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ok.metta'), REFERENCE_EXAMPLE);
    const ok = await cliJson(dir, 'journal', 'validate', 'ok.metta');
    assert.equal(ok.code, 0, ok.stderr);
    assert.deepEqual({ valid: ok.body.valid, clusters: ok.body.clusters, problems: ok.body.problems }, { valid: true, clusters: 1, problems: [] });
    assert.match((await cli(dir, 'journal', 'validate', 'ok.metta')).stdout, /valid \(1 cluster\)/);

    // Two content problems in one cluster and a duplicate id across clusters: all reported.
    const bad =
      record('mc-1', 'c-1', ['(SchemaVersion c-1 medium-memory-v2)', '(PromotionTrust c-1 1.5)']) + record('mc-2', 'c-1', []);
    writeFileSync(join(dir, 'bad.metta'), bad);
    const r = await cliJson(dir, 'journal', 'validate', 'bad.metta');
    assert.equal(r.code, 2);
    assert.equal(r.body.valid, false);
    const rules = r.body.problems.map((p: { rule: string }) => p.rule);
    assert.ok(rules.includes('numeric-value') && rules.includes('duplicate-id-journal'), JSON.stringify(r.body.problems));
    for (const p of r.body.problems.filter((x: { rule: string }) => x.rule !== 'required')) assert.equal(typeof p.line, 'number', JSON.stringify(p));
    // A script reading .error.code on a non-zero exit finds the code every other failure gives.
    assert.equal(r.body.error.code, 'validation_failed');
    const human = await cli(dir, 'journal', 'validate', 'bad.metta');
    assert.equal(human.code, 2);
    assert.match(human.stderr, /not a valid journal: \d+ problems/);
    assert.match(human.stdout, /invalid, \d+ problems/);
    assert.match(human.stdout, /\[numeric-value\] line 10: \(PromotionTrust c-1 1\.5\)/);

    writeFileSync(join(dir, 'syntax.metta'), ';;; BEGIN MemoryCluster mc-1\n(MemoryCluster mc-1\n;;; END MemoryCluster mc-1\n');
    const syn = await cliJson(dir, 'journal', 'validate', 'syntax.metta');
    assert.equal(syn.code, 2);
    assert.equal(syn.body.problems[0].line, 2);

    assert.equal((await cli(dir, 'journal', 'validate', 'missing.metta')).code, 3);
  } finally {
    cleanup();
  }
});

test('journal append: validated, all or nothing; a rejected batch leaves the journal byte-identical', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE);
    const j = join('.mnemos', 'journal.metta');
    const first = await cliJson(dir, 'journal', 'append', j, 'ex.metta');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.body.appended, ['mc-2026-11-29-standup']);
    const before = readFileSync(join(dir, j));
    assert.equal(before.toString('utf8'), REFERENCE_EXAMPLE, 'the canonical reference record is stored as written');

    // Same ids again: conflict (exit 5), file untouched.
    const again = await cli(dir, 'journal', 'append', j, 'ex.metta');
    assert.equal(again.code, 5);
    assert.match(again.stderr, /already in journal/);
    // A batch whose second cluster is invalid: nothing from it lands.
    writeFileSync(join(dir, 'batch.metta'), record('mc-new', 'c-new', ['(CommitmentText c-new "fine")']) + record('mc-bad', 'c-bad', ['(EvidenceSupportCount c-bad -1)']));
    const batch = await cli(dir, 'journal', 'append', j, 'batch.metta');
    assert.equal(batch.code, 2);
    assert.match(batch.stderr, /EvidenceSupportCount/);
    assert.deepEqual(readFileSync(join(dir, j)), before);

    writeFileSync(join(dir, 'good.metta'), record('mc-new', 'c-new', ['(CommitmentText c-new "fine")', '(About c-new parser)']));
    const human = await cli(dir, 'journal', 'append', j, 'good.metta');
    assert.equal(human.code, 0, human.stderr);
    assert.match(human.stdout, /appended 1 cluster to .*: mc-new/);
  } finally {
    cleanup();
  }
});

test('journal append to a path under a file or to a folder is the caller\'s mistake, not an internal error', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE);
    for (const j of ['ex.metta/j.metta', join('ex.metta', 'a', 'b', 'j.metta'), '.', dir]) {
      const r = await cliJson(dir, 'journal', 'append', j, 'ex.metta');
      assert.equal(r.code, 2, `${j}: ${r.stdout}`);
      assert.equal(r.body.error.code, 'validation_failed', j);
      assert.match(r.body.error.message, /cannot be a journal: (a part of its folder path is a file|it is a folder)/, j);
    }
    assert.equal(readFileSync(join(dir, 'ex.metta'), 'utf8'), REFERENCE_EXAMPLE, 'the file in the way is untouched');
  } finally {
    cleanup();
  }
});

// A journal path under a regular file read as "no journal yet" (the path only looked missing).
test('journal reads given a path under a file say so: validation_failed naming the path and the file in the way', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'a.txt'), 'x');
    for (const j of ['a.txt/j.metta', join('a.txt', 'sub', 'j.metta')]) {
      const reads = [
        ['view', j, '--kind', 'audit'],
        ['query', j, '--by', 'id', '--value', 'x'],
        ['derive', j, '--query', '(T a)'],
        ['export', j, '--format', 'packets'],
      ];
      for (const args of reads) {
        const r = await cliJson(dir, 'journal', ...args);
        assert.equal(r.code, 2, `${args[0]} ${j}: ${r.stdout}`);
        assert.equal(r.body.error.code, 'validation_failed', args[0]);
        assert.equal(r.body.error.details.path, j, args[0]);
        assert.match(r.body.error.message, /cannot be a journal: a part of its folder path is a file \(a\.txt; ENOTDIR\)/, args[0]);
      }
    }
    assert.equal(readFileSync(join(dir, 'a.txt'), 'utf8'), 'x', 'the file in the way is untouched');
  } finally {
    cleanup();
  }
});

// A journal path that is a folder answered `unavailable` (exit 7) with Node's "EISDIR: illegal operation on a directory".
test('journal commands given a folder for a journal (or a cluster file) say so: validation_failed naming the path', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const folder = join(dir, 'notes');
    mkdirSync(folder);
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE);
    const reads = [
      ['view', folder, '--kind', 'audit'],
      ['query', folder, '--by', 'id', '--value', 'x'],
      ['derive', folder, '--query', '(T a)'],
      ['export', folder, '--format', 'packets'],
    ];
    for (const args of reads) {
      const r = await cliJson(dir, 'journal', ...args);
      assert.equal(r.code, 2, `${args[0]}: ${r.stdout}`);
      assert.equal(r.body.error.code, 'validation_failed', args[0]);
      assert.equal(r.body.error.details.path, folder, args[0]);
      assert.match(r.body.error.message, /cannot be a journal: it is a folder \(a journal is a file in it, such as .*notes\/journal\.metta\)/, args[0]);
    }
    assert.equal(existsSync(`${folder}.lock`), false, 'no lock file left beside the folder');
    for (const args of [['validate', folder], ['append', join(dir, 'j.metta'), folder]]) {
      const r = await cliJson(dir, 'journal', ...args);
      assert.equal(r.code, 2, `${args[0]}: ${r.stdout}`);
      assert.equal(r.body.error.code, 'validation_failed', args[0]);
      assert.match(r.body.error.message, /notes is a folder, not a cluster file/, args[0]);
    }
    assert.equal(existsSync(join(dir, 'j.metta')), false);
  } finally {
    cleanup();
  }
});

test('journal append of a rejected file creates no folder for the journal', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'junk.metta'), '{}\n');
    writeFileSync(join(dir, 'empty.metta'), '');
    writeFileSync(join(dir, 'bad.metta'), record('mc-bad', 'c-bad', ['(EvidenceSupportCount c-bad -1)']));
    for (const file of ['junk.metta', 'empty.metta', 'bad.metta']) {
      const r = await cliJson(dir, 'journal', 'append', join('new', 'deeper', 'j.metta'), file);
      assert.equal(r.code, 2, `${file}: ${r.stdout}`);
      assert.equal(existsSync(join(dir, 'new')), false, `${file} left a folder behind`);
    }
    writeFileSync(join(dir, 'good.metta'), REFERENCE_EXAMPLE);
    const ok = await cliJson(dir, 'journal', 'append', join('new', 'deeper', 'j.metta'), 'good.metta');
    assert.equal(ok.code, 0, ok.stdout);
    assert.ok(existsSync(join(dir, 'new', 'deeper', 'j.metta')));
  } finally {
    cleanup();
  }
});

test('journal query and view over the CLI', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'ex.metta'), REFERENCE_EXAMPLE + record('mc-q', 'q-1', ['(QuestionText q-1 "when is the release?")', '(About q-1 release)', '(SalienceValue q-1 low)'], 'OpenQuestion'));
    assert.equal((await cli(dir, 'journal', 'append', 'j.metta', 'ex.metta')).code, 0);

    const byAbout = await cliJson(dir, 'journal', 'query', 'j.metta', '--by', 'about', '--value', 'parser');
    assert.equal(byAbout.code, 0, byAbout.stderr);
    assert.deepEqual(byAbout.body.clusters.map((c: { id: string }) => c.id), ['mc-2026-11-29-standup']);
    assert.equal(byAbout.body.clusters[0].text, REFERENCE_EXAMPLE);
    assert.deepEqual((await cliJson(dir, 'journal', 'query', 'j.metta', '--by', 'type', '--value', 'OpenQuestion')).body.clusters.map((c: { id: string }) => c.id), ['mc-q']);
    assert.deepEqual((await cliJson(dir, 'journal', 'query', 'j.metta', '--by', 'status', '--value', 'active')).body.count, 1);
    assert.equal((await cliJson(dir, 'journal', 'query', 'j.metta', '--by', 'id', '--value', 'c-ship-parser', '--limit', '0')).body.count, 0);
    assert.equal((await cli(dir, 'journal', 'query', 'j.metta', '--by', 'color', '--value', 'x')).code, 2);
    assert.equal((await cli(dir, 'journal', 'query', 'j.metta', '--by', 'id')).code, 2);
    assert.equal((await cli(dir, 'journal', 'query', 'j.metta', '--by', 'cluster', '--value', 'mc-q')).stdout.split('\n')[0], ';;; BEGIN MemoryCluster mc-q');
    const none = await cliJson(dir, 'journal', 'query', 'nope.metta', '--by', 'id', '--value', 'x');
    assert.equal(none.code, 0);
    assert.equal(none.body.exists, false);
    assert.match(none.body.message, /no journal/);

    // Prompt view: topic preference puts the release question first; bounded by whole lines.
    const prompt = await cliJson(dir, 'journal', 'view', 'j.metta', '--kind', 'prompt', '--topic', 'release');
    assert.equal(prompt.code, 0, prompt.stderr);
    assert.match(prompt.body.text.split('\n')[0], /q-1/);
    const small = await cliJson(dir, 'journal', 'view', 'j.metta', '--kind', 'prompt', '--max-chars', '60');
    assert.ok(small.body.text.length <= 60);
    assert.ok(small.body.text === '' || small.body.text.endsWith('\n'));
    const audit = await cli(dir, 'journal', 'view', 'j.metta', '--kind', 'audit', '--max-chars', String(REFERENCE_EXAMPLE.length));
    // mc-q, appended last, fits the budget; the older standup record does not fit beside it.
    const newest = (await cliJson(dir, 'journal', 'query', 'j.metta', '--by', 'cluster', '--value', 'mc-q')).body.clusters[0].text;
    assert.equal(audit.stdout, newest, 'audit keeps whole records only, the newest that fit');
    assert.match((await cliJson(dir, 'journal', 'view', 'j.metta', '--kind', 'index')).body.text, /\(MM-index-about parser c-ship-parser mc-2026-11-29-standup\)/);
    assert.doesNotMatch((await cliJson(dir, 'journal', 'view', 'j.metta', '--kind', 'pln-safe')).body.text, /RawUtterance/);
    const negative = await cli(dir, 'journal', 'view', 'j.metta', '--kind', 'audit', '--max-chars', '-1');
    assert.equal(negative.code, 2);
    assert.equal((await cli(dir, 'journal', 'view', 'j.metta', '--kind', 'everything')).code, 2);
  } finally {
    cleanup();
  }
});

test('journal derive: the pinned PLN vector, with a create-once derivation record', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'pln.metta'), PLN_CLUSTER);
    assert.equal((await cli(dir, 'journal', 'append', 'j.metta', 'pln.metta')).code, 0);
    const r = await cliJson(dir, 'journal', 'derive', 'j.metta', '--query', '(T a)', '--record', 'derivation.json');
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.body.answers.length, 1);
    assert.equal(r.body.answers[0].term, '(T a)');
    assert.deepEqual(r.body.answers[0].tv, { s: 0.7600000000000001, c: 0.52 });
    assert.equal(r.body.answers[0].proof, '(rule-proof rule-1 f-1)');
    const saved = JSON.parse(readFileSync(join(dir, 'derivation.json'), 'utf8'));
    assert.equal(saved.checksum, r.body.checksum);
    assert.equal(saved.result.answers[0].proof, '(rule-proof rule-1 f-1)');
    const human = await cli(dir, 'journal', 'derive', 'j.metta', '--query', '(T $x)');
    assert.match(human.stdout, /\(T a\) \(STV 0\.7600000000000001 0\.52\)/);
    // Create-once: the record is never overwritten.
    const twice = await cli(dir, 'journal', 'derive', 'j.metta', '--query', '(T a)', '--record', 'derivation.json');
    assert.equal(twice.code, 5);
    assert.match(twice.stderr, /create-once/);
    // Budget: zero steps derive nothing and say so.
    const zero = await cliJson(dir, 'journal', 'derive', 'j.metta', '--query', '(T a)', '--max-steps', '0');
    assert.equal(zero.body.answers.length, 0);
    assert.equal((await cli(dir, 'journal', 'derive', 'j.metta', '--query', '(T a')).code, 2);
    assert.equal((await cli(dir, 'journal', 'derive', 'missing.metta', '--query', '(T a)')).code, 3);
  } finally {
    cleanup();
  }
});

test('journal export --out to a path that cannot be written is unavailable naming it, not internal', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'pln.metta'), PLN_CLUSTER);
    assert.equal((await cli(dir, 'journal', 'append', 'j.metta', 'pln.metta')).code, 0);
    for (const format of ['pettachainer', 'packets', 'patham9']) {
      for (const out of ['pln.metta/x', join('no', 'such', 'folder', 'x')]) {
        const r = await cliJson(dir, 'journal', 'export', 'j.metta', '--format', format, '--out', out);
        assert.equal(r.code, 7, `${format} ${out}: ${r.stdout}`);
        assert.equal(r.body.error.code, 'unavailable');
        assert.equal(r.body.error.details.path, out);
      }
    }
  } finally {
    cleanup();
  }
});

test('journal export: pettachainer, packets, handoff (create-once) and patham9 with its sidecar', async () => {
  const { dir, cleanup } = tempDir();
  try {
    writeFileSync(join(dir, 'pln.metta'), PLN_CLUSTER);
    assert.equal((await cli(dir, 'journal', 'append', 'j.metta', 'pln.metta')).code, 0);
    const petta = await cli(dir, 'journal', 'export', 'j.metta', '--format', 'pettachainer');
    assert.equal(petta.stdout, '(: f-1 (S a) (STV 0.8 0.6))\n(: rule-1 (Implication (S $x) (T $x)) (STV 0.9 0.8))\n');
    const packets = await cliJson(dir, 'journal', 'export', 'j.metta', '--format', 'packets');
    assert.equal(packets.body.text, '(EvidencePacket (S a) (EC 8 2) ((domain demo) (promotion-rule reviewed)) pe-1)\n');
    const handoff = await cliJson(dir, 'journal', 'export', 'j.metta', '--format', 'handoff', '--out', 'handoff.json');
    assert.equal(handoff.code, 0, handoff.stderr);
    const cache = JSON.parse(readFileSync(join(dir, 'handoff.json'), 'utf8'));
    assert.equal(cache.inferred, false);
    assert.equal(cache.statements.length, 2);
    assert.equal((await cli(dir, 'journal', 'export', 'j.metta', '--format', 'handoff', '--out', 'handoff.json')).code, 5);
    const p9 = await cliJson(dir, 'journal', 'export', 'j.metta', '--format', 'patham9', '--out', 'p9.metta');
    assert.equal(p9.code, 0, p9.stderr);
    assert.equal(readFileSync(join(dir, 'p9.metta'), 'utf8'), '(Sentence ((S a) (stv 0.8 0.6)) (1))\n(Sentence ((Implication (S $x) (T $x)) (stv 0.9 0.8)) (2))\n');
    assert.ok(existsSync(join(dir, 'p9.metta.sidecar.json')));
    assert.equal(JSON.parse(readFileSync(join(dir, 'p9.metta.sidecar.json'), 'utf8'))[0].beliefId, 'f-1');
    assert.equal((await cli(dir, 'journal', 'export', 'j.metta', '--format', 'rdf')).code, 2);
  } finally {
    cleanup();
  }
});
