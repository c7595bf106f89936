import type { ExtractedRelation, Extraction, Mention } from './extraction.ts';
import { FOLDED_MARKS, normalizeName } from '../domain/name-keys.ts';
import { hasHonorific, NAME_WORD_BREAK } from './names.ts';
import { bracketedNames, glossAfter, unspacedKnownNames } from './uncased-names.ts';

/**
 * Offline, rule-based extraction: speakers ("Alice: ..."), @handles, quoted
 * titles, dates, capitalised names (with honorifics), names already known to
 * the store (any case), and a few relation patterns. Cheap enough to run on
 * every memory during consolidation. Scripts without letter case have rules
 * of their own (uncased-names.ts): bracketed names, glosses, known names.
 */
/**
 * The version of what these rules find, recorded with every memory the graph
 * indexes (graph_indexed.rules_version). Bump it with any change to this file,
 * uncased-names.ts, names.ts or the name key that finds other names in the
 * same text (a name gained or lost, or cut differently): memories indexed
 * under an older version are stale, and consolidation and `mnemos graph
 * reindex` extract them again. A change that finds the same names (speed,
 * refactoring) keeps the number, so nothing is re-indexed for nothing.
 * 0 is "indexed before versions were recorded" (stores from before schema
 * SQLite 18, PostgreSQL 19). 1: names no longer span a line break, names in
 * scripts without capitals, Devanagari and Thai words whole at vowel signs.
 * 2: a known name inside a longer name of the text is no mention of its own
 * ("Paris" in "Paris Hilton"), and a known one-word name in lower case counts
 * only in text written all in lower case ("will" in "we will go" is a word),
 * and a verb opening a note is not part of the name after it ("Met Alice
 * Smith", "Called Bob"). 3: initials are part of a name ("J. R. R. Tolkien",
 * "John F. Kennedy", "Dr. J. Smith"; "Tolkien" alone before).
 */
export const EXTRACTION_RULES_VERSION = 3;

const MONTHS = 'January|February|March|April|May|June|July|August|September|October|November|December';
/**
 * Space inside a name: never a line break. With \s a Markdown heading joined
 * the next line's name ("## Team\nAlice Smith" gave "Team Alice Smith"), and a
 * line ending in a capitalised word joined the name opening the next one.
 */
const GAP = String.raw`[^\S\r\n\v\f\u0085\u2028\u2029]+`;
/** Capitalised words that are not names on their own. */
const NOT_NAMES = new Set(
  (
    'i the a an and or but if then so we you he she they it this that these those my our your his her their its there here what when where why how who ' +
    'yes no ok okay hi hello thanks thank please also today tomorrow yesterday monday tuesday wednesday thursday friday saturday sunday ' +
    MONTHS.toLowerCase().replaceAll('|', ' ') +
    ' in on at for from to with by of as after before during since until while however meanwhile note later earlier then now first next finally last maybe perhaps sometimes soon recently anyway well oh dear just still only even'
  ).split(' '),
);

/**
 * Verbs that open terse notes and tasks before a name ("Met Alice Smith", "Ask
 * Bob about it", "Visited Lisbon"): the capitalised verb joined the name
 * ("Met Alice Smith" was a person). Only leading words are dropped, and verbs
 * that are also given names or surnames (Will, Mark, Grant, Drew, Sue, Pat,
 * Rob, Bill, Chase, Wade, Heard, Said, Read) are not listed.
 */
const LEADING_VERBS = new Set(
  (
    'ask asked call called email emailed text texted message messaged ping pinged remind reminded tell told meet met visit visited ' +
    'invite invited thank thanked contact contacted follow followed check checked send sent book booked schedule scheduled review reviewed ' +
    'discuss discussed update updated notify notified introduce introduced hire hired pay paid buy bought see saw help helped talk talked ' +
    'reply replied confirm confirmed cancel cancelled canceled add added fix fixed share shared show showed give gave bring brought ' +
    'take took get got make made find found write wrote plan planned prepare prepared join joined welcome welcomed greet greeted ' +
    'interview interviewed phone phoned spoke went came had did'
  ).split(' '),
);

