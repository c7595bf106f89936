/**
 * A deterministic token estimate, used for every budget in Mnemos (context
 * packing, prompt blocks) so figures agree everywhere:
 *
 *   tokens(text) = ceil(narrow / 4) + wide
 *
 * where `wide` counts code points of scripts that BPE tokenizers split about
 * one token per character or worse (CJK ideographs, kana, hangul, emoji and
 * other pictographs) and `narrow` counts every other code point, whitespace
 * included. Four characters per token is the usual figure for English with
 * GPT-style tokenizers. It is an estimate, not a tokenizer: it errs a little
 * high on plain English prose and can err low on dense code or numbers, so
 * callers keep a margin below hard model limits. Because of the ceiling,
 * tokens(a + b) <= tokens(a) + tokens(b): summing per-item estimates never
 * under-counts the joined text.
 */
const WIDE = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Extended_Pictographic}]/u;

export function estimateTokens(text: string): number {
  let narrow = 0;
  let wide = 0;
  for (const ch of text) {
    if (WIDE.test(ch)) wide++;
    else narrow++;
  }
  return Math.ceil(narrow / 4) + wide;
}
