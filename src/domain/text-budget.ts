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
 */
export class TextBudget {
  private left: number;
  cut = 0;

  constructor(readonly maxChars: number) {
    this.left = maxChars;
  }

  /** The part of `text` that fits, and whether it was cut. */
  take(text: string): { text: string; truncated: boolean } {
    if (text.length <= this.left) {
      this.left -= text.length;
      return { text, truncated: false };
    }
    const end = charBoundary(text, Math.max(0, this.left));
    this.left = 0;
    this.cut += 1;
    return { text: text.slice(0, end), truncated: true };
  }
}

/** `text` as far as the budget allows, with `truncated: true` only when it was cut (so an answer's uncut texts carry no extra field). */
export function withinBudget(budget: TextBudget, text: string): { text: string; truncated?: true } {
  const part = budget.take(text);
  return part.truncated ? { text: part.text, truncated: true } : { text: part.text };
}
