import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractRules } from '../../src/graph/extract-rules.ts';
import { isFunctional } from '../../src/graph/extraction.ts';
import { normalizeName } from '../../src/domain/name-keys.ts';
import { resolveMention, type ResolvableEntity } from '../../src/graph/resolve.ts';

test('name normalisation folds honorifics, case, punctuation and diacritics', () => {
  const rows: [string, string][] = [
    ['Dr. Smith', 'smith'],
    ['dr smith', 'smith'],
    ['Smith', 'smith'],
    ['Prof. José Álvarez', 'jose alvarez'],
    ["O'Brien's", "o'brien"],
    ['@Alice_99', '@alice_99'],
  ];
  for (const [raw, want] of rows) assert.equal(normalizeName(raw), want, raw);
});

test('name normalisation folds Latin and Greek accents only: in other scripts a mark is spelling and stays', () => {
  // [one, other, same key?]
  const rows: [string, string, boolean][] = [
    ['Zoë Brontë', 'Zoe Bronte', true],
    ['Ångström', 'angstrom', true],
    ['Ἀθῆναι', 'Αθηναι', true], // Greek breathings and accents
    ['ﬁnn', 'Finn', true], // a compatibility ligature is its letters
    ['กรุงเทพ', 'กรงเทพ', false], // Thai: the vowel sign ุ is a letter's vowel
    ['เชียงใหม่', 'เชียงใหม', false], // Thai: a tone mark
    ['दिल्ली', 'दलल', false], // Devanagari vowel signs
    ['कमल', 'कमला', false],
    ['Май', 'Маи', false], // Cyrillic й is not и
    ['مُحَمَّد', 'محمد', false], // Arabic points are kept, not guessed away
    ['서울', '서울', true], // Hangul survives decomposition whole
  ];
  for (const [a, b, same] of rows) assert.equal(normalizeName(a) === normalizeName(b), same, `${a} / ${b}: ${normalizeName(a)} / ${normalizeName(b)}`);
  // A kept mark stays in place, composed as written: the key is the name, lower-cased.
  const kept: [string, string][] = [
    ['กรุงเทพ', 'กรุงเทพ'],
    ['Dr. दिल्ली', 'दिल्ली'],
    ['서울', '서울'],
  ];
  for (const [raw, want] of kept) assert.equal(normalizeName(raw), want.normalize('NFC'), raw);
});

function ent(id: string, name: string, type = 'name', aliases: string[] = []): ResolvableEntity {
  return { id, name, norm: normalizeName(name), type, aliases, mentions: 1 };
}

test('entity resolution: exact, normalised, alias and similarity; shared first names stay apart', () => {
  const smith = ent('smith', 'Dr. Smith', 'person');
  const johnS = ent('john-smith', 'John Smith', 'person');
  const johnD = ent('john-doe', 'John Doe', 'person');
  const bob = ent('bob', 'Robert Jones', 'person', ['Bobby']);
  const rows: [string, ResolvableEntity[], string][] = [
    ['Dr. Smith', [smith], 'match:smith:exact'],
    ['Smith', [smith], 'match:smith:normalized'],
    ['dr smith', [smith], 'match:smith:normalized'],
    ['DR. SMITH', [smith], 'match:smith:normalized'],
    ['Bobby', [bob], 'match:bob:alias'],
    ['Jones', [bob], 'match:bob:surname'],
    ['Doe', [johnS, johnD], 'match:john-doe:surname'],
    ['John', [johnS, johnD], 'ambiguous'],
    ['John Doe', [johnS], 'new'],
    ['Joan Smith', [johnS], 'new'],
    ['Jonathon Smith', [ent('jonathan', 'Jonathan Smith')], 'match:jonathan:similar'],
    ['John Smith', [smith], 'match:smith:surname'],
    // Once "John Smith" joined "Dr. Smith", the entity is John Smith: another Smith is someone else.
    ['Mary Smith', [{ ...ent('smith', 'Dr. Smith', 'person', ['Dr. Smith']), name: 'John Smith' }], 'new'],
    ['Mary Smith', [ent('smith', 'Dr. Smith', 'person', ['John Smith'])], 'new'],
    ['John Smith', [ent('smith', 'Dr. Smith', 'person', ['John Smith'])], 'match:smith:alias'],
    ['@smith', [smith], 'new'],
  ];
  for (const [name, cands, want] of rows) {
    const r = resolveMention({ name, type: name.startsWith('@') ? 'handle' : 'name' }, cands);
    const got = r.kind === 'match' ? `match:${r.id}:${r.how}` : r.kind;
    assert.equal(got, want, name);
  }
});

