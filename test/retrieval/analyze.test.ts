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

test('scripts without spaces: a document gives each character and each pair, a query only its pairs', () => {
  assert.deepEqual(tokenize('東京タワー'), ['東', '東京', '京', '京タ', 'タ', 'タワ', 'ワ', 'ワー', 'ー']);
  assert.deepEqual(tokenize('東京タワー', true), ['東京', '京タ', 'タワ', 'ワー']);
  assert.deepEqual(tokenize('猫', true), ['猫'], 'a one-character query is that character');
  // Latin letters and digits inside the run stay words of their own; spaces and punctuation end a run.
  assert.deepEqual(tokenize('iPhone買った、2024年', true), ['iphone', '買っ', 'った', '2024', '年']);
  assert.deepEqual(tokenize('서울에 갔어요', true), ['서울', '울에', '갔어', '어요']);
  // A Thai vowel or tone mark stays with the letter before it.
  assert.deepEqual(tokenize('ที่นี่'), ['ที่', 'ที่นี่', 'นี่']);
  // Half-width katakana meet full-width (NFKC), at index and query time alike.
  assert.deepEqual(tokenize('ﾀﾜｰ', true), tokenize('タワー', true));
  assert.deepEqual(analyzeQuery('東京に行きました'), ['東京', '京に', 'に行', '行き', 'きま', 'まし', 'した']);
  for (const q of analyzeQuery('東京タワー')) assert.ok(analyze('昨日東京タワーに行った').includes(q), q);
});

test('Turkish İ folds to plain i, and other marks stay', () => {
  assert.deepEqual(tokenize('Flight to İSTANBUL'), ['flight', 'to', 'istanbul']);
  assert.deepEqual(tokenize('I\u0307STANBUL'), ['istanbul'], 'İ written as I plus a combining dot');
  assert.deepEqual(tokenize('İzmir ıspanak café'), ['izmir', 'ıspanak', 'café']);
});
