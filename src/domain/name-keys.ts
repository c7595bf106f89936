/**
 * The key a knowledge-graph name is stored and looked up under: lower-case,
 * Latin and Greek diacritics folded, honorifics and punctuation dropped, so
 * "Dr. Smith", "dr smith" and "Smith" share the key "smith", and "José" is
 * "jose". Handles keep their "@".
 *
 * It lives in the domain because two layers write these keys: the graph
 * service (extraction, resolution, queries) and the storage adapters that
 * re-key a store written by an older folding (adapters/sql/graph-norms.ts).
 * An adapter may not import a service, so the one definition sits where both
 * may depend on it. Changing it changes stored keys: a change needs a re-key
 * migration like SQLite 17 / PostgreSQL 18.
 */
export const HONORIFICS: ReadonlySet<string> = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'professor', 'sir', 'miss', 'madam', 'dame', 'lord', 'lady']);

/**
 * Combining marks on a Latin or Greek letter: accents a writer may leave off ("Zoe" for "Zoë"), so
 * folding them joins two spellings of one name. Elsewhere a mark is spelling: Thai and Devanagari
 * vowels and tone marks, Cyrillic й (и with a breve, another letter), Arabic and Hebrew points.
 * Stripping every mark made กรุงเทพ and กรงเทพ one entity.
 */
export const FOLDED_MARKS = /([\p{Script=Latin}\p{Script=Greek}])\p{M}+/gu;

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
