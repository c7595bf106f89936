import { mulberry32 } from '../embedding/builtin/prng.ts';

/** The seeded generator the built-in embedder uses; benchmarks need the same determinism. */
export const prng = mulberry32;

/**
 * Deterministic synthetic corpus for speed benchmarks: Zipf-distributed words
 * from a generated vocabulary, so term statistics look like natural text.
 */
const SYLLABLES = ['ka', 'lo', 'mi', 'ne', 'ru', 'sa', 'ti', 'vo', 'ze', 'ba', 'do', 'fi', 'gu', 'ha', 'je', 'pa', 'qui', 'ro', 'su', 'wa'];

export class SyntheticText {
  private readonly vocab: string[];
  private readonly cdf: Float64Array;
  private readonly rand: () => number;

  constructor(seed = 42, vocabSize = 20_000) {
    this.rand = prng(seed);
    const r = prng(seed + 1);
    const words = new Set<string>();
    while (words.size < vocabSize) {
      const n = 2 + Math.floor(r() * 3);
      let w = '';
      for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(r() * SYLLABLES.length)];
      words.add(w);
    }
    this.vocab = [...words];
    this.cdf = new Float64Array(vocabSize);
    let sum = 0;
    for (let i = 0; i < vocabSize; i++) sum += 1 / (i + 1);
    let acc = 0;
    for (let i = 0; i < vocabSize; i++) {
      acc += 1 / (i + 1) / sum;
      this.cdf[i] = acc;
    }
  }

  word(): string {
    const x = this.rand();
    let lo = 0;
    let hi = this.cdf.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cdf[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return this.vocab[lo]!;
  }

  sentence(min = 12, max = 30): string {
    const n = min + Math.floor(this.rand() * (max - min + 1));
    const words: string[] = [];
    for (let i = 0; i < n; i++) words.push(this.word());
    return words.join(' ');
  }

  /** A query of rarer words, as people search for specifics. */
  query(terms = 3): string {
    const words: string[] = [];
    for (let i = 0; i < terms; i++) words.push(this.vocab[50 + Math.floor(this.rand() * 5000)]!);
    return words.join(' ');
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function latencySummary(samples: number[]): { p50: number; p95: number; p99: number; mean: number } {
  const s = [...samples].sort((a, b) => a - b);
  const round = (x: number) => Math.round(x * 1000) / 1000;
  return { p50: round(percentile(s, 50)), p95: round(percentile(s, 95)), p99: round(percentile(s, 99)), mean: round(s.reduce((a, b) => a + b, 0) / Math.max(1, s.length)) };
}
