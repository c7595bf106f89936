/**
 * Name normalisation for entity resolution: lower-case, Latin and Greek
 * diacritics folded, honorifics and punctuation dropped, so "Dr. Smith",
 * "dr smith" and "Smith" share the key "smith", and "José" is "jose".
 * Handles keep their "@".
 */
const HONORIFICS = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'professor', 'sir', 'miss', 'madam', 'dame', 'lord', 'lady']);

/**
 * Combining marks on a Latin or Greek letter: accents a writer may leave off ("Zoe" for "Zoë"), so
 * folding them joins two spellings of one name. Elsewhere a mark is spelling: Thai and Devanagari
 * vowels and tone marks, Cyrillic й (и with a breve, another letter), Arabic and Hebrew points.
 * Stripping every mark made กรุงเทพ and กรงเทพ one entity.
 */
const FOLDED_MARKS = /([\p{Script=Latin}\p{Script=Greek}])\p{M}+/gu;

/** Latin and Greek diacritics removed, every other mark kept; composed again (NFC) so a kept mark sits as it was written. */
export function foldDiacritics(s: string): string {
  return s.normalize('NFKD').replace(FOLDED_MARKS, '$1').normalize('NFC');
}

export function normalizeName(s: string): string {
  return nameKey(foldDiacritics(s).toLowerCase());
}

/** The key of a name already folded and lower-cased: handles whole, else words without punctuation or a leading honorific. */
export function nameKey(folded: string): string {
  if (folded.trim().startsWith('@')) return folded.trim();
  const tokens = folded
    .replace(/[^\p{L}\p{M}\p{N}\s'-]/gu, ' ')
    .split(/\s+/)
    .map((t) => t.replace(/^['-]+|['-]+$/g, '').replace(/'s$/, ''))
    .filter(Boolean);
  while (tokens.length > 1 && HONORIFICS.has(tokens[0]!)) tokens.shift();
  if (tokens.length === 1 && HONORIFICS.has(tokens[0]!)) return tokens[0]!;
  return tokens.join(' ');
}

export function hasHonorific(s: string): boolean {
  const first = s.trim().toLowerCase().split(/[\s.]+/)[0] ?? '';
  return HONORIFICS.has(first);
}

/** Levenshtein distance, stopping early once it exceeds `max`. */
export function editDistance(a: string, b: string, max = 2): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      const v = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      cur.push(v);
      if (v < best) best = v;
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}
