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

/** A word's hashed n-grams: slot and sign per n-gram, and sqrt(n-gram count), the norm that makes the vector unit length. */
export interface SubwordSlots {
  slots: Int32Array;
  signs: Int8Array;
  norm: number;
}

export function subwordSlots(word: string, o: SubwordOptions): SubwordSlots {
  const marked = `<${word}>`;
  const grams: string[] = [];
  for (let n = o.minN; n <= o.maxN; n++) for (let i = 0; i + n <= marked.length; i++) grams.push(marked.slice(i, i + n));
  if (grams.length === 0) grams.push(marked);
  const slots = new Int32Array(grams.length);
  const signs = new Int8Array(grams.length);
  grams.forEach((g, i) => {
    const h = hash32(g, 0x9e3779b9);
    slots[i] = h % o.dimensions;
    signs[i] = (h >>> 31) === 1 ? -1 : 1;
  });
  return { slots, signs, norm: Math.sqrt(grams.length) };
}

/** Adds `weight` × the word's hashed n-gram vector (unit length) into `out`. */
export function addSubwordSlots(out: Float64Array, offset: number, s: SubwordSlots, weight: number): void {
  if (weight === 0) return;
  const scale = weight / s.norm;
  for (let i = 0; i < s.slots.length; i++) out[offset + s.slots[i]!]! += s.signs[i]! * scale;
}

/** addSubwordSlots for a word not yet hashed. */
export function addSubwordVector(out: Float64Array, offset: number, word: string, weight: number, o: SubwordOptions): void {
  if (o.dimensions <= 0 || weight === 0) return;
  addSubwordSlots(out, offset, subwordSlots(word, o), weight);
}
