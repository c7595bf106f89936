import type { Mention } from './extraction.ts';
import { NO_SPACE_SCRIPT, SCRIPTS } from '../retrieval/text/no-space-scripts.ts';

/**
 * Names in scripts without letter case: Chinese, Japanese, Korean, Thai,
 * Arabic, Hebrew, Devanagari and the rest. The capital-letter rule finds
 * nothing there, and guessing word boundaries would need a dictionary
 * (which the offline extractor does not have, and whose answers would change
 * with the ICU version Node ships). So a name is taken only where the
 * writing itself marks both of its ends:
 *
 * - quoting brackets around a short name: 「すし大和」, "ครัวคุณยาย", «بيت الشام»:
 *   not a quoted sentence (clause punctuation, more than four words or 24
 *   characters, 16 in Chinese or Japanese), not speech (after a colon or a
 *   verb of saying, before the Japanese quotative と/って), not all hiragana
 *   (Japanese spells names in kanji or katakana; a hiragana quote is an
 *   utterance), not a clause (a Chinese particle or pronoun, a Japanese
 *   inflected ending); title marks 《》〈〉 hold a title, whatever it says;
 * - a gloss: a capitalised Latin name followed by its spelling in another
 *   script in parentheses, "Bangkok (กรุงเทพ)", which names the same entity;
 * - a name the store already knows, found again anywhere inside a run of a
 *   script written without spaces (unspacedKnownNames), longest first.
 *
 * What it does not find: a name met for the first time in running text
 * without brackets ("王小明说…"), a gloss the other way round ("王小明 (Wang
 * Xiaoming)": where the Chinese name starts is not written), honorific
 * patterns (田中さん, คุณสมชาย: the same), speaker labels ("王小明：…", as often
 * a field label as a person) and relations. The optional LLM extractor can.
 * A quoted term (「重要」) is taken as a name: the brackets say it is one thing.
 */

/** A letter of a script without case (\p{Lo}), or a modifier letter such as ー and 々 (\p{Lm}). */
const UNCASED_LETTER = /[\p{Lo}\p{Lm}]/u;

/** Longest bracketed name, in code points; and longest known name looked for inside a run, in UTF-16 units. */
export const MAX_UNCASED_NAME = 24;

/** The characters a name may hold: uncased letters, marks, digits, name joiners (・ ·), hyphens and apostrophes; up to four words. */
const NAME_SHAPE = /^[\p{Lo}\p{Lm}\p{M}\p{N}・·'’-]+(?: [\p{Lo}\p{Lm}\p{M}\p{N}・·'’-]+){0,3}$/u;
const ALL_HIRAGANA = /^[\p{Script=Hiragana}ー]+$/u;
const ALL_DIGITS = /^[\p{N}\s]+$/u;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
/** Chinese and Japanese names are short: a CJK quote past 16 characters is a phrase. */
const MAX_CJK_NAME = 16;
/**
 * A clause, not a name: a Han character a name almost never holds (particles and pronouns: 了 的 是 我 你 他 吗...),
 * or, in Japanese, a kanji with hiragana ending the quote, the inflected ending of a verb or adjective (行く, 美しい).
 * Like the capitalised rule's list of words that are not names, a short fixed list, not a dictionary.
 */
const CLAUSE_HAN = /[了的是我你他她们們吗嗎呢吧啊很这這那]/u;
const INFLECTED = /\p{Script=Han}\p{Script=Hiragana}+$/u;

/**
 * Whether bracketed text has the shape of a name in an uncased script: no
 * capital letter (the capitalised rule reads those), no clause punctuation,
 * at most four words and 24 characters (16 in Chinese or Japanese), at least
 * two, not all digits or all hiragana, no clause marks (CLAUSE_HAN, INFLECTED).
 */
export function isUncasedName(raw: string): boolean {
  const s = squeeze(raw);
  const chars = [...s].length;
  if (chars < 2 || chars > MAX_UNCASED_NAME) return false;
  if (!NAME_SHAPE.test(s) || !UNCASED_LETTER.test(s) || ALL_DIGITS.test(s) || ALL_HIRAGANA.test(s)) return false;
  return !CJK.test(s) || (chars <= MAX_CJK_NAME && !CLAUSE_HAN.test(s) && !INFLECTED.test(s));
}

/** Spaces inside a name as one plain space, none at its ends. */
function squeeze(raw: string): string {
  return raw.trim().replace(/[ \t\u3000]+/g, ' ');
}

/**
 * A title between title marks (《》 〈〉) is whatever it says, a clause or with a comma (《你好，李焕英》): the
 * marks serve nothing else. Only its length and script are checked: up to 40 characters, an uncased letter, no capitals.
 */
const MAX_TITLE = 40;
function isUncasedTitle(raw: string): boolean {
  const s = squeeze(raw);
  const chars = [...s].length;
  return chars >= 2 && chars <= MAX_TITLE && UNCASED_LETTER.test(s) && !/[\p{Lu}\p{Lt}]/u.test(s);
}

/**
 * Brackets that mark a name's both ends, and what they mark: 《》 and 〈〉 are Chinese marks for titles of works.
 * Not 【】 or 〔〕: they label (【重要】, 【通知】) more often than they name.
 */
