import { HONORIFICS } from '../domain/name-keys.ts';

/**
 * Name helpers only the graph service uses: whether a name opens with an
 * honorific (extraction) and edit distance (resolution's typo rule). The
 * name key itself is domain/name-keys.ts, shared with the storage adapters.
 */
/**
 * What separates the words of a text when names are looked up in it, by
 * extraction (known names) and by a query alike, so both cut a text the same
 * way. Marks belong to their word: split at them, "दिल्ली" was three
 * one-letter words and a Devanagari or Thai name was never found again.
 */
export const NAME_WORD_BREAK = /[^\p{L}\p{M}\p{N}@'’-]+/u;

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
