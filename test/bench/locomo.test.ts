import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { cleanEvidence, loadLocomo, parseLocomo, turnDocument, type LocomoConversation } from '../../src/bench/locomo.ts';
import { parseLocomoDate } from '../../src/bench/locomo-dates.ts';
import { recallAtK, runLocomo, summariseLocomo } from '../../src/bench/locomo-harness.ts';
import { locomoPlainBm25Search, locomoSearch, sessionSequences } from '../../src/bench/locomo-search.ts';
import { BuiltinEmbedder } from '../../src/embedding/builtin/builtin-embedder.ts';
import type { LocomoTurn } from '../../src/bench/locomo.ts';
import { MnemosError } from '../../src/domain/errors.ts';

// The data is read where the project keeps it, never copied into the repository.
const LOCOMO = resolve(process.cwd(), '../shared/datasets/locomo/locomo10.json');
const skip = existsSync(LOCOMO) ? false : `LoCoMo not found at ${LOCOMO}`;

test('evidence cleaning: split, repair, canonicalise, de-duplicate', () => {
  const cases: Array<[string[], string[]]> = [
    [['D1:3'], ['D1:3']],
    [['D8:6; D9:17'], ['D8:6', 'D9:17']],
    [['D9:1 D4:4 D4:6'], ['D9:1', 'D4:4', 'D4:6']],
    [['D:11:26'], ['D11:26']],
    [['D30:05'], ['D30:5']],
    [['D1:3', 'D1:3,D1:4'], ['D1:3', 'D1:4']],
    [['D'], []],
    [[''], []],
  ];
  for (const [raw, clean] of cases) assert.deepEqual(cleanEvidence(raw), clean, raw.join('|'));
});

test('session dates parse to UTC; turn documents follow the paper', () => {
  const cases: Array<[string, string]> = [
    ['1:56 pm on 8 May, 2023', '2023-05-08T13:56:00.000Z'],
    ['12:09 am on 13 September, 2023', '2023-09-13T00:09:00.000Z'],
    ['12:30 pm on 1 January 2022', '2022-01-01T12:30:00.000Z'],
  ];
  for (const [text, iso] of cases) assert.equal(parseLocomoDate(text), iso);
  assert.throws(() => parseLocomoDate('yesterday'), (e: unknown) => MnemosError.is(e, 'validation_failed'));
  assert.equal(turnDocument('Mel', 'Look!', null), 'Mel said, "Look!"');
  assert.equal(turnDocument('Mel', 'Look!', 'a photo of a lake'), 'Mel said, "Look!" and shared a photo of a lake');
});

test('parseLocomo: drops evidence naming no turn and questions left without any', () => {
  const [conv] = parseLocomo([
    {
      sample_id: 's',
      conversation: {
        speaker_a: 'A',
        speaker_b: 'B',
        session_1_date_time: '1:00 pm on 2 May, 2023',
        session_1: [{ speaker: 'A', dia_id: 'D1:1', text: 'hi' }, { speaker: 'B', dia_id: 'D1:2', text: 'yo', blip_caption: 'a cat' }],
        session_2_date_time: '1:00 pm on 3 May, 2023', // a date without a session is ignored
      },
      qa: [
        { question: 'q1', answer: 'x', evidence: ['D1:2', 'D9:9'], category: 4 },
        { question: 'q2', adversarial_answer: 'y', evidence: ['D'], category: 5 },
      ],
    },
  ]);
  assert.equal(conv!.turns.length, 2);
  assert.equal(conv!.turns[1]!.document, 'B said, "yo" and shared a cat');
  assert.deepEqual(conv!.questions, [{ question: 'q1', category: 'single-hop', evidence: ['D1:2'] }]);
  assert.equal(conv!.dropped, 1);
  assert.throws(() => parseLocomo({}), (e: unknown) => MnemosError.is(e, 'validation_failed'));
});

test('recall@k and the report shape', () => {
  assert.equal(recallAtK(['a', 'b', 'c'], ['b', 'z'], 2), 0.5);
  assert.equal(recallAtK(['a'], [], 5), 0);
  const report = summariseLocomo([
    { sampleId: 's', question: 'q', category: 'temporal', evidence: ['a'], ranked: ['a'], recall: { '5': 1, '10': 1 }, ms: 2 },
    { sampleId: 's', question: 'q', category: 'adversarial', evidence: ['a'], ranked: [], recall: { '5': 0, '10': 0.5 }, ms: 4 },
  ], [5, 10]);
  assert.deepEqual(report.recall, { '5': 0.5, '10': 0.75 });
  assert.deepEqual(Object.keys(report.byCategory), ['single-hop', 'multi-hop', 'temporal', 'open-domain', 'adversarial']);
  assert.deepEqual(report.byCategory.temporal, { '5': 1, '10': 1 });
  assert.deepEqual(report.msPerQuery, { p50: 2, p95: 4 });
});

test('the full file: 5,882 turns, 1,982 questions, categories by count', { skip }, async () => {
  const convs = await loadLocomo(LOCOMO);
  assert.equal(convs.length, 10);
  assert.equal(convs.reduce((s, c) => s + c.turns.length, 0), 5882);
  assert.equal(convs.reduce((s, c) => s + c.questions.length, 0), 1982);
  const byCategory: Record<string, number> = {};
  for (const c of convs) for (const q of c.questions) byCategory[q.category] = (byCategory[q.category] ?? 0) + 1;
  assert.deepEqual(byCategory, { temporal: 321, 'open-domain': 92, 'multi-hop': 282, 'single-hop': 841, adversarial: 446 });
});

test('LoCoMo slice (first two conversations): recall floors just under the measured figures', { skip }, async () => {
  const convs: LocomoConversation[] = (await loadLocomo(LOCOMO)).slice(0, 2);
  // Train once per conversation and share it between the vector and hybrid runs.
  const trained = new Map<string, BuiltinEmbedder>();
  const embedderFor = (turns: readonly LocomoTurn[]): BuiltinEmbedder => {
    const key = `${turns[0]!.id}/${turns.length}/${turns[0]!.text}`;
    if (!trained.has(key)) trained.set(key, BuiltinEmbedder.train(sessionSequences(turns)));
    return trained.get(key)!;
  };
  // Measured (recall@5/@10): plain 0.559/0.614, keyword 0.653/0.753, vector 0.657/0.770, hybrid 0.681/0.771/0.853/0.912.
  const floors: Array<[string, Parameters<typeof runLocomo>[1], Record<string, number>]> = [
    ['plain BM25', locomoPlainBm25Search(), { '5': 0.55, '10': 0.605 }],
    ['keyword', locomoSearch({ mode: 'keyword' }), { '5': 0.645, '10': 0.745 }],
    ['vector', locomoSearch({ mode: 'vector', embedderFor }), { '5': 0.645, '10': 0.76 }],
    ['hybrid', locomoSearch({ mode: 'hybrid', embedderFor }), { '5': 0.67, '10': 0.76, '25': 0.845, '50': 0.9 }],
  ];
  const reports: Record<string, Record<string, number>> = {};
  for (const [name, search, floor] of floors) {
    const { report } = await runLocomo(convs, search);
    assert.equal(report.questions, 302);
    reports[name] = report.recall;
    for (const [k, min] of Object.entries(floor)) assert.ok(report.recall[k]! >= min, `${name} recall@${k} = ${report.recall[k]} < ${min}`);
  }
  assert.ok(reports['hybrid']!['5']! > reports['keyword']!['5']!, 'the embedder adds recall on top of keyword search');
});
