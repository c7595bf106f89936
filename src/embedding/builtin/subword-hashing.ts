/**
 * Subword hashing: each word's character n-grams (with "<" and ">" marking
 * the word's edges, as fastText does) are hashed into a fixed number of
 * dimensions with a random sign, so collisions cancel out on average instead
 * of piling up. Needs no training: it gives the built-in embedder a sense of
 * spelling ("reccomend" ~ "recommend", "paint" ~ "painting") before a model
 * is learned, and for words the learned model never saw.
 */
import { hash32 } from './prng.ts';

export interface SubwordOptions {
  dimensions: number;
  minN: number;
  maxN: number;
}

/** Adds `weight` × the word's hashed n-gram vector (unit length) into `out`. */
export function addSubwordVector(out: Float64Array, offset: number, word: string, weight: number, o: SubwordOptions): void {
  if (o.dimensions <= 0 || weight === 0) return;
  const marked = `<${word}>`;
  const grams: string[] = [];
  for (let n = o.minN; n <= o.maxN; n++) for (let i = 0; i + n <= marked.length; i++) grams.push(marked.slice(i, i + n));
  if (grams.length === 0) grams.push(marked);
  const scale = weight / Math.sqrt(grams.length);
  for (const g of grams) {
    const h = hash32(g, 0x9e3779b9);
    const slot = h % o.dimensions;
    const sign = (h >>> 31) === 1 ? -1 : 1;
    out[offset + slot]! += sign * scale;
  }
}
