/**
 * Name normalisation for entity resolution: lower-case, diacritics folded,
 * honorifics and punctuation dropped, so "Dr. Smith", "dr smith" and "Smith"
 * share the key "smith". Handles keep their "@".
 */
const HONORIFICS = new Set(['dr', 'mr', 'mrs', 'ms', 'mx', 'prof', 'professor', 'sir', 'miss', 'madam', 'dame', 'lord', 'lady']);

export function normalizeName(s: string): string {
  const folded = s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  if (folded.trim().startsWith('@')) return folded.trim();
  const tokens = folded
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
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