const WORD = String.raw`\p{Lu}[\p{L}'’-]+`;
/** Initials: "J." up to four of them, spaced or not ("J. R. R.", "J.R.R."). */
const initials = (least: number) => String.raw`\p{Lu}\.(?:(?:${GAP})?\p{Lu}\.){${least - 1},3}`;
/**
 * A name: capitalised words, and initials before its last word ("John F.
 * Kennedy", "J. R. R. Tolkien", "Dr. J. Smith"). Initials opening a name
 * without an honorific need two or more: one ("plan B. Alice agreed") is as
 * often a sentence's end. Where initials end a sentence inside such a run
 * ("Vitamins A. B. Then Carol Hughes came") sentenceParts cuts it.
 */
const NAME = String.raw`(?:(?:Dr|Mr|Mrs|Ms|Mx|Prof)\.?${GAP}(?:${initials(1)}${GAP})?|${initials(2)}${GAP})?${WORD}(?:${GAP}(?:${initials(1)}${GAP})?${WORD}){0,3}`;
const NAME_RE = new RegExp(NAME, 'gu');
const SPEAKER_RE = /^\s*(\p{Lu}[\p{L}.'’ -]{0,40}?):\s+\S/gmu;
const HANDLE_RE = /(?<![\w@])@[A-Za-z0-9_]{2,30}\b/g;
const QUOTED_RE = /["“]([^"“”\n]{2,80})["”]/g;
const DATE_RES = [/\b\d{4}-\d{2}-\d{2}\b/g, new RegExp(String.raw`\b\d{1,2}\s+(?:${MONTHS})\s+\d{4}\b`, 'g'), new RegExp(String.raw`\b(?:${MONTHS})\s+\d{1,2},?\s+\d{4}\b`, 'g')];

const FAMILY = 'sister|brother|mother|father|wife|husband|partner|friend|colleague|boss|manager|daughter|son|cousin|aunt|uncle|grandmother|grandfather|mentor|doctor';
/** Each pattern has a cheap hint; a text without it skips the (costly) regex. */
const RELATION_PATTERNS: { hint: RegExp; re: RegExp; build: (m: RegExpExecArray) => ExtractedRelation }[] = [
  { hint: /['’]s /, re: new RegExp(String.raw`(${NAME}) is (${NAME})['’]s (${FAMILY})\b`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: `${m[3]!.toLowerCase()}_of`, object: m[2]! }) },
  { hint: /['’]s /, re: new RegExp(String.raw`(${NAME})['’]s (${FAMILY}),? (?:is )?(${NAME})`, 'gu'), build: (m) => ({ subject: m[3]!, predicate: `${m[2]!.toLowerCase()}_of`, object: m[1]! }) },
  // "worked at" and "lived in" tell of a past state: as works_at/lives_in they closed the current employer
  // or home ("worked at Initech before she joined Globex" made Initech current). They get predicates of their
  // own, which no later relation closes.
  { hint: /work/, re: new RegExp(String.raw`(${NAME}) (?:now )?(?:works|is working|started working) (?:at|for) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'works_at', object: m[2]! }) },
  { hint: /worked|used to work/, re: new RegExp(String.raw`(${NAME}) (?:once |previously |formerly )?(?:worked|used to work) (?:at|for) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'worked_at', object: m[2]! }) },
  { hint: /live|moved|relocated/, re: new RegExp(String.raw`(${NAME}) (?:now )?(?:lives|moved|relocated|has moved) (?:in|to) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'lives_in', object: m[2]! }) },
  { hint: /lived|used to live/, re: new RegExp(String.raw`(${NAME}) (?:once |previously |formerly )?(?:lived|used to live) (?:in|at) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'lived_in', object: m[2]! }) },
  { hint: /married/, re: new RegExp(String.raw`(${NAME}) (?:married|is married to|got married to) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'married_to', object: m[2]! }) },
  { hint: /knows|met/, re: new RegExp(String.raw`(${NAME}) (?:knows|met|meets) (${NAME})`, 'gu'), build: (m) => ({ subject: m[1]!, predicate: 'knows', object: m[2]! }) },
];

/** Initials, then a capitalised word: the word may open a sentence, the initials' last full stop having ended one. */
const AFTER_INITIALS = new RegExp(String.raw`\p{Lu}\.${GAP}(?=(\p{Lu}[\p{L}'’-]*))`, 'gu');
const TRAILING_INITIALS = new RegExp(String.raw`(?:${GAP}?\p{Lu}\.)+${GAP}?$`, 'u');

/**
 * A capitalised run cut where a sentence ends inside it: after initials, at
 * a word that opens sentences or notes ("Vitamins A. B. Then Carol Hughes
 * came" is "Vitamins" and "Then Carol Hughes"), initials left at a part's end
 * dropped; each part with its offset in the run. A look-ahead over these
 * words inside the name pattern made extraction twice as slow.
 */
function sentenceParts(raw: string): { raw: string; at: number }[] {
  if (!raw.includes('.')) return [{ raw, at: 0 }];
  const parts: { raw: string; at: number }[] = [];
  let from = 0;
  for (const m of raw.matchAll(AFTER_INITIALS)) {
    const word = m[1]!.toLowerCase();
    if (!NOT_NAMES.has(word) && !LEADING_VERBS.has(word)) continue;
    const cut = m.index! + m[0].length;
    parts.push({ raw: raw.slice(from, cut), at: from });
    from = cut;
  }
  parts.push({ raw: raw.slice(from), at: from });
  return parts.map((p) => ({ raw: p.raw.replace(TRAILING_INITIALS, ''), at: p.at })).filter((p) => p.raw.trim() !== '');
}

/**
 * The name in a capitalised run, without the sentence-start words around it.
 * `side` picks the part of a run a sentence end cuts: a relation's subject is
 * the part nearest its verb, the last; its object the first.
 */
function cleanName(raw: string, side: 'first' | 'last' = 'first'): string | null {
  const parts = sentenceParts(raw);
  const part = side === 'first' ? parts[0] : parts[parts.length - 1];
  return part ? (nameIn(part.raw)?.name ?? null) : null;
}

function nameIn(raw: string): { name: string; verb: boolean } | null {
  const words = raw.trim().split(/\s+/);
  // Leading capitalised function words ("The", "When") are sentence starts, not names.
  while (words.length > 0 && NOT_NAMES.has(words[0]!.toLowerCase())) words.shift();
  let verb = false;
  // A verb before a name: only with a name after it ("Called the bank" has none; a lone "Met" is no name either way).
  while (words.length > 1 && LEADING_VERBS.has(words[0]!.toLowerCase())) {
    words.shift();
    verb = true;
  }
  while (words.length > 0 && NOT_NAMES.has(words[words.length - 1]!.toLowerCase())) words.pop();
  if (words.length === 0) return null;
  const name = words.join(' ').replace(/['’]s$/, '');
  return normalizeName(name).length >= 2 ? { name, verb } : null;
}

/** How far back a line's opening (indent, a heading's #s) is looked for: a name further in is not at a line start. */
const LINE_OPENING = 12;

function isSentenceStart(text: string, index: number): boolean {
  const before = text.slice(Math.max(0, index - 3), index);
  if (index === 0 || /(^|[.!?:\n]\s*|^\s*)$/.test(before)) return true;
  // The first word of a line, or of a Markdown heading ("## Day two"), is capitalised as a sentence's is.
  // Lines end at "\r" too (files saved with classic Mac line ends), where "## Trip\rPacked" made "Packed" a name.
  const from = Math.max(0, index - LINE_OPENING);
  const window = text.slice(from, index);
  const lineBreak = Math.max(window.lastIndexOf('\n'), window.lastIndexOf('\r'));
  if (lineBreak < 0 && from > 0) return false;
  return /^[ \t]*(?:#{1,6}[ \t]+)?$/.test(window.slice(lineBreak + 1));
}

const ASCII = /^[\x00-\x7f]*$/;

/** Written in lower-case letters: a script with letter case and no capital (Chinese or Thai has no case, so never). */
function isLowerCase(s: string): boolean {
  return /\p{Ll}/u.test(s) && !/[\p{Lu}\p{Lt}]/u.test(s);
}

/** Strips what normalizeName strips at the edges of a lower-case key (possessive, quotes), without Unicode folding. */
function normalizeCheap(key: string): string {
  return key.replace(/['’]s$/, '').replace(/^['’-]+|['’-]+$/g, '');
}

export function extractRules(text: string, known: ReadonlySet<string> = new Set()): Extraction {
  const mentions: Mention[] = [];
  const seen = new Set<string>();
  const add = (name: string, type: Mention['type'], sameAs?: string) => {
    const key = `${type}|${name}`;
    if (seen.has(key)) return;
    seen.add(key);
    mentions.push(sameAs === undefined ? { name, type } : { name, type, sameAs });
  };
  for (const m of text.matchAll(SPEAKER_RE)) {
    const n = cleanName(m[1]!);
    if (n) add(n, 'person');
  }
  for (const m of text.matchAll(HANDLE_RE)) add(m[0], 'handle');
  for (const m of text.matchAll(QUOTED_RE)) if (/^\p{Lu}/u.test(m[1]!)) add(m[1]!.trim(), 'title');
  for (const re of DATE_RES) for (const m of text.matchAll(re)) add(m[0], 'date');
  for (const n of bracketedNames(text)) add(n.name, n.type);
  for (const m of text.matchAll(NAME_RE)) {
    for (const part of sentenceParts(m[0])) {
      const raw = part.raw;
      const at = m.index! + part.at;
      const found = nameIn(raw);
      if (!found) continue;
      const { name, verb } = found;
      const single = !name.includes(' ');
      // "Bangkok (กรุงเทพ)": a spelling in another script says the word is a name, even opening a sentence.
      const gloss = glossAfter(text, at + raw.length);
      // A lone capitalised word opening a sentence is too often not a name, unless the store knows it. After a
      // leading verb ("Called Bob about it") the word no longer opens the sentence: its capital is its own.
      if (single && !verb && !gloss && !hasHonorific(raw) && isSentenceStart(text, at) && !known.has(normalizeName(name))) continue;
      const full = hasHonorific(raw) ? raw.trim() : name;
      add(full, hasHonorific(raw) ? 'person' : 'name');
      if (gloss) add(gloss, 'name', full);
    }
  }

  // Known names in any case ("dr smith" in a lower-case chat line).
  if (known.size > 0) {
    const found = new Set([...seen].map((s) => normalizeName(s.slice(s.indexOf('|') + 1))));
    // Found before any known name is: the names the text itself marks (capitals, brackets, handles...).
    const marked = [...found].filter((n) => n.includes(' ')).map((n) => ` ${n} `);
    const lowerCaseText = !/\p{Lu}/u.test(text);
    /** Whether the phrase is a known name here (found now or before). */
    const addKnown = (phrase: string): boolean => {
      const norm = normalizeName(phrase);
      if (!norm || !known.has(norm) || NOT_NAMES.has(norm)) return false;
      // Part of a longer name the text marks: "Smith" of "Bob Smith" or "Paris" of "Paris Hilton" is not another
      // entity met here (each made Bob's memory evidence for Dr. Smith, Paris Hilton's for the city).
      if (marked.some((n) => n.includes(` ${norm} `))) return false;
      // A lower-case word where the text capitalises its names is a word: "will" in "we will go" is not Will.
      if (!lowerCaseText && !norm.includes(' ') && isLowerCase(phrase)) return false;
      if (!found.has(norm)) {
        found.add(norm);
        add(phrase, 'name');
      }
      return true;
    };
    // Line by line: a name does not run on into the next line.
    for (const line of text.split(/[\r\n]+/)) {
      const words = line.split(NAME_WORD_BREAK).filter(Boolean);
      // A cheap key first (lower-case words, decomposed Latin and Greek accents dropped by the name key's own FOLDED_MARKS); the
      // full normalisation runs only on a hit. This loop sees every memory of a run.
      const lower = words.map((w) => normalizeCheap(ASCII.test(w) ? w.toLowerCase() : w.toLowerCase().replace(FOLDED_MARKS, '$1')));
      // Longest first, never overlapping: "alice smith" is Alice Smith, not Alice and Smith too.
      for (let i = 0; i < words.length; ) {
        const keys = [lower[i]!];
        for (let len = 2; len <= 3 && i + len <= words.length; len++) keys.push(`${keys[len - 2]} ${lower[i + len - 1]}`);
        let len = keys.length;
        while (len > 0 && !(known.has(keys[len - 1]!) && addKnown(words.slice(i, i + len).join(' ')))) len--;
        i += Math.max(len, 1);
      }
    }
    // Chinese, Japanese, Thai...: no spaces tell where a known name starts; it is looked for inside the run.
    for (const name of unspacedKnownNames(text, known)) addKnown(name);
  }
  const relations: ExtractedRelation[] = [];
  const hasCapital = /\p{Lu}/u.test(text);
  for (const { hint, re, build } of RELATION_PATTERNS) {
    if (!hasCapital || !hint.test(text)) continue;
    for (const m of text.matchAll(re)) {
      const r = build(m);
      const subject = cleanName(r.subject, 'last');
      const object = cleanName(r.object, 'first');
      if (!subject || !object || normalizeName(subject) === normalizeName(object)) continue;
      relations.push({ subject, predicate: r.predicate, object });
      add(subject, 'name');
      add(object, 'name');
    }
  }
  return { mentions, relations };
}
