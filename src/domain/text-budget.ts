import { charBoundary } from './unicode.ts';

/**
 * The text budget of a tool answer when the caller gives none, and the most it
 * may ask for: shared by the tools that return memory texts (memory_search,
 * memory_list), so one setting means the same on each.
 */
export const DEFAULT_ANSWER_CHARS = 20_000;
export const MAX_ANSWER_CHARS = 60_000;

/**
 * Answers bounded by characters, for tools whose output goes into an LLM's
 * context: texts are taken in order until the budget runs out, and a text
 * cut short is cut between characters (never inside a surrogate pair) and
 * marked, so the reader knows to fetch the whole one by its id.
 *
 * `maxEach`, when given, also bounds every text on its own: a page whose
 * first memory was 60,000 characters long spent the whole budget on it, and
 * every later memory showed no text at all. With a cap each of them shows
 * its beginning (as long as the page budget lasts), and the page stays
 * bounded by `maxChars` as before.
 */
export class TextBudget {
  private left: number;
  /** Texts cut short, by either bound. */
  cut = 0;
  /** Of those, the texts cut by `maxEach` while the page budget had room for more. */
  cutEach = 0;

  constructor(
    readonly maxChars: number,
    readonly maxEach?: number,
  ) {
    this.left = maxChars;
  }

  /** The part of `text` that fits, and whether it was cut. */
  take(text: string): { text: string; truncated: boolean } {
    const byEach = this.maxEach !== undefined && this.maxEach < this.left;
    const room = byEach ? this.maxEach! : this.left;
    if (text.length <= room) {
      this.left -= text.length;
      return { text, truncated: false };
    }
    const end = charBoundary(text, Math.max(0, room));
    // Cut by the page budget, the page is spent; cut by the cap, the rest of the budget is the next texts'.
    this.left = byEach ? this.left - end : 0;
    this.cut += 1;
    if (byEach) this.cutEach += 1;
    return { text: text.slice(0, end), truncated: true };
  }

  /**
   * What an answer says when texts were cut, or undefined when none was: which bound cut how many, and where the
   * whole text is (`whole`, e.g. "memory_get {id} gives a memory whole").
   */
  note(whole: string): string | undefined {
    if (this.cut === 0) return undefined;
    const texts = (n: number) => `${n} text${n === 1 ? '' : 's'}`;
    const byPage = this.cut - this.cutEach;
    const parts = [
      ...(this.cutEach > 0 ? [`maxCharsEach ${this.maxEach} cut ${texts(this.cutEach)}`] : []),
      ...(byPage > 0 ? [`maxChars ${this.maxChars} cut ${texts(byPage)}`] : []),
    ];
    return `${parts.join(' and ')} (marked truncated); ${whole}`;
  }
}

/** `text` as far as the budget allows, with `truncated: true` only when it was cut (so an answer's uncut texts carry no extra field). */
export function withinBudget(budget: TextBudget, text: string): { text: string; truncated?: true } {
  const part = budget.take(text);
  return part.truncated ? { text: part.text, truncated: true } : { text: part.text };
}
