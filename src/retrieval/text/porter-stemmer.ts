/**
 * The Porter stemmer (M. F. Porter, "An algorithm for suffix stripping", 1980),
 * following the author's reference implementation, which is what Lucene's
 * PorterStemFilter runs. That reference departs from the paper in three small,
 * documented ways, kept here so our terms equal Lucene's:
 *   - words of one or two letters are left alone;
 *   - step 2 maps "-bli" to "-ble" (the paper has "-abli" -> "-able");
 *   - step 2 also maps "-logi" to "-log".
 * The word is lower-case; any character other than a, e, i, o, u (and a "y"
 * that follows a consonant) counts as a consonant, as in the reference.
 */

/** Mutable working state of one stemming run: the buffer `b`, its end `k`, and the stem end `j`. */
class Stem {
  b: string;
  k: number;
  j = 0;

  constructor(word: string) {
    this.b = word;
    this.k = word.length - 1;
  }

  /** True when b[i] is a consonant. */
  cons(i: number): boolean {
    const ch = this.b[i];
    if (ch === 'a' || ch === 'e' || ch === 'i' || ch === 'o' || ch === 'u') return false;
    if (ch === 'y') return i === 0 ? true : !this.cons(i - 1);
    return true;
  }

  /** The measure m of b[0..j]: the number of vowel-consonant sequences, [C](VC)^m[V]. */
  m(): number {
    let n = 0;
    let i = 0;
    const j = this.j;
    while (true) {
      if (i > j) return n;
      if (!this.cons(i)) break;
      i++;
    }
    i++;
    while (true) {
      while (true) {
        if (i > j) return n;
        if (this.cons(i)) break;
        i++;
      }
      i++;
      n++;
      while (true) {
        if (i > j) return n;
        if (!this.cons(i)) break;
        i++;
      }
      i++;
    }
  }

  /** b[0..j] contains a vowel. */
  vowelInStem(): boolean {
    for (let i = 0; i <= this.j; i++) if (!this.cons(i)) return true;
    return false;
  }

  /** b[i-1..i] is a double consonant. */
  doubleC(i: number): boolean {
    return i >= 1 && this.b[i] === this.b[i - 1] && this.cons(i);
  }

  /** b[i-2..i] is consonant-vowel-consonant and the last is not w, x or y (e.g. "hop", not "snow"). */
  cvc(i: number): boolean {
    if (i < 2 || !this.cons(i) || this.cons(i - 1) || !this.cons(i - 2)) return false;
    const ch = this.b[i];
    return ch !== 'w' && ch !== 'x' && ch !== 'y';
  }

  /** b[0..k] ends with s; on success j marks the end of the stem before it. */
  ends(s: string): boolean {
    const len = s.length;
    if (len > this.k + 1) return false;
    if (this.b.slice(this.k - len + 1, this.k + 1) !== s) return false;
    this.j = this.k - len;
    return true;
  }

  /** Replace b[j+1..k] with s. */
  setTo(s: string): void {
    this.b = this.b.slice(0, this.j + 1) + s + this.b.slice(this.k + 1);
    this.k = this.j + s.length;
  }

  /** setTo(s) when the stem has m > 0. */
  r(s: string): void {
    if (this.m() > 0) this.setTo(s);
  }

  result(): string {
    return this.b.slice(0, this.k + 1);
  }
}

/** Step 1a and 1b: plurals, -ed and -ing. */
function step1ab(z: Stem): void {
  if (z.b[z.k] === 's') {
    if (z.ends('sses')) z.k -= 2;
    else if (z.ends('ies')) z.setTo('i');
    else if (z.b[z.k - 1] !== 's') z.k--;
  }
  if (z.ends('eed')) {
    if (z.m() > 0) z.k--;
  } else if ((z.ends('ed') || z.ends('ing')) && z.vowelInStem()) {
    z.k = z.j;
    if (z.ends('at')) z.setTo('ate');
    else if (z.ends('bl')) z.setTo('ble');
    else if (z.ends('iz')) z.setTo('ize');
    else if (z.doubleC(z.k)) {
      const ch = z.b[z.k];
      if (ch !== 'l' && ch !== 's' && ch !== 'z') z.k--;
    } else {
      z.j = z.k;
      if (z.m() === 1 && z.cvc(z.k)) z.setTo('e');
    }
  }
}

