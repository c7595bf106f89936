import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tokenize } from '../../src/retrieval/text/tokenize.ts';
import { ENGLISH_STOP_WORDS, QUERY_FRAME_WORDS } from '../../src/retrieval/text/stop-words.ts';
import { analyze, analyzeQuery } from '../../src/retrieval/text/analyze.ts';

test('tokenize: Unicode-aware lower-casing, splitting, numbers, possessives', () => {
  const cases: Array<[string, string[]]> = [
    ['Hello, World!', ['hello', 'world']],
    ["Caroline's kids don't", ['caroline', 'kids', 'dont']],
    ['Caroline’s café', ['caroline', 'café']],
    ['3.5 km and 1,000 people', ['3.5', 'km', 'and', '1000', 'people']],
    ['IL-6/TNF-α levels', ['il', '6', 'tnf', 'α', 'levels']],
    ['Naïve ÉCOLE Straße', ['naïve', 'école', 'straße']],
    ['ｆｕｌｌｗｉｄｔｈ ２０２３', ['fullwidth', '2023']],
    ['end. Next', ['end', 'next']],
    ['a,b', ['a', 'b']],
    ['', []],
    ['  —  ', []],
  ];
  for (const [text, tokens] of cases) assert.deepEqual(tokenize(text), tokens, text);
});

test("stop words are Lucene's classic 33-word English set", () => {
  assert.equal(ENGLISH_STOP_WORDS.size, 33);
  for (const w of ['the', 'a', 'will', 'such', 'into', 'their']) assert.ok(ENGLISH_STOP_WORDS.has(w), w);
  for (const w of ['i', 'you', 'what', 'have']) assert.ok(!ENGLISH_STOP_WORDS.has(w), w);
});

test('analyze: tokenize, drop stop words, Porter stem; duplicates kept', () => {
  const cases: Array<[string, string[]]> = [
    ['The running dogs are running', ['run', 'dog', 'run']],
    ['Melanie said, "I painted a sunrise"', ['melani', 'said', 'i', 'paint', 'sunris']],
    ['What did Caroline research?', ['what', 'did', 'carolin', 'research']],
  ];
  for (const [text, terms] of cases) assert.deepEqual(analyze(text), terms, text);
});

test('analyzeQuery also drops question-frame words, and only those', () => {
  assert.deepEqual(analyzeQuery('What did Caroline research?'), ['carolin', 'research']);
  assert.deepEqual(analyzeQuery('What kind of pot did Mel make?'), ['pot', 'mel', 'make']);
  assert.deepEqual(analyzeQuery('Vitamin D deficiency increases risk'), analyze('Vitamin D deficiency increases risk'));
  for (const w of QUERY_FRAME_WORDS) assert.deepEqual(analyzeQuery(w), [], w);
});
