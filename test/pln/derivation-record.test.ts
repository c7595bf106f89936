import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MnemosError } from '../../src/domain/errors.ts';
import { canonicalJson, sha256Hex } from '../../src/domain/hash.ts';
import { parseOneAtom } from '../../src/journal/metta/parser.ts';
import { deriveWithRecord, loadDerivationRecord, PLN_ENGINE_VERSION, saveDerivationRecord, type DerivationRecord } from '../../src/pln/derivation-record.ts';
import { stv } from '../../src/pln/truth.ts';
import { tempDir } from '../journal/fixtures/example.ts';

const t = (text: string) => parseOneAtom(text);
const facts = [{ id: 'f1', term: t('(S a)'), tv: stv(0.8, 0.6), stamp: [1] }];
const rules = [{ id: 'r1', premise: t('(S $x)'), conclusion: t('(T $x)'), tv: stv(0.9, 0.8), stamp: [2] }];

function pinned(): DerivationRecord {
  return deriveWithRecord(t('(T a)'), facts, rules, { maxSteps: 10 }, '2026-01-05T00:00:00Z').record;
}

test('the record holds inputs with digests, budget, engine version and the pinned result', () => {
  const record = pinned();
  assert.equal(record.engineVersion, PLN_ENGINE_VERSION);
  assert.deepEqual(record.budget, { maxSteps: 10, maxFacts: 10_000, formula: 'total-mp' });
  assert.deepEqual(record.result.answers, [{ term: '(T a)', tv: { s: 0.7600000000000001, c: 0.52 }, proof: '(rule-proof r1 f1)', stamp: [1, 2] }]);
  const { digest, ...fact } = record.facts[0]!;
  assert.equal(digest, sha256Hex(canonicalJson(fact)));
  const { checksum, ...body } = record;
  assert.equal(checksum, sha256Hex(canonicalJson(body)));
});

test('saved once, loaded and verified; a second save to the same path is refused', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'd.json');
    const record = pinned();
    saveDerivationRecord(path, record);
    assert.deepEqual(loadDerivationRecord(path), record);
    assert.throws(() => saveDerivationRecord(path, record), (e: unknown) => MnemosError.is(e, 'conflict'));
    assert.deepEqual(JSON.parse(readFileSync(path, 'utf8')), record, 'the original stays');
  } finally {
    cleanup();
  }
});

const tampering: Array<[string, (r: DerivationRecord) => unknown, RegExp]> = [
  ['result edited', (r) => ({ ...r, result: { ...r.result, answers: [{ ...r.result.answers[0]!, tv: { s: 0.9, c: 0.9 } }] } }), /checksum/],
  ['input edited with the checksum recomputed', (r) => reseal({ ...r, facts: [{ ...r.facts[0]!, tv: { s: 0.1, c: 0.6 } }] }), /does not match its digest/],
  ['input and digest edited, checksum recomputed', (r) => reseal({ ...r, facts: [redigest({ ...r.facts[0]!, tv: { s: 0.1, c: 0.6 } })] }), /different result/],
  ['budget lowered, checksum recomputed', (r) => reseal({ ...r, budget: { ...r.budget, maxSteps: 0 } }), /different result/],
  ['unknown field', (r) => ({ ...r, extra: 1 }), /shape/],
  ['wrong schema', (r) => ({ ...r, schema: 'other' }), /shape/],
];
for (const [name, mutate, message] of tampering) {
  test(`tampering is detected on load: ${name}`, () => {
    const { dir, cleanup } = tempDir();
    try {
      const path = join(dir, 'd.json');
      writeFileSync(path, JSON.stringify(mutate(pinned())));
      assert.throws(() => loadDerivationRecord(path), (e: unknown) => MnemosError.is(e, 'corrupt') && message.test(e.message));
    } finally {
      cleanup();
    }
  });
}

test('a missing record is not_found; unreadable JSON is corrupt', () => {
  const { dir, cleanup } = tempDir();
  try {
    const path = join(dir, 'd.json');
    assert.throws(() => loadDerivationRecord(path), (e: unknown) => MnemosError.is(e, 'not_found'));
    writeFileSync(path, '{not json');
    assert.throws(() => loadDerivationRecord(path), (e: unknown) => MnemosError.is(e, 'corrupt'));
  } finally {
    cleanup();
  }
});

function reseal(r: DerivationRecord): DerivationRecord {
  const { checksum: _old, ...body } = r;
  return { ...body, checksum: sha256Hex(canonicalJson(body)) };
}

function redigest<T extends { digest: string }>(input: T): T {
  const { digest: _old, ...rest } = input;
  return { ...input, digest: sha256Hex(canonicalJson(rest)) };
}

test('evidence ids are recorded and replayed: a record that relied on them verifies, and dropping them is detected', () => {
  const shared = [
    { id: 'b1', term: t('(T a)'), tv: stv(0.9, 0.5), stamp: [1], evidence: ['o-1'] },
    { id: 'b2', term: t('(T a)'), tv: stv(0.9, 0.5), stamp: [2], evidence: ['o-1'] },
  ];
  const { record } = deriveWithRecord(t('(T a)'), shared, [], { maxSteps: 0 }, '2026-01-05T00:00:00Z');
  assert.deepEqual(record.facts.map((f) => f.evidence), [['o-1'], ['o-1']]);
  assert.deepEqual(record.result.answers[0]!.tv, { s: 0.9, c: 0.5 });
  const { dir, cleanup } = tempDir();
  try {
    saveDerivationRecord(join(dir, 'ok.json'), record);
    assert.deepEqual(loadDerivationRecord(join(dir, 'ok.json')), record);
    const stripped = reseal({ ...record, facts: record.facts.map(({ evidence: _e, ...f }) => redigest(f)) });
    writeFileSync(join(dir, 'bad.json'), JSON.stringify(stripped));
    assert.throws(() => loadDerivationRecord(join(dir, 'bad.json')), (e: unknown) => MnemosError.is(e, 'corrupt') && /different result/.test(e.message));
  } finally {
    cleanup();
  }
  // Inputs without evidence are written exactly as before, so older records keep their digests.
  assert.equal('evidence' in pinned().facts[0]!, false);
});
