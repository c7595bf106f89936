/**
 * How the journal's limits measure text: in characters, meaning Unicode code
 * points. That is what the reference's "chars" are in petta-memory (Python's
 * `len`), for the per-atom, per-record and query limits and the views'
 * character budgets alike. JavaScript's `length` counts UTF-16 code units, so
 * an emoji or a CJK Extension B ideograph counted twice: an atom of 2,100
 * emoji was refused as "4,200 characters" that petta-memory accepts.
 */
export function charCount(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    const c = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point (a lone half counts as one, like Python's surrogate escapes).
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}