const BRACKETS: [open: string, close: string, type: Mention['type']][] = [
  ['「', '」', 'name'],
  ['『', '』', 'name'],
  ['《', '》', 'title'],
  ['〈', '〉', 'title'],
  ['“', '”', 'name'],
  ['"', '"', 'name'],
  ['«', '»', 'name'],
  ['‹', '›', 'name'],
  ['„', '“', 'name'],
];
const escape = (s: string) => s.replace(/[\\^$.*+?()[\]{}|-]/g, '\\$&');
const BRACKET_RES = BRACKETS.map(([open, close, type]) => ({
  // 1..80 characters inside, no line break: a longer quote is never a name, and the shape check refuses it anyway.
  re: new RegExp(`${escape(open)}([^${escape(open)}${escape(close)}\\n\\r]{1,80})${escape(close)}`, 'gu'),
  open,
  type,
}));

/**
 * A quote that is speech, not a name: after a colon or a verb of saying (Chinese 说 问 答, Thai "said/told/asked
 * that", Hindi कहा, Arabic قال, Hebrew אמר), or followed by the Japanese quotative と/って, unless that is
 * と/って + いう or 呼ぶ ("called") or と joining another bracket ("A and B").
 */
const SPEECH_BEFORE = /(?:[:：]|[说說问問答]|พูดว่า|บอกว่า|ถามว่า|ตอบว่า|कहा|बोला|बोली|पूछा|قال|قالت|אמר|אמרה)[\s,，、]*$/u;
const SPEECH_AFTER = /^[ \t]*(?:と|って)(?!いう|いっ|呼|[「『《〈“"])/u;
const CONTEXT = 8;

function isSpeech(text: string, start: number, end: number): boolean {
  return SPEECH_BEFORE.test(text.slice(Math.max(0, start - CONTEXT), start)) || SPEECH_AFTER.test(text.slice(end, end + CONTEXT));
}

/** Names in uncased scripts between quoting brackets; a quote made of Latin letters is the capitalised rules' business. */
export function bracketedNames(text: string): Mention[] {
  const out: Mention[] = [];
  if (!UNCASED_LETTER.test(text)) return out;
  for (const { re, open, type } of BRACKET_RES) {
    if (!text.includes(open)) continue;
    for (const m of text.matchAll(re)) {
      const inner = m[1]!;
      if (type === 'title' ? !isUncasedTitle(inner) : !isUncasedName(inner) || isSpeech(text, m.index!, m.index! + m[0].length)) continue;
      out.push({ name: squeeze(inner), type });
    }
  }
  return out;
}

/** "(กรุงเทพ)" or "（王小明）" right after a name: the uncased spelling inside, or null. */
const GLOSS_RE = /^[ \t]?[(（]([^()（）\n\r]{1,80})[)）]/u;

export function glossAfter(text: string, end: number): string | null {
  // Every capitalised name asks: most are followed by neither bracket.
  const next = text[end] === ' ' || text[end] === '\t' ? text[end + 1] : text[end];
  if (next !== '(' && next !== '（') return null;
  const m = GLOSS_RE.exec(text.slice(end, end + 90));
  if (!m || !isUncasedName(m[1]!)) return null;
  return squeeze(m[1]!);
}

/**
 * A run of letters (and their marks) of the scripts written without spaces between words, the scripts the
 * keyword analyzer cuts into characters (no-space-scripts.ts; Korean among them, its particles joined to the
 * word before): a known name can sit anywhere inside one. Letters only: Script_Extensions also puts CJK
 * punctuation (、。「」) in those scripts.
 */
const UNSPACED_RUN = new RegExp(`(?:(?=[\\p{L}\\p{M}])[${SCRIPTS}])+`, 'gu');
const MARK_AT = /\p{M}/u;

/** The runs of unspaced-script text, each composed as a name key is (NFKC: what normalizeName gives such letters). */
export function unspacedRuns(text: string): string[] {
  // Most text (Latin) has none, and is not normalised whole for nothing.
  if (!NO_SPACE_SCRIPT.test(text)) return [];
  return [...text.normalize('NFKC').matchAll(UNSPACED_RUN)].map((m) => m[0]);
}

/** Whether a piece of a run starting at i and ending before j keeps its letters whole (no mark cut from its letter). */
function wholeAt(run: string, i: number, j: number): boolean {
  return !MARK_AT.test(run[i]!) && (j >= run.length || !MARK_AT.test(run[j]!));
}

/**
 * Every piece of the unspaced runs of a query, 2 to MAX_UNCASED_NAME units long, that keeps its letters whole:
 * the keys a name in the query may have, since nothing says where its words begin. At most `cap` pieces,
 * shortest first, so a long query still looks up its short names (most names are short).
 */
export function unspacedPieces(text: string, cap: number): string[] {
  const out = new Set<string>();
  const runs = unspacedRuns(text);
  for (let len = 2; len <= MAX_UNCASED_NAME; len++) {
    for (const run of runs) {
      for (let i = 0; i + len <= run.length; i++) {
        if (!wholeAt(run, i, i + len)) continue;
        out.add(run.slice(i, i + len));
        if (out.size >= cap) return [...out];
      }
    }
  }
  return [...out];
}

/**
 * Names the store knows found inside unspaced runs, longest first at each
 * place and never overlapping: with 北京 and 北京大学 known, "北京大学" is the
 * university only. Keys are compared as written in the run (NFKC), which is
 * how normalizeName keys letters of these scripts.
 */
export function unspacedKnownNames(text: string, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  if (known.size === 0) return out;
  for (const run of unspacedRuns(text)) {
    for (let i = 0; i < run.length; ) {
      let hit = 0;
      for (let len = Math.min(MAX_UNCASED_NAME, run.length - i); len >= 2; len--) {
        if (known.has(run.slice(i, i + len)) && wholeAt(run, i, i + len)) {
          hit = len;
          break;
        }
      }
      if (hit > 0) {
        out.push(run.slice(i, i + hit));
        i += hit;
      } else i++;
    }
  }
  return out;
}
