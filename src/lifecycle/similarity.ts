/**
 * Near-duplicate detection without embeddings: Jaccard similarity over
 * shingles (the analysed terms plus adjacent term pairs, so word order counts
 * a little), with MinHash locality-sensitive hashing to find candidate pairs
 * without comparing every pair. 32 hashes in 8 bands of 4 rows find a pair
 * at Jaccard 0.8 with probability ~0.985; every candidate is then checked
 * exactly, so LSH can miss a pair but never invents one.
 */

export function shingles(terms: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < terms.length; i++) {
    out.add(terms[i]!);
    if (i + 1 < terms.length) out.add(`${terms[i]} ${terms[i + 1]}`);
  }
  return out;
}

const FACT_WORDS = new Set([
  'january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december',
  'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday',
  'today', 'tomorrow', 'yesterday', 'tonight',
  'not', 'no', 'never',
]);

/**
 * The terms that pin a fact down, in text order: every term with a digit
 * (room 12, 3pm, 2026), date words and negations. Jaccard weighs them like
 * any other word, so "in room 12" and "in room 14" score 0.87 in a long
 * sentence; two texts whose fact terms differ state different facts and are
 * never near-duplicates, however many other words they share.
 */
export function factTerms(terms: readonly string[]): string[] {
  return terms.filter((t) => FACT_WORDS.has(t) || /\p{N}/u.test(t));
}

export function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let inter = 0;
  for (const x of small) if (large.has(x)) inter++;
  return inter / (a.size + b.size - inter);
}

export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

const HASHES = 32;
const ROWS = 4;
const BANDS = HASHES / ROWS;

function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

// Fixed odd multipliers and offsets: the same text always gets the same signature.
const MULT = Array.from({ length: HASHES }, (_, i) => (fnv1a(`m${i}`) | 1) >>> 0);
const ADD = Array.from({ length: HASHES }, (_, i) => fnv1a(`a${i}`));

export function minhash(set: ReadonlySet<string>): Uint32Array {
  const sig = new Uint32Array(HASHES).fill(0xffffffff);
  for (const s of set) {
    const x = fnv1a(s);
    for (let i = 0; i < HASHES; i++) {
      const h = (Math.imul(x, MULT[i]!) + ADD[i]!) >>> 0;
      if (h < sig[i]!) sig[i] = h;
    }
  }
  return sig;
}

export interface SimilarityItem {
  id: string;
  /** Items are only ever compared within the same group (scope and type). */
  group: string;
  shingles: ReadonlySet<string>;
  vector?: ArrayLike<number>;
}

export interface SimilarPair {
  a: string;
  b: string;
  similarity: number;
  method: 'cosine' | 'jaccard';
}

/** Candidate pairs at or above the thresholds, never across groups. */
export function similarPairs(items: readonly SimilarityItem[], textThreshold: number, vectorThreshold: number): SimilarPair[] {
  // Numeric bucket keys (two 32-bit mixes in one safe integer): no strings per band at 100k items. A collision only adds a candidate, which the exact check rejects.
  const buckets = new Map<number, number[]>();
  const groupHash = new Map<string, number>();
  items.forEach((it, idx) => {
    if (it.shingles.size === 0) return;
    const sig = minhash(it.shingles);
    let g = groupHash.get(it.group);
    if (g === undefined) groupHash.set(it.group, (g = fnv1a(it.group)));
    for (let b = 0; b < BANDS; b++) {
      let h1 = Math.imul(g ^ (b + 1), 0x9e3779b1) >>> 0;
      let h2 = (g + Math.imul(b + 7, 0x85ebca6b)) >>> 0;
      for (let r = b * ROWS; r < b * ROWS + ROWS; r++) {
        h1 = Math.imul(h1 ^ sig[r]!, 0x01000193) >>> 0;
        h2 = Math.imul((h2 + sig[r]!) >>> 0, 0xc2b2ae35) >>> 0;
      }
      const key = h1 * 2097152 + (h2 >>> 11);
      const list = buckets.get(key);
      if (list) list.push(idx);
      else buckets.set(key, [idx]);
    }
  });
  const seen = new Set<string>();
  const out: SimilarPair[] = [];
  for (const list of buckets.values()) {
    if (list.length < 2) continue;
    // A huge bucket means many identical texts; comparing each to the first keeps it linear.
    const wide = list.length > 64;
    for (let i = 0; i < list.length; i++) {
      for (let j = i + 1; j < list.length; j++) {
        if (wide && i > 0) break;
        const x = items[list[i]!]!;
        const y = items[list[j]!]!;
        if (x.group !== y.group) continue;
        const key = x.id < y.id ? `${x.id}|${y.id}` : `${y.id}|${x.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        const pair = compare(x, y, textThreshold, vectorThreshold);
        if (pair) out.push(pair);
      }
    }
  }
  return out.sort((p, q) => q.similarity - p.similarity || (p.a < q.a ? -1 : 1));
}

function compare(x: SimilarityItem, y: SimilarityItem, textThreshold: number, vectorThreshold: number): SimilarPair | null {
  if (x.vector && y.vector) {
    const c = cosine(x.vector, y.vector);
    return c >= vectorThreshold ? { a: x.id, b: y.id, similarity: c, method: 'cosine' } : null;
  }
  const j = jaccard(x.shingles, y.shingles);
  return j >= textThreshold ? { a: x.id, b: y.id, similarity: j, method: 'jaccard' } : null;
}
