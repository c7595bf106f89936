/**
 * The extraction rules for scripts without letter case (src/graph/uncased-names.ts),
 * row by row: what each finds, and ordinary sentences, speech and labels that must
 * find nothing. Pure rules, no store.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractRules } from '../../src/graph/extract-rules.ts';
import { queryNorms } from '../../src/graph/graph-query.ts';
import { normalizeName } from '../../src/domain/name-keys.ts';

const found = (text: string, known: string[] = []) =>
  extractRules(text, new Set(known.map(normalizeName))).mentions.map((m) => `${m.type}:${m.name}${m.sameAs ? `=${m.sameAs}` : ''}`);

test('uncased scripts: a short name between quoting brackets is a name; title marks give a title', () => {
  const rows: [string, string[]][] = [
    ['ฉันชอบร้าน "ครัวคุณยาย" มาก', ['name:ครัวคุณยาย']], // Thai, ASCII quotes
    ['ร้านชื่อว่า "ครัวคุณยาย" อร่อยมาก', ['name:ครัวคุณยาย']], // "named": ว่า alone is no verb of saying
    ['昨日「すし大和」に行った。', ['name:すし大和']], // Japanese 「」
    ['「スターバックス」で会った', ['name:スターバックス']],
    ['「すし大和」という店', ['name:すし大和']], // という: "called", not speech
    ['「すし大和」と「天ぷら屋」に行った', ['name:すし大和', 'name:天ぷら屋']], // と joining two names
    ['「ジョン・スミス」さんが来た', ['name:ジョン・スミス']],
    ['我们去了“双十一”活动', ['name:双十一']], // Chinese “”
    ['我昨天读完了《三体》，很好看。', ['title:三体']], // Chinese title marks
    ['我看了《我的前半生》', ['title:我的前半生']], // a title may read as a clause
    ['他说：《三体》很好看', ['title:三体']], // a title after a colon is still a title
    ['ذهبنا إلى مطعم «بيت الشام» أمس', ['name:بيت الشام']], // Arabic guillemets, two words
    ['הלכנו למסעדה "הבית של סבתא" אתמול', ['name:הבית של סבתא']], // Hebrew, three words
    ['हम "दिल्ली दरबार" गए', ['name:दिल्ली दरबार']], // Devanagari, vowel signs kept
    ['우리는 "한강 식당"에서 만났다', ['name:한강 식당']], // Korean
  ];
  for (const [text, want] of rows) assert.deepEqual(found(text), want, text);
});

test('uncased scripts: ordinary sentences, speech, clauses and labels give no entities', () => {
  const rows: string[] = [
    '今天天气很好，我们去公园散步了。', // Chinese, no brackets
    'วันนี้อากาศดีมาก เราไปเดินเล่นที่สวน', // Thai
    'क्या तुम कल आओगे? मैं घर पर हूँ।', // Hindi
    'היום מזג האוויר יפה מאוד', // Hebrew
    'الطقس جميل اليوم', // Arabic
    '明日は雨が降るかもしれません。', // Japanese
    '오늘은 날씨가 좋아요', // Korean
    '他说：「明天见」', // speech after a colon
    '他说“好的”', // after a verb of saying
    'เขาพูดว่า "ไปกันเถอะ"', // Thai "he said that"
    'उसने कहा, "चलो घर चलें"', // Hindi "he said"
    'قال: "سأعود غدا"', // Arabic, colon
    'אמר: "אני אחזור מחר"', // Hebrew, colon
    '彼は「ありがとう」と言った。', // Japanese quotative と; all hiragana too
    '彼は「明日行く」と言った。', // quotative, and an inflected ending
    '「美しい」景色だった', // an adjective: kanji with a hiragana ending
    '“美しい”と思った',
    '他觉得“这个方案不行”', // a clause: 这, 不行
    '她问“你吃了吗”', // a question
    '【重要】明日は休み', // a label bracket
    '電話番号「0312345678」', // digits
    '「はい」', // hiragana
    '“好”', // one character
    '他说“这是一个非常非常非常长的句子没有标点符号”', // too long for a CJK name
    '"hello world" and "ok"', // Latin quotes without capitals: not this rule's
    '王小明 (Wang Xiaoming)', // a gloss the other way: where the Chinese name starts is not written
  ];
  for (const text of rows) {
    const got = found(text).filter((m) => !m.startsWith('name:Wang Xiaoming'));
    assert.deepEqual(got, [], text);
  }
});

test('uncased scripts: a parenthesised spelling after a Latin name is the same entity', () => {
  const rows: [string, string[]][] = [
    ['I met Wang Xiaoming (王小明) today', ['name:Wang Xiaoming', 'name:王小明=Wang Xiaoming']],
    ['Bangkok (กรุงเทพมหานคร) is hot', ['name:Bangkok', 'name:กรุงเทพมหานคร=Bangkok']], // a lone word opening a sentence, a name by its gloss
    ['We flew to Seoul（서울）last May', ['name:Seoul', 'name:서울=Seoul']], // full-width parentheses
    ['Bangkok (2019) was hot', []], // not a spelling: the year
    ['I met Wang Xiaoming (他很好) today', ['name:Wang Xiaoming']], // a clause in parentheses
  ];
  for (const [text, want] of rows) assert.deepEqual(found(text), want, text);
});

test('uncased scripts: a known name is found inside text written without spaces, longest first', () => {
  const rows: [string, string[], string[]][] = [
    ['เมื่อวานไปครัวคุณยายอีกแล้ว', ['ครัวคุณยาย'], ['name:ครัวคุณยาย']],
    ['我在北京大学工作', ['北京', '北京大学'], ['name:北京大学']],
    ['我在北京大学工作，北京很冷', ['北京', '北京大学'], ['name:北京大学', 'name:北京']],
    ['すし大和でランチ', ['すし大和'], ['name:すし大和']],
    ['서울에서 만났어요', ['서울'], ['name:서울']], // a Korean particle joined to the name
    ['กรุงเทพฯ ร้อนมาก', ['กรุงเทพ'], ['name:กรุงเทพ']],
    ['กรงเทพ', ['กรุงเทพ'], []], // another spelling (a vowel sign less) is another name
    ['ไปกรุงเทพ', ['กร'], []], // a piece that would cut a vowel sign from its letter is no name
    ['कल दिल्ली में खाना खाया', ['दिल्ली'], ['name:दिल्ली']], // spaced script: whole words, vowel signs in them
    ['عشاء في بيت الشام', ['بيت الشام'], ['name:بيت الشام']],
  ];
  for (const [text, known, want] of rows) assert.deepEqual(found(text, known), want, `${text} knowing ${known.join(', ')}`);
});

test('graph queries: pieces of text written without spaces are looked up, words of spaced scripts whole', () => {
  const thai = queryNorms('ครัวคุณยายเปิดกี่โมง');
  assert.ok(thai.includes('ครัวคุณยาย'), 'the name inside a run without spaces');
  assert.ok(!thai.some((n) => /^\p{M}/u.test(n)), 'no piece starts with a vowel sign cut from its letter');
  assert.ok(thai.includes('ครัวคุณ') && !thai.includes('ครัวค'), 'nor stops before one'); // in ครัวคุณ the vowel sign ุ follows ค
  assert.ok(queryNorms('王小明在哪里工作？').includes('王小明'));
  // Devanagari: a word is not cut at its vowel signs.
  assert.ok(queryNorms('दिल्ली दरबार कहाँ है').includes('दिल्ली दरबार'));
  // A long query is bounded.
  assert.ok(queryNorms('北京上海广州深圳杭州南京成都重庆'.repeat(40)).length <= 2100);
});