test('rule extraction: speakers, handles, quoted titles, dates, names, known names, relations', () => {
  const text = 'Alice: I met Dr. Smith at "The Lost Garden" premiere on 12 March 2024 with @bobby_t.\nLater John Smith works at Acme Corp and Mary is John Smith\'s sister.';
  const ex = extractRules(text);
  const names = ex.mentions.map((m) => `${m.type}:${m.name}`);
  for (const want of ['person:Alice', 'person:Dr. Smith', 'title:The Lost Garden', 'date:12 March 2024', 'handle:@bobby_t', 'name:John Smith', 'name:Acme Corp', 'name:Mary'])
    assert.ok(names.includes(want), `missing ${want} in ${names.join(', ')}`);
  assert.deepEqual(
    ex.relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`).sort(),
    ['John Smith|works_at|Acme Corp', 'Mary|sister_of|John Smith'],
  );
  // A sentence-initial capital is not a name unless the store already knows it.
  assert.ok(!extractRules('Yesterday was long.').mentions.some((m) => m.name === 'Yesterday'));
  assert.ok(extractRules('dr smith called again', new Set(['smith'])).mentions.some((m) => normalizeName(m.name) === 'smith'));
});

// "worked at" was read as works_at: a past employer named after the current one closed the current one.
test('rule extraction: a past employer or home gets a past predicate, which closes nothing', () => {
  const rows: [string, string[]][] = [
    ['Alice Chen works at Globex as a staff engineer.', ['Alice Chen|works_at|Globex']],
    ['Alice Chen worked at Initech for three years before she joined Globex.', ['Alice Chen|worked_at|Initech']],
    ['Alice Chen used to work for Initech.', ['Alice Chen|worked_at|Initech']],
    ['Alice Chen previously worked at Initech.', ['Alice Chen|worked_at|Initech']],
    ['Dana Smith moved to Lisbon last spring.', ['Dana Smith|lives_in|Lisbon']],
    ['Dana Smith lives in Lisbon now.', ['Dana Smith|lives_in|Lisbon']],
    ['Dana Smith lived in Berlin as a student.', ['Dana Smith|lived_in|Berlin']],
    ['Dana Smith used to live in Berlin.', ['Dana Smith|lived_in|Berlin']],
  ];
  for (const [text, want] of rows) assert.deepEqual(extractRules(text).relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`), want, text);
  assert.ok(isFunctional('works_at') && isFunctional('lives_in'));
  assert.ok(!isFunctional('worked_at') && !isFunctional('lived_in'));
});

// "## Team\nAlice Smith leads it" gave the entity "Team Alice Smith": a name ran on across the line break.
test('rule extraction: a name never spans a line break, and a heading opens a line as a sentence does', () => {
  const rows: [string, string[], string[]?][] = [
    ['## Team\nAlice Smith leads it', ['name:Alice Smith']],
    ['# Trip\n\nPacked the tent with Bob Jones.', ['name:Bob Jones']], // across a blank line too
    ['## Trip\rPacked the tent with Bob Jones.', ['name:Bob Jones']], // "\r" line ends
    ['## Trip\r\nPacked the tent with Bob Jones.', ['name:Bob Jones']],
    ['## Day two\nRain all day.', []], // a heading's first word is capitalised as a sentence's is
    ['### Notes\nAlice Smith and Carol Diaz met.', ['name:Alice Smith', 'name:Carol Diaz']],
    ['Team\n====\nAlice Smith leads it', ['name:Alice Smith']], // setext heading
    ['We met Carol\nBob Stone works at Acme Corp', ['name:Carol', 'name:Bob Stone', 'name:Acme Corp'], ['Bob Stone|works_at|Acme Corp']],
    ['# Alice Smith\nleads the team', ['name:Alice Smith']], // a heading may itself be a name
    ['## Acme\nThe team moved.', []], // a lone heading word is not a name unless known
    ['Alice Smith leads the team', ['name:Alice Smith']],
  ];
  for (const [text, want, relations] of rows) {
    const ex = extractRules(text);
    assert.deepEqual(ex.mentions.map((m) => `${m.type}:${m.name}`), want, JSON.stringify(text));
    if (relations) assert.deepEqual(ex.relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`), relations, JSON.stringify(text));
  }
  // A known name is found on its line, not joined across two.
  assert.deepEqual(extractRules('met alice\nsmith called', new Set(['alice smith'])).mentions, []);
  assert.deepEqual(extractRules('## Acme\nThe team moved.', new Set(['acme'])).mentions.map((m) => m.name), ['Acme']);
});

test('known names: not a part of a longer name, longest first, a lower-case word only in lower-case text', () => {
  const known = new Set(['hughes', 'paris', 'alice', 'smith', 'alice smith', 'will', 'new york', 'дмитрий']);
  const rows: [string, string[]][] = [
    // Each also gave the known part as a mention of its own: Bob's memory became evidence for Dr. Hughes.
    ['Bob Hughes plays golf', ['name:Bob Hughes']],
    ['Paris Hilton came by', ['name:Paris Hilton']],
    ['I met Alice Smith in Paris', ['name:Alice Smith', 'name:Paris']],
    ['Hughes called. Then Bob Hughes did', ['name:Hughes', 'name:Bob Hughes']], // a lone Hughes of its own stays
    // Longest first: one name, not three.
    ['met alice smith today', ['name:alice smith']],
    ['smith and alice', ['name:smith', 'name:alice']],
    // A lower-case common word where the text capitalises its names.
    ['We will go to Rome', ['name:Rome']],
    ['will said hi', ['name:will']],
    ['we fly to new york on Monday', ['name:new york']],
    ['Сегодня дмитрий пришёл, Анна тоже', ['name:Анна']],
    ['The Hughes family', ['name:Hughes']],
  ];
  for (const [text, want] of rows) assert.deepEqual(extractRules(text, known).mentions.map((m) => `${m.type}:${m.name}`), want, text);
});

// Terse notes and tasks open with a verb: "Met Alice Smith" was a person called "Met Alice Smith".
test('rule extraction: a verb opening a note is not part of the name after it, and a name called like a verb stays whole', () => {
  const rows: [string, string[], string[]?][] = [
    ['Met Alice Smith yesterday.', ['name:Alice Smith']],
    ['Saw Paris Hilton at the gala.', ['name:Paris Hilton']],
    ['Ask Bob Jones about the budget.', ['name:Bob Jones']],
    ['Called Bob about the invoice.', ['name:Bob']], // no longer opening the sentence, the word's capital is its own
    ['Visited Lisbon with Carla Diaz.', ['name:Lisbon', 'name:Carla Diaz']],
    ['Called the bank.', []], // no name after the verb
    ['Met.', []],
    ['Will Smith called.', ['name:Will Smith']], // verbs that are given names are not dropped
    ['Mark Twain wrote it.', ['name:Mark Twain']],
    ['Grant Hill works at Acme Corp', ['name:Grant Hill', 'name:Acme Corp'], ['Grant Hill|works_at|Acme Corp']],
    ['I met Amber Heard today.', ['name:Amber Heard']], // only leading words go: a surname that is a verb stays
    ['Yesterday Alice Smith called.', ['name:Alice Smith']],
  ];
  for (const [text, want, relations] of rows) {
    const ex = extractRules(text);
    assert.deepEqual(ex.mentions.map((m) => `${m.type}:${m.name}`), want, JSON.stringify(text));
    if (relations) assert.deepEqual(ex.relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`), relations, JSON.stringify(text));
  }
});