/** Step 1c: terminal y -> i when the stem has a vowel. */
function step1c(z: Stem): void {
  if (z.ends('y') && z.vowelInStem()) z.b = z.b.slice(0, z.k) + 'i' + z.b.slice(z.k + 1);
}

/** Suffix tables for steps 2 to 4, keyed by the letter the reference switches on. First match wins. */
const STEP2: Record<string, ReadonlyArray<readonly [string, string]>> = {
  a: [['ational', 'ate'], ['tional', 'tion']],
  c: [['enci', 'ence'], ['anci', 'ance']],
  e: [['izer', 'ize']],
  l: [['bli', 'ble'], ['alli', 'al'], ['entli', 'ent'], ['eli', 'e'], ['ousli', 'ous']],
  o: [['ization', 'ize'], ['ation', 'ate'], ['ator', 'ate']],
  s: [['alism', 'al'], ['iveness', 'ive'], ['fulness', 'ful'], ['ousness', 'ous']],
  t: [['aliti', 'al'], ['iviti', 'ive'], ['biliti', 'ble']],
  g: [['logi', 'log']],
};

const STEP3: Record<string, ReadonlyArray<readonly [string, string]>> = {
  e: [['icate', 'ic'], ['ative', ''], ['alize', 'al']],
  i: [['iciti', 'ic']],
  l: [['ical', 'ic'], ['ful', '']],
  s: [['ness', '']],
};

const STEP4: Record<string, readonly string[]> = {
  a: ['al'],
  c: ['ance', 'ence'],
  e: ['er'],
  i: ['ic'],
  l: ['able', 'ible'],
  n: ['ant', 'ement', 'ment', 'ent'],
  o: ['ion', 'ou'],
  s: ['ism'],
  t: ['ate', 'iti'],
  u: ['ous'],
  v: ['ive'],
  z: ['ize'],
};

/** Steps 2 and 3: map double suffixes to single ones when the stem has m > 0. */
function replaceSuffix(z: Stem, table: Record<string, ReadonlyArray<readonly [string, string]>>, at: number): void {
  const rules = table[z.b[at] ?? ''];
  if (!rules) return;
  for (const [suffix, replacement] of rules) {
    if (z.ends(suffix)) {
      z.r(replacement);
      return;
    }
  }
}

/** Step 4: drop -ant, -ence etc. when the stem has m > 1; -ion only after s or t. */
function step4(z: Stem): void {
  const suffixes = STEP4[z.b[z.k - 1] ?? ''];
  if (!suffixes) return;
  let found = false;
  for (const suffix of suffixes) {
    if (!z.ends(suffix)) continue;
    if (suffix === 'ion' && !(z.j >= 0 && (z.b[z.j] === 's' || z.b[z.j] === 't'))) continue;
    found = true;
    break;
  }
  if (found && z.m() > 1) z.k = z.j;
}

/** Step 5: drop a final -e when m > 1 (or m = 1 and not *o), and -ll -> -l when m > 1. */
function step5(z: Stem): void {
  z.j = z.k;
  if (z.b[z.k] === 'e') {
    const a = z.m();
    if (a > 1 || (a === 1 && !z.cvc(z.k - 1))) z.k--;
  }
  if (z.b[z.k] === 'l' && z.doubleC(z.k) && z.m() > 1) z.k--;
}

/** Stems one lower-case word. */
export function porterStem(word: string): string {
  if (word.length <= 2) return word;
  const z = new Stem(word);
  step1ab(z);
  if (z.k > 0) {
    step1c(z);
    if (z.k > 0) replaceSuffix(z, STEP2, z.k - 1);
    replaceSuffix(z, STEP3, z.k);
    step4(z);
    step5(z);
  }
  return z.result();
}
