/**
 * Scripts written without spaces between words: Han, hiragana, katakana,
 * hangul (whose spaces fall between phrases, particles attached), Thai, Lao,
 * Khmer and Myanmar. Script_Extensions rather than Script, so the katakana
 * prolonged sound mark "ー" (script Common) belongs to the run it lengthens.
 * The knowledge graph looks for known names inside runs of the same scripts
 * (graph/uncased-names.ts).
 */
export const SCRIPTS = String.raw`\p{scx=Han}\p{scx=Hiragana}\p{scx=Katakana}\p{scx=Hangul}\p{scx=Thai}\p{scx=Lao}\p{scx=Khmer}\p{scx=Myanmar}`;

/** Whether a string holds any character of those scripts. */
export const NO_SPACE_SCRIPT = new RegExp(`[${SCRIPTS}]`, 'u');

/**
 * A token's pieces: either one character of those scripts with the marks
 * that follow it, or a stretch of anything else (Latin letters, digits) that
 * stays a word of its own ("iphone買った" -> "iphone", "買", "っ", "た").
 */
const PIECE = new RegExp(`[${SCRIPTS}]\\p{M}*|[^${SCRIPTS}]+`, 'gu');
const UNIT = new RegExp(`^[${SCRIPTS}]`, 'u');

/**
 * Appends the terms of a token that holds no-space script characters. Each
 * run of them gives, for a document, every character and every overlapping
 * pair in reading order (東京タワー -> 東 東京 京 京タ タ タワ ワ ワー ー);
 * for a query, only the pairs, or the character when the run is one long.
 * Both sides cut runs the same way, so a query's pairs are the document's.
 */
export function splitNoSpaceRuns(token: string, forQuery: boolean, out: string[]): void {
  let run: string[] = [];
  const flush = (): void => {
    if (run.length === 1) out.push(run[0]!);
    else {
      for (let i = 0; i < run.length; i++) {
        if (!forQuery) out.push(run[i]!);
        if (i + 1 < run.length) out.push(run[i]! + run[i + 1]!);
      }
    }
    run = [];
  };
  for (const piece of token.match(PIECE) ?? []) {
    if (UNIT.test(piece)) {
      run.push(piece);
      continue;
    }
    if (run.length > 0) flush();
    out.push(piece);
  }
  if (run.length > 0) flush();
}