// Names with initials gave their last word alone ("J. R. R. Tolkien" was "Tolkien"), or nothing.
test('rule extraction: initials belong to the name, and a full stop before a sentence-opening word ends it', () => {
  const rows: [string, string[], string[]?][] = [
    ['I love J. R. R. Tolkien and his books.', ['name:J. R. R. Tolkien']],
    ['We saw J.R.R. Tolkien in Oxford.', ['name:J.R.R. Tolkien', 'name:Oxford']],
    ['The speech by John F. Kennedy was short.', ['name:John F. Kennedy']],
    ['George R. R. Martin wrote it.', ['name:George R. R. Martin']],
    ['Dr. J. Smith called.', ['person:Dr. J. Smith']],
    ['C. S. Lewis knows J. R. R. Tolkien', ['name:C. S. Lewis', 'name:J. R. R. Tolkien'], ['C. S. Lewis|knows|J. R. R. Tolkien']],
    ['The U.S. Army arrived.', ['name:U.S. Army']],
    // One initial without an honorific or a first name is as often a sentence's end ("plan B."): not a name's
    // start, and the word after it opens a sentence (a lone one counts only when the store knows it).
    ['We went with plan B. Alice agreed.', []],
    ['We met J. Smith there.', []],
    // A word that opens sentences after the initials: their full stop ended one.
    ['Vitamins A. B. Then Carol Hughes came.', ['name:Carol Hughes']],
    ['We chose Plan B. Then Alice left.', ['name:Plan']],
    // A relation's subject is the part nearest its verb, its object the first part.
    ['We took Vitamin C. Then Carol Hughes works at Acme Corp. Then we left', ['name:Vitamin', 'name:Carol Hughes', 'name:Acme Corp'], ['Carol Hughes|works_at|Acme Corp']],
    ['Alice met Bob Jones in Washington D.C. today.', ['name:Bob Jones', 'name:Washington', 'name:Alice'], ['Alice|knows|Bob Jones']],
  ];
  for (const [text, want, relations] of rows) {
    const ex = extractRules(text);
    assert.deepEqual(ex.mentions.map((m) => `${m.type}:${m.name}`), want, JSON.stringify(text));
    if (relations) assert.deepEqual(ex.relations.map((r) => `${r.subject}|${r.predicate}|${r.object}`), relations, JSON.stringify(text));
  }
  // "J. R. R. Tolkien" and "J.R.R. Tolkien" are one name.
  assert.equal(normalizeName('J. R. R. Tolkien'), normalizeName('J.R.R. Tolkien'));
});
